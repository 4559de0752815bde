"""The bounded cache: the most recently stored or used entries stay, the rest go."""

from __future__ import annotations

import pytest

from longtalk.core.recent import RecentCache


def test_storing_past_the_bound_drops_the_least_recent() -> None:
    cache: RecentCache[str, int] = RecentCache(2)
    cache.keep({"a": 1, "b": 2})
    cache.keep({"a": 1})  # used again: now the newest
    cache.keep({"c": 3})
    assert cache.known(["a", "b", "c"]) == {"a": 1, "c": 3}
    assert len(cache) == 2 and "b" not in cache


def test_discard_forgets_one_entry() -> None:
    cache: RecentCache[str, int] = RecentCache(4)
    cache.keep({"a": 1, "b": 2})
    cache.discard("a")
    cache.discard("missing")
    assert cache.known(["a", "b"]) == {"b": 2}


def test_a_bound_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="size"):
        RecentCache(0)
