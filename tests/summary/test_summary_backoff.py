"""The one failure policy: per-chat exponential backoff with jitter, capped, reset on success."""

from __future__ import annotations

import random

import pytest

from longtalk.summary.backoff import Backoff, BackoffPolicy, backoff


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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


def test_a_failing_chat_backs_off_and_a_success_resets_it() -> None:
    clock = Clock()
    policy = Backoff(BackoffPolicy(base=5, ceiling=60, jitter=0), clock=clock)
    assert policy.due("a")
    assert policy.failed("a", "broken_json") == 1005
    assert not policy.due("a") and policy.due("b")  # per chat
    clock.now = 1004.9
    assert not policy.due("a")
    clock.now = 1005
    assert policy.due("a")
    assert policy.failed("a", "cut_off") == 1015
    assert policy.failed("a", "cut_off", now=2000) == 2020
    state = policy.state("a")
    assert (state.failures, state.retry_at, state.last_kind) == (3, 2020, "cut_off")
    assert dict(state.kinds) == {"broken_json": 1, "cut_off": 2}
    policy.succeeded("a")
    assert policy.due("a", now=2000)
    after = policy.state("a")
    assert (after.failures, after.retry_at) == (0, None)
    assert dict(after.kinds) == {"broken_json": 1, "cut_off": 2}  # counts stay visible
    assert policy.failed("a", "unavailable", now=3000) == 3005  # from the base again
    policy.forget("a")
    assert policy.state("a").failures == 0 and policy.due("a")


def test_a_bad_policy_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="base <= ceiling"):
        BackoffPolicy(base=10, ceiling=5)
    with pytest.raises(ValueError, match="jitter"):
        BackoffPolicy(jitter=1.5)


def test_failing_again_waits_for_the_chat_to_grow_by_the_failed_calls_cost() -> None:
    policy = Backoff(BackoffPolicy(base=5, ceiling=60, jitter=0))
    policy.failed("a", "broken_json", now=0, cost=3000, volume=7_000)
    assert policy.state("a").retry_volume == 0  # one failure: retried on time alone
    assert policy.due("a", now=5, volume=7_000)
    policy.failed("a", "broken_json", now=0, cost=3000, volume=10_000)
    assert policy.state("a").retry_volume == 13_000
    assert not policy.due("a", now=100, volume=12_999)  # time passed, the chat has not grown
    assert policy.due("a", now=100, volume=13_000)
    assert not policy.due("a", now=9, volume=20_000)  # grown, but still backing off
    assert policy.due("a", now=100)  # a door that does not count tokens: time only
    policy.succeeded("a")
    assert policy.due("a", now=0, volume=0)
