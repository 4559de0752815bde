from __future__ import annotations

from bench_loader import load_bench

former_keys = load_bench("former_keys")


def test_every_key_of_the_current_name_is_also_written_under_the_former_one() -> None:
    out = former_keys.with_former_keys(
        {"longtalk_ratio": 1.1, "rows": [{"longtalk": {"p95": 3}}], "naive_ratio": 4.7}
    )
    assert out["memstrata_ratio"] == 1.1 and out["longtalk_ratio"] == 1.1
    assert out["rows"][0]["memstrata"] == {"p95": 3}
    assert out["naive_ratio"] == 4.7 and "memstratanaive_ratio" not in out
