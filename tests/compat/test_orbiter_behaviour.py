"""Conformance of ``longtalk.compat.orbiter`` with Orbiter's summary module.

Behaviour as Orbiter documents it: templates and their default prompts, the configuration's
defaults, the count-or-tokens trigger and its wording, and template summaries of all but the
most recent items, built from a ``[HUMAN]:`` / ``[AI]:`` / ``[SYSTEM]:`` transcript.
"""

from __future__ import annotations

import dataclasses

import pytest

from longtalk.compat.orbiter import (
    AIMemory,
    HumanMemory,
    MemoryItem,
    Summarizer,
    SummaryConfig,
    SummaryResult,
    SummaryTemplate,
    SystemMemory,
    TriggerResult,
    check_trigger,
    generate_summary,
)


class RecordingSummarizer:
    """Orbiter's ``Summarizer`` protocol: answers by template keyword, records each prompt."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def summarize(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return f"summary #{len(self.prompts)}"


def dialogue(count: int) -> list[MemoryItem]:
    """Alternating human/AI items numbered from 0."""
    return [
        HumanMemory(content=f"q{i}") if i % 2 == 0 else AIMemory(content=f"a{i}")
        for i in range(count)
    ]


# --- templates and configuration -----------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "value"),
    [
        (SummaryTemplate.CONVERSATION, "conversation"),
        (SummaryTemplate.FACTS, "facts"),
        (SummaryTemplate.PROFILES, "profiles"),
    ],
)
def test_each_template_is_a_string_with_its_lowercase_name(
    member: SummaryTemplate, value: str
) -> None:
    assert member.value == value
    assert member == value
    assert SummaryTemplate(value) is member


def test_there_are_exactly_three_templates() -> None:
    assert {t.value for t in SummaryTemplate} == {"conversation", "facts", "profiles"}


def test_configuration_defaults() -> None:
    config = SummaryConfig()
    assert (config.message_threshold, config.token_threshold) == (20, 4000)
    assert config.templates == (SummaryTemplate.CONVERSATION,)
    assert config.prompts == {}
    assert config.keep_recent == 4
    assert config.token_estimate_ratio == 4.0


def test_configuration_is_frozen_and_its_prompt_dict_is_not_shared() -> None:
    first, second = SummaryConfig(), SummaryConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.keep_recent = 9  # type: ignore[misc]
    first.prompts[SummaryTemplate.FACTS] = "mine {content}"
    assert second.prompts == {}


@pytest.mark.parametrize(
    ("template", "focus"),
    [
        (SummaryTemplate.CONVERSATION, "decisions"),
        (SummaryTemplate.FACTS, "factual"),
        (SummaryTemplate.PROFILES, "preferences"),
    ],
)
def test_default_prompts_name_their_focus_and_take_the_content(
    template: SummaryTemplate, focus: str
) -> None:
    prompt = SummaryConfig().get_prompt(template)
    assert focus in prompt.lower()
    assert "{content}" in prompt
    assert prompt.format(content="<<TRANSCRIPT>>").endswith("<<TRANSCRIPT>>")


def test_a_custom_prompt_replaces_only_its_own_template() -> None:
    config = SummaryConfig(prompts={SummaryTemplate.FACTS: "List facts: {content}"})
    assert config.get_prompt(SummaryTemplate.FACTS) == "List facts: {content}"
    assert config.get_prompt(SummaryTemplate.PROFILES) == SummaryConfig().get_prompt(
        SummaryTemplate.PROFILES
    )


def test_the_documented_summarizer_satisfies_the_protocol() -> None:
    assert isinstance(RecordingSummarizer(), Summarizer)
    assert not isinstance(object(), Summarizer)


# --- the trigger ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "chars", "message_threshold", "token_threshold", "triggered", "reason"),
    [
        (20, 4, 20, 4000, False, "No threshold exceeded"),
        (21, 4, 20, 4000, True, "Message count 21 exceeds threshold 20"),
        (2, 4000, 20, 1000, False, "No threshold exceeded"),
        (2, 4004, 20, 1000, True, "Estimated tokens 1001 exceeds threshold 1000"),
        (30, 8010, 20, 1000, True, "Message count 30 exceeds threshold 20"),
        (0, 0, 0, 0, False, "No threshold exceeded"),
    ],
)
def test_trigger_table(
    count: int,
    chars: int,
    message_threshold: int,
    token_threshold: int,
    triggered: bool,
    reason: str,
) -> None:
    """Count OR tokens (strictly greater); the count's reason wins when both hold."""
    per_item = chars // count if count else 0
    items = [HumanMemory(content="x" * per_item) for _ in range(count)]
    config = SummaryConfig(message_threshold=message_threshold, token_threshold=token_threshold)
    result = check_trigger(items, config)
    assert result.triggered is triggered
    assert result.reason == reason
    assert result.message_count == count


def test_token_estimate_is_characters_over_the_ratio_rounded_down() -> None:
    items = [HumanMemory(content="abcdefg"), AIMemory(content="hij")]  # 10 characters
    assert check_trigger(items, SummaryConfig()).estimated_tokens == 2
    assert check_trigger(items, SummaryConfig(token_estimate_ratio=3.0)).estimated_tokens == 3
    assert check_trigger(items, SummaryConfig(token_estimate_ratio=1.0)).estimated_tokens == 10


def test_a_lower_ratio_makes_the_same_text_trigger() -> None:
    items = [HumanMemory(content="y" * 100)]
    config = SummaryConfig(token_threshold=30)
    assert not check_trigger(items, config).triggered  # 25 tokens at 4 chars each
    tight = dataclasses.replace(config, token_estimate_ratio=2.0)
    assert check_trigger(items, tight).triggered  # 50 tokens


def test_trigger_result_is_an_immutable_record_of_four_fields() -> None:
    result = check_trigger(dialogue(3), SummaryConfig())
    assert isinstance(result, TriggerResult)
    assert {f.name for f in dataclasses.fields(result)} == {
        "triggered",
        "reason",
        "message_count",
        "estimated_tokens",
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.triggered = True  # type: ignore[misc]


# --- generating summaries ---------------------------------------------------------------------


async def test_older_items_are_summarized_and_the_recent_tail_is_kept() -> None:
    items = dialogue(10)
    summarizer = RecordingSummarizer()
    result = await generate_summary(items, SummaryConfig(keep_recent=3), summarizer)
    assert isinstance(result, SummaryResult)
    assert result.compressed_items == items[7:]
    assert result.original_count == 10
    (prompt,) = summarizer.prompts
    for older in items[:7]:
        assert older.content in prompt
    for recent in items[7:]:
        assert recent.content not in prompt


async def test_transcript_lines_are_tagged_by_item_type_in_order() -> None:
    items: list[MemoryItem] = [
        SystemMemory(content="be terse"),
        HumanMemory(content="hello"),
        AIMemory(content="hi there"),
        HumanMemory(content="recent"),
    ]
    summarizer = RecordingSummarizer()
    config = SummaryConfig(keep_recent=1, prompts={SummaryTemplate.CONVERSATION: "{content}"})
    await generate_summary(items, config, summarizer)
    assert summarizer.prompts == ["[SYSTEM]: be terse\n[HUMAN]: hello\n[AI]: hi there"]


async def test_one_summary_per_template_keyed_by_value_in_configured_order() -> None:
    templates = (SummaryTemplate.PROFILES, SummaryTemplate.CONVERSATION, SummaryTemplate.FACTS)
    prompts = {t: f"<{t.value}>{{content}}" for t in templates}
    summarizer = RecordingSummarizer()
    config = SummaryConfig(templates=templates, prompts=prompts, keep_recent=1)
    result = await generate_summary(dialogue(3), config, summarizer)
    assert [p.split(">")[0] for p in summarizer.prompts] == [
        "<profiles",
        "<conversation",
        "<facts",
    ]
    assert result.summaries == {
        "profiles": "summary #1",
        "conversation": "summary #2",
        "facts": "summary #3",
    }


async def test_the_default_prompt_is_formatted_with_the_transcript() -> None:
    summarizer = RecordingSummarizer()
    await generate_summary(dialogue(6), SummaryConfig(keep_recent=4), summarizer)
    expected = (
        SummaryConfig()
        .get_prompt(SummaryTemplate.CONVERSATION)
        .format(content="[HUMAN]: q0\n[AI]: a1")
    )
    assert summarizer.prompts == [expected]


@pytest.mark.parametrize("count", [1, 3, 4])
async def test_with_no_more_items_than_keep_recent_everything_is_summarized_and_kept(
    count: int,
) -> None:
    items = dialogue(count)
    summarizer = RecordingSummarizer()
    config = SummaryConfig(keep_recent=4, prompts={SummaryTemplate.CONVERSATION: "{content}"})
    result = await generate_summary(items, config, summarizer)
    assert result.compressed_items == items
    assert result.original_count == count
    assert summarizer.prompts == [
        "\n".join(f"[{i.memory_type.upper()}]: {i.content}" for i in items)
    ]
    assert result.summaries == {"conversation": "summary #1"}


async def test_keep_recent_zero_summarizes_everything_and_keeps_nothing() -> None:
    items = dialogue(5)
    summarizer = RecordingSummarizer()
    result = await generate_summary(items, SummaryConfig(keep_recent=0), summarizer)
    assert result.compressed_items == []
    assert all(item.content in summarizer.prompts[0] for item in items)


async def test_no_items_make_no_call_and_an_empty_result() -> None:
    summarizer = RecordingSummarizer()
    result = await generate_summary([], SummaryConfig(), summarizer)
    assert (result.compressed_items, result.original_count, result.summaries) == ([], 0, {})
    assert summarizer.prompts == []


def test_summary_result_defaults_to_no_summaries() -> None:
    result = SummaryResult(compressed_items=[], original_count=7)
    assert result.summaries == {}
    assert SummaryResult(compressed_items=[], original_count=0).summaries is not result.summaries


async def test_documented_scenario_trigger_then_summarize() -> None:
    """Orbiter's example: 25 human messages, two templates, four kept."""
    items = [HumanMemory(content=f"Message {i}") for i in range(25)]
    config = SummaryConfig(
        message_threshold=20,
        templates=(SummaryTemplate.CONVERSATION, SummaryTemplate.FACTS),
        keep_recent=4,
    )
    trigger = check_trigger(items, config)
    assert trigger.triggered and trigger.reason == "Message count 25 exceeds threshold 20"
    summarizer = RecordingSummarizer()
    result = await generate_summary(items, config, summarizer)
    assert list(result.summaries) == ["conversation", "facts"]
    assert [i.content for i in result.compressed_items] == [f"Message {i}" for i in range(21, 25)]
    assert result.original_count == 25
    assert all("[HUMAN]: Message 20" in p and "Message 21" not in p for p in summarizer.prompts)
