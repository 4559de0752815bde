"""Conformance of ``longtalk.compat.orchid`` with Orchid's truncation, types and history helpers.

Behaviour as Orchid documents it: the four truncation strategies (and their fallbacks), the
structured summary dataclasses and prompt constants, and ``OrchidAgent``'s history
extraction and compression. The chat model is a scripted object speaking Orchid's seam
(``await model.ainvoke(messages, **kwargs)`` answering something with ``.content``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from longtalk.compat.orchid import (
    DEFAULT_NARRATIVE_FALLBACK_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT,
    SUMMARY_JSON_SCHEMA,
    SUPERVISOR_PIPELINE,
    OrchidAgent,
    OrchidConversationSummary,
    OrchidSummaryEntity,
    OrchidTruncationStrategy,
    agent_pipeline,
    filter_summary_messages,
    truncate_content,
    truncate_content_async,
)

MARKER = "…[truncated]…"
SUMMARY_LABEL = "[Conversation summary]\n"


@dataclass
class Answer:
    content: str


@dataclass
class ScriptedChatModel:
    """Answers each ``ainvoke`` with the next scripted reply (an exception is raised)."""

    replies: list[str | BaseException]
    calls: list[tuple[list[dict[str, str]], dict[str, Any]]] = field(default_factory=list)

    async def ainvoke(self, messages: list[dict[str, str]], **kwargs: Any) -> Answer:
        self.calls.append((list(messages), kwargs))
        assert self.replies, "the chat model was called more often than scripted"
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return Answer(reply)

    def prompt(self, call: int = -1) -> str:
        """Everything sent in one call, as one text."""
        return "\n".join(m["content"] for m in self.calls[call][0])


# --- truncation -------------------------------------------------------------------------------

ALPHABET = "".join(chr(ord("a") + i % 26) for i in range(300))


@pytest.mark.parametrize("strategy", list(OrchidTruncationStrategy))
@pytest.mark.parametrize("length", [0, 1, 99, 100])
def test_content_within_the_limit_is_returned_unchanged(
    strategy: OrchidTruncationStrategy, length: int
) -> None:
    content = ALPHABET[:length]
    assert truncate_content(content, 100, strategy) == content


@pytest.mark.parametrize("max_chars", [5, 20, 100, 299])
def test_hard_cuts_the_head_and_ends_with_an_ellipsis(max_chars: int) -> None:
    result = truncate_content(ALPHABET, max_chars, OrchidTruncationStrategy.HARD)
    assert result.endswith("…") and MARKER not in result
    assert len(result) == max_chars
    assert ALPHABET.startswith(result[:-1])


def test_hard_is_the_default_strategy() -> None:
    assert truncate_content(ALPHABET, 30) == truncate_content(
        ALPHABET, 30, OrchidTruncationStrategy.HARD
    )


@pytest.mark.parametrize(("max_chars", "kept"), [(70, 28), (100, 40), (101, 40), (250, 100)])
def test_middle_keeps_forty_percent_at_each_end(max_chars: int, kept: int) -> None:
    result = truncate_content(ALPHABET, max_chars, OrchidTruncationStrategy.MIDDLE)
    head, tail = result.split(MARKER)
    assert (head, tail) == (ALPHABET[:kept], ALPHABET[-kept:])
    assert len(result) <= max_chars


def test_middle_with_no_room_for_the_marker_cuts_hard() -> None:
    result = truncate_content(ALPHABET, 12, OrchidTruncationStrategy.MIDDLE)
    assert result == truncate_content(ALPHABET, 12, OrchidTruncationStrategy.HARD)


@pytest.mark.parametrize("strategy", ["llm", "semantic", OrchidTruncationStrategy.SEMANTIC])
def test_llm_and_semantic_are_middle_when_synchronous(
    strategy: str | OrchidTruncationStrategy,
) -> None:
    expected = truncate_content(ALPHABET, 100, OrchidTruncationStrategy.MIDDLE)
    assert truncate_content(ALPHABET, 100, OrchidTruncationStrategy(strategy)) == expected


def test_strategy_values_are_their_lowercase_names() -> None:
    assert [s.value for s in OrchidTruncationStrategy] == ["hard", "middle", "llm", "semantic"]
    assert OrchidTruncationStrategy("middle") is OrchidTruncationStrategy.MIDDLE
    assert OrchidTruncationStrategy.HARD == "hard"  # type: ignore[comparison-overlap]


@pytest.mark.parametrize("strategy", ["hard", "middle", "semantic"])
async def test_async_variant_agrees_with_the_synchronous_one(strategy: str) -> None:
    chosen = OrchidTruncationStrategy(strategy)
    model = ScriptedChatModel([])  # must not be asked outside the llm strategy
    result = await truncate_content_async(ALPHABET, 80, chosen, chat_model=model)
    assert result == truncate_content(ALPHABET, 80, chosen)
    assert model.calls == []


async def test_llm_strategy_uses_the_models_short_version() -> None:
    model = ScriptedChatModel(["alphabet, repeated"])
    result = await truncate_content_async(
        ALPHABET, 80, OrchidTruncationStrategy.LLM, chat_model=model
    )
    assert result == "alphabet, repeated"
    assert ALPHABET in model.prompt()
    assert "80" in model.prompt()


async def test_llm_strategy_cuts_an_answer_that_is_still_too_long() -> None:
    model = ScriptedChatModel(["z" * 500])
    result = await truncate_content_async(
        ALPHABET, 40, OrchidTruncationStrategy.LLM, chat_model=model
    )
    assert len(result) == 40 and result.endswith("…") and result.startswith("zzz")


@pytest.mark.parametrize(
    "failure", [ConnectionError("reset"), TimeoutError(), RuntimeError("boom"), KeyError("x")]
)
async def test_llm_strategy_falls_back_to_middle_when_the_model_fails(
    failure: BaseException,
) -> None:
    model = ScriptedChatModel([failure])
    result = await truncate_content_async(
        ALPHABET, 100, OrchidTruncationStrategy.LLM, chat_model=model
    )
    assert result == ALPHABET[:40] + MARKER + ALPHABET[-40:]
    assert len(model.calls) == 1


async def test_llm_strategy_falls_back_to_middle_on_an_empty_answer_or_no_model() -> None:
    middle = truncate_content(ALPHABET, 100, OrchidTruncationStrategy.MIDDLE)
    empty = ScriptedChatModel(["   "])
    assert await truncate_content_async(ALPHABET, 100, "llm", chat_model=empty) == middle  # type: ignore[arg-type]
    assert await truncate_content_async(ALPHABET, 100, OrchidTruncationStrategy.LLM) == middle


async def test_async_under_the_limit_never_calls_the_model() -> None:
    model = ScriptedChatModel([])
    short = "fits"
    assert await truncate_content_async(short, 10, OrchidTruncationStrategy.LLM, model) == short
    assert model.calls == []


# --- summary types ----------------------------------------------------------------------------


def full_summary() -> OrchidConversationSummary:
    return OrchidConversationSummary(
        topics=["weather", "travel"],
        entities=[OrchidSummaryEntity("John", "person", "user")],
        actions_taken=["looked up forecast"],
        decisions=["postpone trip"],
        open_questions=["what about hotel?"],
        user_preferences=["prefers warm climate"],
        narrative="User asked about weather and travel.",
        covered_turns=5,
    )


def test_summary_defaults_are_empty_and_lists_are_independent() -> None:
    first, second = OrchidConversationSummary(), OrchidConversationSummary()
    assert first.to_dict() == {
        "topics": [],
        "entities": [],
        "actions_taken": [],
        "decisions": [],
        "open_questions": [],
        "user_preferences": [],
        "narrative": "",
        "covered_turns": 0,
    }
    first.topics.append("mutable")
    assert second.topics == []
    assert isinstance(first.topics, list)


def test_entity_defaults() -> None:
    entity = OrchidSummaryEntity("Acme")
    assert (entity.name, entity.type, entity.details) == ("Acme", "other", "")


def test_context_string_renders_every_section_with_the_narrative_last() -> None:
    text = full_summary().to_context_string()
    assert text.splitlines() == [
        "Topics: weather, travel",
        "Entities:",
        "  - John (person): user",
        "Actions taken: looked up forecast",
        "Decisions: postpone trip",
        "Open questions: what about hotel?",
        "User preferences: prefers warm climate",
        "Summary: User asked about weather and travel.",
    ]


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        (OrchidConversationSummary(), ""),
        (OrchidConversationSummary(narrative="Only prose."), "Summary: Only prose."),
        (OrchidConversationSummary(decisions=["a", "b"]), "Decisions: a; b"),
        (
            OrchidConversationSummary(topics=["x"], narrative="N"),
            "Topics: x\nSummary: N",
        ),
    ],
)
def test_context_string_leaves_out_empty_sections(
    summary: OrchidConversationSummary, expected: str
) -> None:
    assert summary.to_context_string() == expected


def test_json_round_trip_keeps_every_field() -> None:
    original = full_summary()
    restored = OrchidConversationSummary.from_json(json.dumps(original.to_dict()))
    assert restored == original
    assert restored is not None and isinstance(restored.entities[0], OrchidSummaryEntity)


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '"a string"', "42", "null"])
def test_from_json_returns_none_for_anything_but_a_json_object(text: str) -> None:
    assert OrchidConversationSummary.from_json(text) is None


def test_from_json_fills_missing_fields_with_defaults() -> None:
    parsed = OrchidConversationSummary.from_json('{"narrative": "short"}')
    assert parsed == OrchidConversationSummary(narrative="short")


def test_plain_text_becomes_a_narrative_only_summary() -> None:
    parsed = OrchidConversationSummary.from_string_or_json("  They talked about rain.  ")
    assert parsed == OrchidConversationSummary(narrative="They talked about rain.")
    assert OrchidConversationSummary.from_string_or_json('{"topics": ["t"]}').topics == ["t"]


def test_merge_deduplicates_lists_and_accumulates_turns() -> None:
    merged = OrchidConversationSummary.merge(
        full_summary(),
        {
            "topics": ["travel", "hotels"],
            "decisions": ["postpone trip", "book Lisbon"],
            "narrative": "Now about hotels.",
            "covered_turns": 3,
        },
    )
    assert merged.topics == ["weather", "travel", "hotels"]
    assert merged.decisions == ["postpone trip", "book Lisbon"]
    assert merged.actions_taken == ["looked up forecast"]
    assert merged.narrative == "Now about hotels."
    assert merged.covered_turns == 8


def test_merge_keeps_the_narrative_and_counts_one_turn_when_not_given() -> None:
    merged = OrchidConversationSummary.merge(full_summary(), {"topics": ["new"]})
    assert merged.narrative == full_summary().narrative
    assert merged.covered_turns == 6


def test_entities_are_merged_case_insensitively_across_turns() -> None:
    existing = full_summary()
    turn_two = {"entities": [{"name": "john", "type": "person", "details": "lives in Porto"}]}
    turn_three = {
        "entities": [
            {"name": "JOHN", "details": "lives in Porto"},  # nothing new: no repeat
            {"name": "Porto", "type": "place", "details": "city"},
        ]
    }
    merged = OrchidConversationSummary.merge(
        OrchidConversationSummary.merge(existing, turn_two), turn_three
    )
    assert [(e.name, e.type, e.details) for e in merged.entities] == [
        ("John", "person", "user; lives in Porto"),
        ("Porto", "place", "city"),
    ]
    assert existing.entities[0].details == "user"  # the input is not modified


def test_summaries_convert_to_and_from_the_native_model() -> None:
    native = full_summary().to_native()
    assert native.topics == ("weather", "travel")
    assert native.entities[0].name == "John"
    assert OrchidConversationSummary.from_native(native) == full_summary()


@pytest.mark.parametrize(
    ("prompt", "placeholders"),
    [
        (DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT, {"{transcript}"}),
        (DEFAULT_NARRATIVE_FALLBACK_PROMPT, {"{transcript}"}),
        (DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT, {"{existing_summary}", "{new_messages}"}),
    ],
)
def test_user_prompts_carry_their_placeholders(prompt: str, placeholders: set[str]) -> None:
    for placeholder in placeholders:
        assert prompt.count(placeholder) == 1
    for other in {"{transcript}", "{existing_summary}", "{new_messages}"} - placeholders:
        assert other not in prompt


def test_system_prompts_embed_the_json_schema() -> None:
    schema = json.loads(SUMMARY_JSON_SCHEMA)
    assert set(schema) == set(OrchidConversationSummary().to_dict())
    for prompt in (
        DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT,
        DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT,
    ):
        assert SUMMARY_JSON_SCHEMA in prompt
        assert "JSON" in prompt
    assert "existing summary" in DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT


# --- history extraction -----------------------------------------------------------------------


def state(*messages: Any) -> dict[str, Any]:
    return {"messages": list(messages)}


def test_extract_user_query_is_the_last_human_message() -> None:
    graph = state(HumanMessage("first"), AIMessage("reply"), HumanMessage("second"), AIMessage("x"))
    assert OrchidAgent.extract_user_query(graph) == "second"
    assert OrchidAgent.extract_user_query(state(AIMessage("only ai"))) == ""
    assert OrchidAgent.extract_user_query({}) == ""


def test_history_excludes_the_unanswered_query_and_routing_noise() -> None:
    graph = state(
        SystemMessage("system prompt"),
        HumanMessage("Plan a trip"),
        AIMessage("[Supervisor] routing to planner"),
        AIMessage("Day 1: Alfama"),
        ToolMessage("tool output", tool_call_id="t1"),
        HumanMessage("And day 2?"),
    )
    assert OrchidAgent.extract_conversation_history(graph) == [
        {"role": "user", "content": "Plan a trip"},
        {"role": "assistant", "content": "Day 1: Alfama"},
    ]


def test_an_answered_last_question_is_history() -> None:
    graph = state(HumanMessage("question"), AIMessage("answer"))
    assert [m["content"] for m in OrchidAgent.extract_conversation_history(graph)] == [
        "question",
        "answer",
    ]


@pytest.mark.parametrize(
    ("skip", "strip", "expected"),
    [
        (("[Supervisor",), (), ["hi", "[Planner]\nplan", "[Critic] fine"]),
        (("[Supervisor", "[Critic]"), ("[Planner]\n",), ["hi", "plan"]),
        ((), ("[Planner]\n", "[Critic] "), ["hi", "[Supervisor] go", "plan", "fine"]),
    ],
)
def test_skip_and_strip_prefixes(
    skip: tuple[str, ...], strip: tuple[str, ...], expected: list[str]
) -> None:
    graph = state(
        HumanMessage("hi"),
        AIMessage("[Supervisor] go"),
        AIMessage("[Planner]\nplan"),
        AIMessage("[Critic] fine"),
        HumanMessage("pending"),
    )
    history = OrchidAgent.extract_conversation_history(
        graph, skip_prefixes=skip, strip_prefixes=strip
    )
    assert [m["content"] for m in history] == expected


def test_strip_prefixes_touch_only_assistant_messages() -> None:
    graph = state(HumanMessage("[Planner]\nuser text"), AIMessage("[Planner]\nreply"))
    history = OrchidAgent.extract_conversation_history(graph, strip_prefixes=("[Planner]\n",))
    assert history == [
        {"role": "user", "content": "[Planner]\nuser text"},
        {"role": "assistant", "content": "reply"},
    ]


@pytest.mark.parametrize(("max_turns", "kept"), [(1, 2), (2, 4), (3, 6), (10, 6), (0, 0)])
def test_max_turns_caps_to_the_most_recent_pairs(max_turns: int, kept: int) -> None:
    messages = [m for i in range(3) for m in (HumanMessage(f"q{i}"), AIMessage(f"a{i}"))] + [
        HumanMessage("now")
    ]
    history = OrchidAgent.extract_conversation_history(state(*messages), max_turns=max_turns)
    contents = ["q0", "a0", "q1", "a1", "q2", "a2"]
    assert [m["content"] for m in history] == contents[len(contents) - kept :]


@pytest.mark.parametrize(("strategy", "check"), [("hard", "…"), ("middle", MARKER)])
def test_long_messages_are_truncated_with_the_chosen_strategy(strategy: str, check: str) -> None:
    long = "x" * 40 + "y" * 200 + "z" * 40
    graph = state(HumanMessage(long), AIMessage("short"), HumanMessage("now"))
    history = OrchidAgent.extract_conversation_history(
        graph, max_chars=100, truncation_strategy=strategy
    )
    assert history[0]["content"] == truncate_content(long, 100, OrchidTruncationStrategy(strategy))
    assert check in history[0]["content"]
    assert history[1]["content"] == "short"


def test_blank_messages_are_left_out() -> None:
    graph = state(HumanMessage("q"), AIMessage("   "), AIMessage("a"), HumanMessage("now"))
    assert [m["content"] for m in OrchidAgent.extract_conversation_history(graph)] == ["q", "a"]


def test_a_pipeline_replaces_the_legacy_parameters() -> None:
    graph = state(
        HumanMessage("hello"),
        AIMessage("[Agent]\nanswer"),
        AIMessage("[Supervisor] noise"),
        HumanMessage("current"),
    )
    via_agent = OrchidAgent.extract_conversation_history(
        graph, pipeline=agent_pipeline(("[Agent]\n",)), strip_prefixes=("ignored",)
    )
    assert via_agent == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "answer"},
    ]
    via_supervisor = OrchidAgent.extract_conversation_history(
        graph, pipeline=SUPERVISOR_PIPELINE, max_turns=0
    )
    assert [m["content"] for m in via_supervisor] == ["hello", "[Agent]\nanswer"]


# --- history compression ----------------------------------------------------------------------


def exchanges(count: int) -> list[dict[str, str]]:
    return [
        m
        for i in range(count)
        for m in (
            {"role": "user", "content": f"question-{i}"},
            {"role": "assistant", "content": f"answer-{i}"},
        )
    ]


@pytest.mark.parametrize(("turns", "recent"), [(0, 3), (2, 3), (3, 3), (1, 1)])
async def test_history_within_the_window_is_returned_without_a_call(
    turns: int, recent: int
) -> None:
    model = ScriptedChatModel([])
    history = exchanges(turns)
    result = await OrchidAgent.compress_conversation_history(
        history, chat_model=model, recent_turns=recent
    )
    assert result == history
    assert model.calls == []


@pytest.mark.parametrize(("turns", "recent"), [(4, 1), (5, 2), (6, 3)])
async def test_older_messages_become_one_summary_message_before_the_recent_ones(
    turns: int, recent: int
) -> None:
    model = ScriptedChatModel(["They went through the questions."])
    history = exchanges(turns)
    result = await OrchidAgent.compress_conversation_history(
        history, chat_model=model, recent_turns=recent
    )
    cut = len(history) - 2 * recent
    assert result == [
        {"role": "assistant", "content": SUMMARY_LABEL + "They went through the questions."},
        *history[cut:],
    ]
    sent = model.prompt()
    assert all(m["content"] in sent for m in history[:cut])
    assert all(m["content"] not in sent for m in history[cut:])
    assert model.calls[0][1]["temperature"] == 0.0


async def test_the_transcript_names_speakers() -> None:
    model = ScriptedChatModel(["s"])
    await OrchidAgent.compress_conversation_history(exchanges(2), chat_model=model, recent_turns=1)
    assert "User: question-0\nAssistant: answer-0" in model.prompt()


async def test_a_running_summary_is_extended_with_only_the_older_messages() -> None:
    model = ScriptedChatModel(["Extended summary."])
    result = await OrchidAgent.compress_conversation_history(
        exchanges(3), chat_model=model, recent_turns=1, running_summary="EARLIER-SUMMARY"
    )
    assert result[0]["content"] == SUMMARY_LABEL + "Extended summary."
    sent = model.prompt()
    assert "EARLIER-SUMMARY" in sent and "existing summary" in sent.lower()
    assert "question-1" in sent and "question-2" not in sent


@pytest.mark.parametrize(
    "failure", [ConnectionError("down"), TimeoutError(), ValueError("bad"), LookupError("odd")]
)
async def test_a_failing_model_leaves_only_the_recent_turns(failure: BaseException) -> None:
    history = exchanges(5)
    result = await OrchidAgent.compress_conversation_history(
        history, chat_model=ScriptedChatModel([failure]), recent_turns=2
    )
    assert result == history[-4:]


async def test_an_empty_answer_counts_as_a_failure() -> None:
    history = exchanges(4)
    result = await OrchidAgent.compress_conversation_history(
        history, chat_model=ScriptedChatModel([""]), recent_turns=1
    )
    assert result == history[-2:]


async def test_structured_compression_renders_the_context_string() -> None:
    answer = {
        "topics": ["exams"],
        "entities": [{"name": "Kim", "type": "person"}],
        "narrative": "N.",
    }
    model = ScriptedChatModel([json.dumps(answer)])
    result = await OrchidAgent.compress_conversation_history(
        exchanges(3), chat_model=model, recent_turns=1, structured_output=True
    )
    assert (
        result[0]["content"]
        == SUMMARY_LABEL + "Topics: exams\nEntities:\n  - Kim (person): \nSummary: N."
    )
    assert SUMMARY_JSON_SCHEMA in model.prompt()


async def test_structured_compression_with_a_non_json_answer_is_narrative_only() -> None:
    model = ScriptedChatModel(["They discussed exams with Kim."])
    result = await OrchidAgent.compress_conversation_history(
        exchanges(3), chat_model=model, recent_turns=1, structured_output=True
    )
    assert result[0]["content"] == SUMMARY_LABEL + "Summary: They discussed exams with Kim."
    assert result[1:] == exchanges(3)[-2:]


async def test_custom_prompts_are_used_with_their_placeholders_filled() -> None:
    fresh = ScriptedChatModel(["f"])
    await OrchidAgent.compress_conversation_history(
        exchanges(2),
        chat_model=fresh,
        recent_turns=1,
        compression_system_prompt="SYS-OVERRIDE",
        compression_user_prompt="Summarise: {transcript}",
    )
    (system, user_message) = fresh.calls[0][0]
    assert system == {"role": "system", "content": "SYS-OVERRIDE"}
    assert user_message["content"] == "Summarise: User: question-0\nAssistant: answer-0"
    extending = ScriptedChatModel(["e"])
    await OrchidAgent.compress_conversation_history(
        exchanges(2),
        chat_model=extending,
        recent_turns=1,
        running_summary="OLD",
        extension_user_prompt="Extend: {existing_summary} with {new_messages}",
    )
    assert extending.calls[0][0][-1]["content"] == (
        "Extend: OLD with User: question-0\nAssistant: answer-0"
    )


# --- history extraction: where the shim fixes Orchid -------------------------------------------


def test_a_skip_prefix_never_drops_a_user_message() -> None:
    graph = state(
        HumanMessage("[Supervisor] is a word I use for my boss"),
        AIMessage("[Supervisor] routing to planner"),
        AIMessage("Noted."),
        HumanMessage("now"),
    )
    assert OrchidAgent.extract_conversation_history(graph) == [
        {"role": "user", "content": "[Supervisor] is a word I use for my boss"},
        {"role": "assistant", "content": "Noted."},
    ]


def test_a_user_message_with_a_skip_prefix_can_still_be_the_current_query() -> None:
    graph = state(HumanMessage("q"), AIMessage("a"), HumanMessage("[Supervisor] who?"))
    assert [m["content"] for m in OrchidAgent.extract_conversation_history(graph)] == ["q", "a"]


@pytest.mark.parametrize(
    ("label", "content"),
    [
        ("[Planner]", "[Planner] Day 1: Alfama"),
        ("[Planner]\n", "[Planner]\n  Day 1: Alfama"),
        ("[Planner] ", "[Planner] \n Day 1: Alfama"),
    ],
)
def test_the_text_after_a_stripped_label_has_no_leading_space(label: str, content: str) -> None:
    graph = state(HumanMessage("q"), AIMessage(content), HumanMessage("now"))
    history = OrchidAgent.extract_conversation_history(graph, strip_prefixes=(label,))
    assert history[1] == {"role": "assistant", "content": "Day 1: Alfama"}


# --- the agent base class -----------------------------------------------------------------------


class Planner(OrchidAgent):
    """A deployment's agent, written against Orchid's base class."""

    @property
    def name(self) -> str:
        return "planner"

    @property
    def description(self) -> str:
        return "Plans trips."

    async def run(self, state: dict[str, Any]) -> dict[str, Any]:
        history = self.extract_conversation_history(state, strip_prefixes=("[Planner]\n",))
        history = await self.compress_conversation_history(
            history, chat_model=self._chat_model, recent_turns=1
        )
        answer = await self.summarise(
            self.extract_user_query(state),
            {"weather": "sunny"},
            [],
            system_prompt="You plan trips.",
            conversation_history=history,
        )
        return {"messages": [AIMessage(f"[Planner]\n{answer}")]}


def test_the_base_class_needs_a_name_a_description_and_run() -> None:
    class Nameless(OrchidAgent):
        async def run(self, state: dict[str, Any]) -> dict[str, Any]:
            return {}

    with pytest.raises(TypeError, match="abstract"):
        Nameless()  # type: ignore[abstract]


def test_the_constructor_takes_orchids_keywords_and_absorbs_the_builders_extras() -> None:
    reader = object()
    agent = Planner(
        reader=reader, chat_model=None, model_id="m", config={"x": 1}, summary_config={}
    )
    assert (agent.reader, agent.model_id, agent.mcp_clients, agent.rag_namespace) == (
        reader,
        "m",
        [],
        "",
    )


async def test_an_agent_answers_with_its_compressed_history() -> None:
    model = ScriptedChatModel(["They planned day 1.", "Day 3: Belém."])
    graph = state(
        HumanMessage("Plan Lisbon"),
        AIMessage("[Planner]\nDay 1: Alfama"),
        HumanMessage("And day 2?"),
        AIMessage("[Planner]\nDay 2: Sintra"),
        HumanMessage("And day 3?"),
    )
    result = await Planner(chat_model=model).run(graph)
    assert result["messages"][0].content == "[Planner]\nDay 3: Belém."
    sent = model.calls[1][0]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith("You plan trips.")
    assert "LATEST message" in sent[0]["content"]  # the reminder, since there is history
    assert sent[1] == {"role": "assistant", "content": SUMMARY_LABEL + "They planned day 1."}
    assert sent[2:4] == [
        {"role": "user", "content": "And day 2?"},
        {"role": "assistant", "content": "Day 2: Sintra"},
    ]
    assert sent[-1]["content"].startswith("User query: And day 3?\n\nLive data (from API):")
    assert '"weather": "sunny"' in sent[-1]["content"]


async def test_summarise_without_history_sends_no_reminder_and_needs_a_chat_model() -> None:
    model = ScriptedChatModel(["ok"])
    rag = [{"content": "Lisbon has trams."}]
    answer = await Planner(chat_model=model).summarise("q", {}, rag, system_prompt="SYS")
    assert answer == "ok"
    system, user_message = model.calls[0][0]
    assert system == {"role": "system", "content": "SYS"}
    assert user_message["content"].startswith("User query: q\n\nBackground knowledge (from RAG):")
    assert model.calls[0][1]["temperature"] == 0.2
    with pytest.raises(RuntimeError, match="no chat model"):
        await Planner().summarise("q", {}, [], system_prompt="SYS")


def test_summary_messages_are_filtered_before_they_are_fed_back() -> None:
    history = [
        {"role": "assistant", "content": SUMMARY_LABEL + "Earlier."},
        {"role": "user", "content": "q"},
    ]
    assert filter_summary_messages(history) == [{"role": "user", "content": "q"}]
