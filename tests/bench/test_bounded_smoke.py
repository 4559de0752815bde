"""Smoke test of bench/bounded.py: a short chat through both summarizers, nothing lost."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bounded.py"
MODE_KEYS = {
    "over_budget",
    "summary_shown_max",
    "summary_shown_growth",
    "llm_input_ratio",
    "lost_messages",
    "points",
}


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bounded_bench", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_bounded_smoke(tmp_path: Path) -> None:
    bench = load_bench()
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
