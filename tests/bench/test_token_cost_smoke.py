"""Smoke test of bench/token_cost.py: every behaviour on one conversation, nothing lost."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from bench_loader import load_bench

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo_dev.json"


def test_token_cost_smoke(tmp_path: Path) -> None:
    bench = load_bench("token_cost")
    if not DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {DATA}")
    out = tmp_path / "cost.json"
    argv = ["--data", str(DATA), "--conversations", "1", "--json", str(out)]
    code = asyncio.run(bench.main(argv))
    assert code == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert set(results["ratios"]) == {"json", "prose", "broken", "mixed"}
    assert results["longtalk_ratio"] == results["ratios"]["json"]
    assert results["memstrata_ratio"] == results["longtalk_ratio"]  # the former name
    assert results["lost"] == {"json": 0, "prose": 0, "broken": 0, "mixed": 0}
    assert results["ratios"]["json"] <= 1.3 and results["ratios"]["prose"] <= 1.3
    # a model that always fails backs off: no retry on every append, no runaway cost
    assert results["ratios"]["broken"] <= 1.3
    assert results["calls"]["broken"] <= results["calls"]["json"]
