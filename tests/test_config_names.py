"""Summary settings named for what they do: the row size, the shown cap, triggers by policy."""

from pathlib import Path

import pytest

from longtalk.config import FormerKeyWarning, MemoryConfig, load_settings, parse_settings
from longtalk.errors import ConfigError
from longtalk.summary.planner import trigger_policy
from longtalk.summary.triggers import CountOrTokensTrigger, TokensAndEpisodesTrigger


def test_the_row_size_and_the_shown_cap_are_two_named_keys() -> None:
    config = MemoryConfig()
    assert (config.summary_row_max_tokens, config.summary_max_tokens) == (300, 1600)


def test_the_former_row_size_key_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text("supervisor:\n  memory:\n    max_summary_tokens: 800\n")
    with pytest.warns(FormerKeyWarning, match="max_summary_tokens is now summary_row_max_tokens"):
        memory = load_settings(path).memory
    assert memory.summary_row_max_tokens == 800
    assert memory.summary_max_tokens == 1600  # the shown cap is another setting


def test_the_former_and_the_new_row_size_key_together_are_refused() -> None:
    data = {"supervisor": {"memory": {"max_summary_tokens": 800, "summary_row_max_tokens": 400}}}
    with pytest.raises(ConfigError, match="set only summary_row_max_tokens") as caught:
        parse_settings(data)
    assert caught.value.path == "supervisor.memory"


def test_trigger_thresholds_are_grouped_by_policy(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "supervisor:\n"
        "  memory:\n"
        "    summary_trigger: tokens_and_episodes\n"
        "    summary_triggers:\n"
        "      tokens_and_episodes: {tokens: 150, episodes: 3}\n"
    )
    memory = load_settings(path).memory
    policy = trigger_policy(memory)
    assert isinstance(policy, TokensAndEpisodesTrigger)
    assert (policy.token_threshold, policy.min_new_episodes) == (150, 3)
    assert memory.summary_triggers.count_or_tokens.messages == 20  # the others keep defaults


def test_the_flat_trigger_keys_still_set_their_policy() -> None:
    memory = MemoryConfig.model_validate(
        {
            "summary_trigger": "count_or_tokens",
            "message_threshold": 7,
            "token_threshold": 900,
            "summary_trigger_tokens": 60,
            "summary_threshold_tokens": 100,
            "summary_min_episodes": 2,
        }
    )
    triggers = memory.summary_triggers
    assert (triggers.count_or_tokens.messages, triggers.count_or_tokens.tokens) == (7, 900)
    assert triggers.pending_tokens.tokens == 60
    assert (triggers.tokens_and_episodes.tokens, triggers.tokens_and_episodes.episodes) == (100, 2)
    policy = trigger_policy(memory)
    assert isinstance(policy, CountOrTokensTrigger)
    assert (policy.message_threshold, policy.token_threshold) == (7, 900)


def test_a_flat_key_overrides_its_nested_value_and_keeps_the_rest() -> None:
    dumped = MemoryConfig(summary_triggers={"count_or_tokens": {"messages": 9}}).model_dump()
    memory = MemoryConfig.model_validate({**dumped, "token_threshold": 500})
    assert memory.summary_triggers.count_or_tokens.messages == 9
    assert memory.summary_triggers.count_or_tokens.tokens == 500


def test_the_flat_keys_come_from_the_environment_too() -> None:
    memory = load_settings(
        environ={"LONGTALK_SUPERVISOR__MEMORY__SUMMARY_MIN_EPISODES": "4"}
    ).memory
    assert memory.summary_triggers.tokens_and_episodes.episodes == 4


@pytest.mark.parametrize(
    ("memory", "field"),
    [
        ({"summary_min_episodes": 0}, "tokens_and_episodes.episodes"),
        ({"summary_triggers": {"pending_tokens": {"tokens": 0}}}, "pending_tokens.tokens"),
        ({"summary_triggers": {"count_or_tokens": {"count": 3}}}, "count_or_tokens.count"),
        ({"summary_row_max_tokens": 10}, "summary_row_max_tokens"),
    ],
)
def test_bad_trigger_values_name_the_policy_key(memory: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings({"supervisor": {"memory": memory}})
    assert caught.value.path is not None
    assert caught.value.path.endswith(field)
