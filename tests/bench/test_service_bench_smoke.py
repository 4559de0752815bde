"""Smoke test of bench/service.py: a small load on longtalk and the floor, nothing lost."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from bench_loader import load_bench

KEYS = {
    "append_p50_ms",
    "append_p95_ms",
    "floor_append_p95_ms",
    "context_p95_ms",
    "index_lag_max_s",
    "cpu_ms_per_message",
    "lost",
    "duplicated",
    "errors",
}


@pytest.mark.timeout(120)
def test_service_bench_smoke(tmp_path: Path) -> None:
    bench = load_bench("service")
    out = tmp_path / "service.json"
    argv = ["--clients", "4", "--chats", "4", "--requests", "100", "--single-ops", "10"]
    assert bench.main([*argv, "--retry-share", "0.2", "--json", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert KEYS <= set(results)
    assert results["lost"] == results["duplicated"] == results["errors"] == 0
    assert results["append_p95_ms"] > 0 and results["floor_append_p95_ms"] > 0
    assert results["index_lag_max_s"] is not None
    assert results["cpu_ms_per_message"] > 0  # the server's own CPU, background jobs included
    lag = results["longtalk"]["index_lag"]
    assert not lag["timed_out"] and lag["lag_left"] == 0
    assert lag["timeline"][0] == [0.0, lag["lag_at_first_poll"]]
    assert lag["timeline"][-1][1] == 0 or lag["lag_at_first_poll"] == 0
    growth = lag["growth_per_second"]
    assert growth is None or isinstance(growth, float)
    for system in ("longtalk", "floor"):
        report = results[system]
        assert report["load"]["requests"] >= 100  # retries come on top
        assert report["load"]["retry"]["n"] > 0  # retries were sent and answered
        assert report["retry_mismatch"] == 0
        assert report["storage"]["acknowledged"] == report["storage"]["stored"] > 0


def test_backlog_growth_is_the_slope_of_the_second_half() -> None:
    growth = load_bench("service").backlog_growth
    rising_late = [(0.0, 50), (1.0, 0), (2.0, 10), (3.0, 20), (4.0, 30)]
    assert growth(rising_late) == 10.0  # the warm-up's 50 is left out
    assert growth([(1.0, 5), (2.0, 5), (3.0, 5)]) == 0.0
    assert growth([(1.0, 9), (2.0, 6), (3.0, 3)]) == -3.0
    assert growth([]) is None and growth([(1.0, 4)]) is None


def test_a_flat_backlog_is_not_growing_and_a_rising_one_is() -> None:
    bench = load_bench("service")
    flat = [(float(t), [3, 9, 1, 6, 2, 8, 0, 7, 4, 5][t % 10]) for t in range(60)]
    rising = [(float(t), 2 * t + [3, 9, 1, 6, 2][t % 5]) for t in range(60)]
    flat_error = bench.backlog_growth_error(flat)
    assert flat_error is not None and flat_error > 0
    assert bench.not_growing(bench.backlog_growth(flat), flat_error)
    assert bench.backlog_growth(rising) > 1.5
    assert not bench.not_growing(bench.backlog_growth(rising), bench.backlog_growth_error(rising))
    assert bench.backlog_growth_error([(1.0, 4), (2.0, 5)]) is None  # too few to tell


def test_locomo_text_sends_real_turns_behind_their_tags() -> None:
    bench = load_bench("service")
    texts = bench.locomo_texts()
    assert len(texts) > 1000 and all(isinstance(t, str) for t in texts)
    bench.TEXTS[:] = texts
    try:
        messages = bench.exchange("c", "k", 2, random.Random(3))
    finally:
        bench.TEXTS.clear()
    assert [m["content"].split(" ", 1)[0] for m in messages] == ["[k/0]", "[k/1]"]
    assert all(m["content"].split(" ", 1)[1] in texts for m in messages)
    assert bench.tags_of([{"message": m} for m in messages]) == ["k/0", "k/1"]
