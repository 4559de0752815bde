"""The longtalk-shaped Orbiter summary templates: configuration, prompts and generate_summary."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from longtalk.compat.templates import (
    DEFAULT_TEMPLATE_PROMPTS,
    LLMSummarizer,
    Summarizer,
    SummaryConfig,
    SummaryResult,
    SummaryTemplate,
    generate_summary,
    split_recent,
)
from longtalk.core.messages import Message, assistant, tool_call, tool_result, user
from longtalk.errors import ConfigError, LLMOutputError, LLMTransientError
from longtalk.llm.base import LLM, LLMRequest, LLMResponse
from longtalk.summary.prompts import DEFAULT_COMPRESSION_SYSTEM_PROMPT
from longtalk.summary.triggers import check_trigger


class RecordingSummarizer:
    """Answers each prompt with a scripted text keyed by a word the prompt contains."""

    def __init__(self, answers: dict[str, str] | None = None, default: str = "Summary.") -> None:
        self.answers = answers or {}
        self.default = default
        self.prompts: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0

    async def summarize(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(0)
        self.in_flight -= 1
        for key, answer in self.answers.items():
            if key in prompt:
                return answer
        return self.default


class FailingSummarizer:
    async def summarize(self, prompt: str) -> str:
        raise LLMTransientError("model unavailable")


class EchoLLM:
    """The LLM seam: records the request, answers with a fixed text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return LLMResponse(text=self.text)


def conversation(count: int) -> list[Message]:
    return [user(f"Message {i}") if i % 2 == 0 else assistant(f"Reply {i}") for i in range(count)]


# -- templates and config --------------------------------------------------------------------


def test_templates_are_orbiters() -> None:
    assert [t.value for t in SummaryTemplate] == ["conversation", "facts", "profiles"]
    assert SummaryTemplate("facts") is SummaryTemplate.FACTS


def test_config_defaults_are_orbiters() -> None:
    config = SummaryConfig()
    assert config.message_threshold == 20
    assert config.token_threshold == 4000
    assert config.templates == (SummaryTemplate.CONVERSATION,)
    assert config.prompts == {}
    assert config.keep_recent == 4
    assert config.token_estimate_ratio == 4.0
    assert [f.name for f in dataclasses.fields(SummaryConfig)] == [
        "message_threshold",
        "token_threshold",
        "templates",
        "prompts",
        "keep_recent",
        "token_estimate_ratio",
    ]
    assert not hasattr(config, "__dict__")  # slots
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.keep_recent = 2  # type: ignore[misc]


def test_default_prompts_focus_per_template_and_hold_the_transcript() -> None:
    assert set(DEFAULT_TEMPLATE_PROMPTS) == set(SummaryTemplate)
    assert all("{transcript}" in p for p in DEFAULT_TEMPLATE_PROMPTS.values())
    config = SummaryConfig()
    assert "decisions" in config.get_prompt(SummaryTemplate.CONVERSATION)
    assert "action items" in config.get_prompt("conversation")
    assert "factual" in config.get_prompt(SummaryTemplate.FACTS).lower()
    assert "preferences" in config.get_prompt(SummaryTemplate.PROFILES)


def test_prompt_overrides_fall_back_per_template() -> None:
    custom = "Only facts please:\n{transcript}"
    config = SummaryConfig(prompts={SummaryTemplate.FACTS: custom})
    assert config.get_prompt(SummaryTemplate.FACTS) == custom
    assert (
        config.get_prompt(SummaryTemplate.PROFILES)
        == (DEFAULT_TEMPLATE_PROMPTS[SummaryTemplate.PROFILES])
    )


def test_config_accepts_template_names_as_strings_and_deduplicates() -> None:
    config = SummaryConfig(
        templates=("facts", "conversation", "facts"),  # type: ignore[arg-type]
        prompts={"profiles": "P {transcript}"},  # type: ignore[dict-item]
    )
    assert config.templates == (SummaryTemplate.FACTS, SummaryTemplate.CONVERSATION)
    assert config.get_prompt(SummaryTemplate.PROFILES) == "P {transcript}"


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"message_threshold": -1}, "message_threshold"),
        ({"token_threshold": -5}, "token_threshold"),
        ({"keep_recent": -1}, "keep_recent"),
        ({"token_estimate_ratio": 0}, "token_estimate_ratio"),
        ({"templates": ()}, "templates"),
        ({"templates": ("summary",)}, "templates"),
        ({"prompts": {"bogus": "{transcript}"}}, "prompts.bogus"),
        ({"prompts": {SummaryTemplate.FACTS: "no placeholder"}}, "prompts.facts"),
    ],
)
def test_bad_config_names_the_key(kwargs: dict[str, object], path: str) -> None:
    with pytest.raises(ConfigError) as caught:
        SummaryConfig(**kwargs)  # type: ignore[arg-type]
    assert caught.value.path == path


# -- split_recent ----------------------------------------------------------------------------


def test_split_recent_keeps_the_tail() -> None:
    items = conversation(10)
    older, recent = split_recent(items, 4)
    assert older == items[:6] and recent == items[6:]
    assert split_recent(items, 0) == (items, [])
    assert split_recent(items, 20) == ([], items)


def test_split_recent_never_separates_a_tool_call_from_its_results() -> None:
    items = [
        user("check two things"),
        tool_call("a(); b()", ["a", "b"]),
        tool_result("A", "a"),
        tool_result("B", "b"),
        assistant("both fine"),
    ]
    older, recent = split_recent(items, 2)  # the cut would fall between the results
    assert older == items[:1]
    assert recent == items[1:]


# -- generate_summary ------------------------------------------------------------------------


def test_summarizer_protocol_is_runtime_checkable() -> None:
    assert isinstance(RecordingSummarizer(), Summarizer)
    assert isinstance(LLMSummarizer(EchoLLM("x")), Summarizer)
    assert not isinstance(object(), Summarizer)


async def test_generate_summary_orbiter_example() -> None:
    items = [user(f"Message {i}") for i in range(25)]
    config = SummaryConfig(
        message_threshold=20,
        templates=(SummaryTemplate.CONVERSATION, SummaryTemplate.FACTS),
        keep_recent=4,
    )
    assert check_trigger(items, config).triggered
    summarizer = RecordingSummarizer(
        {"key decisions": "Conversation summary.", "factual statements": "Facts summary."}
    )
    result = await generate_summary(items, config, summarizer)
    assert isinstance(result, SummaryResult)
    assert list(result.summaries) == ["conversation", "facts"]
    assert result.summaries == {
        "conversation": "Conversation summary.",
        "facts": "Facts summary.",
    }
    assert result.compressed_items == items[-4:]
    assert result.original_count == 25
    assert len(summarizer.prompts) == 2
    for prompt in summarizer.prompts:
        assert "User: Message 20" in prompt
        assert "Message 21" not in prompt and "{transcript}" not in prompt


async def test_generate_summary_all_templates_run_concurrently() -> None:
    config = SummaryConfig(templates=tuple(SummaryTemplate), keep_recent=2)
    summarizer = RecordingSummarizer(
        {"key decisions": "C", "factual statements": "F", "preferences": "P"}
    )
    result = await generate_summary(conversation(8), config, summarizer)
    assert result.summaries == {"conversation": "C", "facts": "F", "profiles": "P"}
    assert summarizer.max_in_flight == 3


async def test_generate_summary_cleans_each_answer() -> None:
    summarizer = RecordingSummarizer(
        default="<think>let me see</think>Clean text.<|im_end|><|im_sep|>"
    )
    result = await generate_summary(conversation(10), SummaryConfig(), summarizer)
    assert result.summaries == {"conversation": "Clean text."}


async def test_generate_summary_with_nothing_to_compress_makes_no_call() -> None:
    summarizer = RecordingSummarizer()
    items = conversation(4)
    result = await generate_summary(items, SummaryConfig(keep_recent=4), summarizer)
    assert result.summaries == {}
    assert result.compressed_items == items and result.original_count == 4
    assert summarizer.prompts == []


async def test_generate_summary_keep_recent_zero_compresses_everything() -> None:
    result = await generate_summary(
        conversation(3), SummaryConfig(keep_recent=0), RecordingSummarizer()
    )
    assert result.compressed_items == [] and result.summaries == {"conversation": "Summary."}


async def test_generate_summary_is_brace_safe() -> None:
    items = [
        user('Parse {"a": {transcript}} and {0} {name!r} }{'),
        assistant("Done: {existing_summary} {{x}}"),
        user("recent"),
    ]
    config = SummaryConfig(
        keep_recent=1,
        prompts={SummaryTemplate.CONVERSATION: 'JSON like {"k": 1}, then:\n{transcript}\n}'},
    )
    summarizer = RecordingSummarizer()
    await generate_summary(items, config, summarizer)
    assert summarizer.prompts == [
        'JSON like {"k": 1}, then:\n'
        'User: Parse {"a": {transcript}} and {0} {name!r} }{\n'
        "Assistant: Done: {existing_summary} {{x}}\n}"
    ]


async def test_generate_summary_keeps_tool_pairs_in_the_recent_items() -> None:
    items = [
        *conversation(6),
        tool_call("lookup()", ["t"]),
        tool_result("found", "t"),
        assistant("answer"),
    ]
    summarizer = RecordingSummarizer()
    result = await generate_summary(items, SummaryConfig(keep_recent=2), summarizer)
    assert result.compressed_items == items[-3:]
    assert "lookup()" not in summarizer.prompts[0]


async def test_generate_summary_failures_propagate_and_empty_answers_are_errors() -> None:
    with pytest.raises(LLMTransientError):
        await generate_summary(conversation(10), SummaryConfig(), FailingSummarizer())
    with pytest.raises(LLMOutputError, match="facts"):
        await generate_summary(
            conversation(10),
            SummaryConfig(templates=(SummaryTemplate.FACTS,)),
            RecordingSummarizer(default="<think>nothing</think>"),
        )


async def test_llm_summarizer_sends_one_chat_request() -> None:
    llm = EchoLLM("The summary.")
    assert isinstance(llm, LLM)
    summarizer = LLMSummarizer(llm, max_tokens=300)
    result = await generate_summary(conversation(10), SummaryConfig(keep_recent=2), summarizer)
    assert result.summaries == {"conversation": "The summary."}
    (request,) = llm.requests
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].content == DEFAULT_COMPRESSION_SYSTEM_PROMPT
    assert "User: Message 0" in request.messages[1].content
    assert request.max_tokens == 300
    no_system = LLMSummarizer(llm, system=None)
    await no_system.summarize("p")
    assert [m.role for m in llm.requests[-1].messages] == ["user"]
