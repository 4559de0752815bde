"""Smoke test of bench/prefix_cache.py: a short replay, both orders and the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_loader import load_bench

KEYS = {
    "context_tokens_mean",
    "prefix_tokens_mean",
    "prefix_share_median",
    "unchanged_share",
    "recalled_share_median",
}


def test_prefix_cache_smoke(tmp_path: Path) -> None:
    bench = load_bench("prefix_cache")
    if not bench.DEFAULT_DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {bench.DEFAULT_DATA}")
    out = tmp_path / "prefix.json"
    assert bench.main(["--limit", "1", "--turns", "40", "--json", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    for system in ("whole_history", "contract", "cache_friendly"):
        assert KEYS <= set(results[system]) and results[system]["turns"] == 39
    assert results["whole_history"]["unchanged_share"] == 1.0  # it only ever appends
    assert "cache_friendly_vs_contract_prefix_tokens" in results["ratios"]
    assert results["budget_tokens"] == 4000  # the default configuration's


def test_prefix_cache_at_another_budget(tmp_path: Path) -> None:
    bench = load_bench("prefix_cache")
    out = tmp_path / "prefix.json"
    argv = ["--limit", "1", "--turns", "80", "--budget", "1200", "--json", str(out)]
    assert bench.main(argv) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["budget_tokens"] == 1200
    friendly, contract = results["cache_friendly"], results["contract"]
    assert friendly["context_tokens_mean"] <= 1200 and contract["context_tokens_mean"] <= 1200
    assert friendly["prefix_share_median"] > contract["prefix_share_median"]


def test_common_prefix_finds_the_first_difference() -> None:
    bench = load_bench("prefix_cache")
    assert bench.common_prefix("abcdef", "abcxef") == 3
    assert bench.common_prefix("abc", "abcdef") == 3
    assert bench.common_prefix("", "abc") == 0
