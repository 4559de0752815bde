"""The one failure policy: per-chat exponential backoff with jitter, capped, reset on success."""

from __future__ import annotations

import random

import pytest

from longtalk.summary.backoff import BackoffPolicy, backoff


def test_the_wait_doubles_per_failure_up_to_the_ceiling() -> None:
    waits = [backoff(n, base=5, ceiling=300) for n in range(1, 10)]
    assert waits == [5, 10, 20, 40, 80, 160, 300, 300, 300]
    assert backoff(0, base=5, ceiling=300) == 0
    assert backoff(10_000, base=5, ceiling=300) == 300  # no overflow however long it fails


def test_jitter_takes_off_at_most_its_share_and_never_exceeds_the_cap() -> None:
    rng = random.Random(3)
    waits = [backoff(9, base=5, ceiling=300, jitter=0.5, rng=rng) for _ in range(200)]
    assert all(150 <= wait <= 300 for wait in waits)
    assert len({round(wait, 3) for wait in waits}) > 150  # chats do not retry in step


def test_a_bad_policy_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="base <= ceiling"):
        BackoffPolicy(base=10, ceiling=5)
    with pytest.raises(ValueError, match="jitter"):
        BackoffPolicy(jitter=1.5)
