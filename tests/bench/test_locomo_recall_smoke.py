"""Smoke test of bench/locomo_recall.py: one long conversation through the default engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_loader import load_bench

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo_dev.json"


def test_locomo_recall_smoke(tmp_path: Path) -> None:
    if not DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {DATA}")
    bench = load_bench("locomo_recall")
    conversations = json.loads(DATA.read_text(encoding="utf-8"))
    longest = max(conversations, key=lambda conv: len(json.dumps(conv["conversation"])))
    data = tmp_path / "longest.json"  # more messages than one append may carry
    data.write_text(json.dumps([longest]), encoding="utf-8")
    out = tmp_path / "recall.json"
    argv = ["--data", str(data), "--budgets", "1000", "--no-baselines"]
    assert bench.main([*argv, "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))["1000"]["longtalk"]
    assert result["window_intact"] == 1.0
    assert 0.0 < result["evidence_recall"]["cat1_4"] <= 1.0
    assert result["tokens_used_mean"] <= 1000
