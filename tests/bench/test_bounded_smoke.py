"""Smoke test of bench/bounded.py: a short chat through both summarizers, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_loader import load_bench

MODE_KEYS = {
    "over_budget",
    "summary_shown_max",
    "summary_shown_growth",
    "llm_input_ratio",
    "lost_messages",
    "points",
}


def test_bounded_smoke(tmp_path: Path) -> None:
    bench = load_bench("bounded")
    if not bench.DEFAULT_DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {bench.DEFAULT_DATA}")
    out = tmp_path / "bounded.json"
    assert bench.main(["--turns", "300", "--every", "100", "--json", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["turns"] == 300
    for mode in ("llm", "offline"):
        report = results[mode]
        assert MODE_KEYS <= set(report)
        assert report["lost_messages"] == 0
        assert [p["turns"] for p in report["points"]] == [100, 200, 300]
        assert report["llm_input_tokens"] > 0
