"""Trigger policies: Orbiter's count-or-tokens, the episode service's tokens-and-episodes."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from longtalk.compat.templates import SummaryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter, TiktokenCounter
from longtalk.summary.triggers import (
    AllOf,
    AnyOf,
    CountOrTokensTrigger,
    TokensAndEpisodesTrigger,
    TriggerPolicy,
    TriggerResult,
    check_trigger,
)


def messages(count: int, chars: int = 4) -> list[Message]:
    return [user("x" * chars) if i % 2 == 0 else assistant("y" * chars) for i in range(count)]


def test_result_is_a_frozen_value() -> None:
    result = check_trigger([], SummaryConfig())
    assert result == TriggerResult(False, result.reason, 0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.triggered = True  # type: ignore[misc]


# -- check_trigger (Orbiter) --------------------------------------------------------------


def test_exactly_twenty_messages_do_not_trigger() -> None:
    result = check_trigger(messages(20), SummaryConfig())
    assert not result.triggered
    assert result.message_count == 20
    assert result.estimated_tokens == 20
    assert "20 <= 20" in result.reason


def test_twenty_one_messages_trigger() -> None:
    result = check_trigger(messages(21), SummaryConfig())
    assert result.triggered
    assert result.reason == "message count 21 > 20"


def test_exactly_4000_tokens_do_not_trigger_and_4001_do() -> None:
    at = check_trigger([user("a" * 16_000)], SummaryConfig())
    assert not at.triggered and at.estimated_tokens == 4000
    over = check_trigger([user("a" * 16_001)], SummaryConfig())
    assert over.triggered and over.estimated_tokens == 4001
    assert over.reason == "estimated tokens 4001 > 4000"


def test_both_conditions_are_reported() -> None:
    result = check_trigger(messages(25, chars=800), SummaryConfig())
    assert result.triggered
    assert result.reason == "message count 25 > 20 and estimated tokens 5000 > 4000"


def test_config_thresholds_and_ratio_are_used() -> None:
    config = SummaryConfig(message_threshold=3, token_threshold=10, token_estimate_ratio=2.0)
    assert check_trigger(messages(3, chars=6), config).estimated_tokens == 9
    assert not check_trigger(messages(3, chars=6), config).triggered
    assert check_trigger(messages(4, chars=1), config).triggered
    assert check_trigger([user("a" * 21)], config).triggered  # ceil(21 / 2) = 11 > 10


def test_default_config_is_seed_001() -> None:
    assert check_trigger(messages(21)).triggered
    assert not check_trigger(messages(20)).triggered


def test_a_counter_replaces_the_heuristic() -> None:
    text = "日本語のテキストです。" * 100  # 1,100 chars -> 275 by the heuristic
    counter = TiktokenCounter()
    config = SummaryConfig(token_threshold=300)
    by_heuristic = check_trigger([user(text)], config)
    by_tokenizer = check_trigger([user(text)], config, counter=counter)
    assert by_heuristic.estimated_tokens == 275 and not by_heuristic.triggered
    assert by_tokenizer.estimated_tokens == counter.count(text) > 300
    assert by_tokenizer.triggered


# -- tokens AND episodes (the episode-summary service) -----------------------------------


def test_seed_002_defaults() -> None:
    policy = TokensAndEpisodesTrigger()
    assert (policy.token_threshold, policy.min_new_episodes) == (200, 5)


def test_tokens_and_episodes_needs_both() -> None:
    policy = TokensAndEpisodesTrigger()
    long_history = messages(10, chars=100)  # 250 tokens, 5 episodes
    assert policy.evaluate(long_history, new_episodes=5).triggered
    few = policy.evaluate(long_history, new_episodes=4)
    assert not few.triggered
    assert few.reason == "estimated tokens 250 > 200 and new episodes 4 < 5"
    short = policy.evaluate(messages(10, chars=80), new_episodes=50)  # exactly 200 tokens
    assert not short.triggered and short.estimated_tokens == 200
    assert policy.evaluate(messages(10, chars=81), new_episodes=5).triggered  # 210 tokens


def test_episodes_default_to_the_episodes_in_the_items() -> None:
    policy = TokensAndEpisodesTrigger()
    assert policy.evaluate(messages(10, chars=100)).triggered  # 5 episodes, 250 tokens
    assert policy.evaluate(messages(9, chars=120)).triggered  # 5 episodes, 270 tokens
    result = policy.evaluate(messages(8, chars=140))  # 4 episodes, 280 tokens
    assert not result.triggered and "new episodes 4 < 5" in result.reason


def test_tokens_and_episodes_with_a_counter() -> None:
    policy = TokensAndEpisodesTrigger(token_threshold=10, min_new_episodes=1)
    items = [user("one two three four five")]
    assert not policy.evaluate(items, counter=HeuristicTokenCounter(100)).triggered
    assert policy.evaluate(items, counter=HeuristicTokenCounter(1)).triggered


# -- composition ---------------------------------------------------------------------------


def test_policies_fit_the_protocol() -> None:
    for policy in (
        CountOrTokensTrigger(),
        TokensAndEpisodesTrigger(),
        AnyOf(CountOrTokensTrigger()),
        AllOf(TokensAndEpisodesTrigger()),
    ):
        assert isinstance(policy, TriggerPolicy)


def test_any_of() -> None:
    policy = AnyOf(CountOrTokensTrigger(message_threshold=3), TokensAndEpisodesTrigger())
    small = policy.evaluate(messages(2))
    assert not small.triggered
    assert small.reason.startswith("(below thresholds") and " | (" in small.reason
    by_count = policy.evaluate(messages(4))
    assert by_count.triggered and by_count.reason == "message count 4 > 3"
    by_tokens = policy.evaluate(messages(3, chars=400), new_episodes=5)
    assert by_tokens.triggered and "estimated tokens 300 > 200" in by_tokens.reason


def test_all_of() -> None:
    policy = AllOf(CountOrTokensTrigger(message_threshold=3), TokensAndEpisodesTrigger())
    both = policy.evaluate(messages(10, chars=100))
    assert both.triggered and " & " in both.reason
    only_count = policy.evaluate(messages(10, chars=10))
    assert not only_count.triggered
    assert only_count.reason == "estimated tokens 30 <= 200 and new episodes 5 >= 5"
    assert (
        only_count.message_count == 10 and only_count.estimated_tokens == 30
    )  # ceil(10 / 4) per message


def test_operators_compose_and_nest() -> None:
    seed_001 = CountOrTokensTrigger()
    seed_002 = TokensAndEpisodesTrigger()
    either = seed_001 | seed_002
    both = seed_001 & seed_002
    assert either == AnyOf(seed_001, seed_002)
    assert both == AllOf(seed_001, seed_002)
    nested = either & TokensAndEpisodesTrigger(token_threshold=0, min_new_episodes=6)
    items = messages(30)  # 15 episodes, Orbiter's policy fires on count
    assert nested.evaluate(items).triggered
    assert not nested.evaluate(items, new_episodes=5).triggered


def test_composite_reports_the_largest_estimate() -> None:
    policy = AnyOf(
        CountOrTokensTrigger(token_estimate_ratio=4.0),
        TokensAndEpisodesTrigger(token_estimate_ratio=1.0),
    )
    assert policy.evaluate([user("a" * 40)]).estimated_tokens == 40


def test_empty_composites_are_rejected() -> None:
    with pytest.raises(ValueError, match="AnyOf"):
        AnyOf()
    with pytest.raises(ValueError, match="AllOf"):
        AllOf()


def test_check_trigger_matches_the_policy() -> None:
    config = SummaryConfig(message_threshold=5, token_threshold=50)
    policy = CountOrTokensTrigger.from_config(config)
    for count in range(0, 12):
        items = messages(count, chars=30)
        assert check_trigger(items, config) == policy.evaluate(items)


def test_a_count_limit_that_is_no_limit_is_not_shown_as_a_figure() -> None:
    items = [user("hello there")] * 3
    reason = CountOrTokensTrigger(sys.maxsize, 2000).evaluate(items).reason
    assert reason == "below thresholds: estimated tokens 9 <= 2000"
    assert str(sys.maxsize) not in reason
