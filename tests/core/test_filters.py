"""The message filter pipeline: each filter, the presets, legacy parameters, tool pairing."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from longtalk.core.filters import (
    SUPERVISOR_PIPELINE,
    ExcludeLastUserFilter,
    FilterContext,
    MaxCharsFilter,
    MaxTurnsFilter,
    MessageFilter,
    MessageFilterPipeline,
    SkipPrefixFilter,
    SkipTypeFilter,
    StripPrefixFilter,
    agent_pipeline,
    extract_conversation_history,
    tool_groups,
)
from longtalk.core.messages import (
    Message,
    MessageType,
    Role,
    assistant,
    system,
    tool_call,
    tool_result,
    user,
)
from longtalk.core.truncation import ELLIPSIS, MIDDLE_MARKER, TruncationStrategy
from longtalk.embed.semantic_shortener import SemanticShortener
from longtalk.engine.pipeline import apply_pipeline
from longtalk.errors import LLMTransientError
from longtalk.llm.base import LLMRequest
from longtalk.llm.shortener import LLMShortener
from longtalk.testing import BagOfWordsEmbedder, FunctionLLM


def first_words(request: LLMRequest) -> str:
    """Shortens by answering with the first words of the message it was given."""
    message = request.messages[-1].content.split("Message:\n", 1)[1]
    return "LLM: " + " ".join(message.split()[:3])


def shortening_llm(down: list[bool] | None = None) -> FunctionLLM:
    """An LLM that shortens with :func:`first_words`; it fails while ``down[0]`` is true."""
    state = down if down is not None else [False]

    def answer(request: LLMRequest) -> str:
        if state[0]:
            raise LLMTransientError("down")
        return first_words(request)

    return FunctionLLM(answer)


def contents(messages: Sequence[Message]) -> list[str]:
    return [m.content for m in messages]


def assert_tool_groups_whole(before: Sequence[Message], after: Sequence[Message]) -> None:
    """Every tool call id present after filtering has all its messages present."""

    def members(messages: Sequence[Message]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for message in messages:
            for call_id in message.tool_call_ids:
                counts[call_id] = counts.get(call_id, 0) + 1
        return counts

    original = members(before)
    for call_id, count in members(after).items():
        assert count == original[call_id], f"tool group {call_id} was split"


HISTORY = [
    system("You are helpful."),
    user("What's the weather in Paris?"),
    assistant("[Supervisor] routing to weather-agent"),
    tool_call("get_weather(Paris)", ["w1"]),
    tool_result("Sunny, 24C", "w1"),
    assistant("[WeatherAgent]\nIt is sunny and 24C in Paris."),
    user("And tomorrow?"),
    assistant("[Conversation summary] user asked about Paris weather"),
    tool_call("get_forecast(Paris); get_alerts(Paris)", ["f1", "a1"]),
    tool_result("Rain, 18C", "f1"),
    tool_result("No alerts", "a1"),
    assistant("[WeatherAgent]\nRain tomorrow, 18C."),
    user("Thanks! Book me a table for two."),
]


def test_every_filter_fits_the_seam() -> None:
    filters: list[object] = [
        SkipPrefixFilter(("x",)),
        StripPrefixFilter(("x",)),
        SkipTypeFilter(),
        ExcludeLastUserFilter(),
        MaxTurnsFilter(1),
        MaxCharsFilter(10),
        MessageFilterPipeline(),
    ]
    assert all(isinstance(f, MessageFilter) for f in filters)


def test_tool_groups_link_calls_and_results_by_id() -> None:
    groups = tool_groups(HISTORY)
    assert groups[3] == groups[4]
    assert groups[8] == groups[9] == groups[10]
    assert len({groups[i] for i in (0, 1, 2, 3, 5, 8)}) == 6


# -- single filters --------------------------------------------------------------------


def test_skip_prefix_drops_routing_noise_and_tolerates_leading_space() -> None:
    messages = [user("hi"), assistant("  [Supervisor] route"), assistant("[Supervisorial] x")]
    result = SkipPrefixFilter(("[Supervisor",)).apply(messages)
    assert contents(result) == ["hi"]


def test_skip_prefix_on_a_tool_call_drops_its_results_and_vice_versa() -> None:
    messages = [
        user("q"),
        tool_call("[Supervisor] call", ["c1"]),
        tool_result("result one", "c1"),
        tool_call("plain call", ["c2"]),
        tool_result("[Supervisor] result two", "c2"),
        assistant("done"),
    ]
    result = SkipPrefixFilter(("[Supervisor",)).apply(messages)
    assert contents(result) == ["q", "done"]


def test_strip_prefix_removes_only_the_first_matching_prefix() -> None:
    messages = [assistant("[A]\n[B]\nhello"), assistant("[B]\nbye"), user("[A]\n")]
    result = StripPrefixFilter(("[A]\n", "[B]\n")).apply(messages)
    assert contents(result) == ["[B]\nhello", "bye", ""]
    assert result[0].role == Role.ASSISTANT


def test_skip_type_removes_tool_calls_with_their_results() -> None:
    result = SkipTypeFilter((MessageType.TOOL,)).apply(HISTORY)
    assert not any(m.is_tool or m.tool_call_ids for m in result)
    assert len(result) == len(HISTORY) - 5


def test_skip_type_by_role_keeps_tool_pairs_whole() -> None:
    # Skipping tool-role messages (the results) must take their calls along.
    result = SkipTypeFilter(types=(), roles=(Role.TOOL,)).apply(HISTORY)
    assert all(not m.tool_call_ids for m in result)
    result = SkipTypeFilter(types=(), roles=(Role.SYSTEM,)).apply(HISTORY)
    assert contents(result) == contents(HISTORY[1:])


def test_skip_type_treats_tool_role_without_tool_type_as_tool() -> None:
    odd = Message(role=Role.TOOL, content="legacy result")
    assert SkipTypeFilter().apply([user("q"), odd]) == [user("q")]


def test_exclude_last_user_removes_only_the_unanswered_last_user_message() -> None:
    result = ExcludeLastUserFilter().apply(HISTORY)
    assert contents(result) == contents(HISTORY[:-1])
    replies_after = [user("one"), user("two"), assistant("reply")]
    assert contents(ExcludeLastUserFilter().apply(replies_after)) == ["one", "two", "reply"]
    unanswered = [user("one"), assistant("reply"), user("two"), user("three")]
    assert contents(ExcludeLastUserFilter().apply(unanswered)) == ["one", "reply", "two"]
    assert ExcludeLastUserFilter().apply([assistant("a")]) == [assistant("a")]
    assert ExcludeLastUserFilter().apply([]) == []


def test_max_turns_keeps_the_last_exchanges() -> None:
    result = MaxTurnsFilter(1).apply(HISTORY)
    assert contents(result) == ["Thanks! Book me a table for two."]
    result = MaxTurnsFilter(2).apply(HISTORY)
    assert contents(result) == contents(HISTORY[6:])
    assert MaxTurnsFilter(10).apply(HISTORY) == HISTORY
    assert MaxTurnsFilter(0).apply(HISTORY) == []
    with pytest.raises(ValueError, match="max_turns"):
        MaxTurnsFilter(-1)


def test_max_turns_keeps_a_tool_call_whose_results_are_kept() -> None:
    # A result arrives after the next user message: its call sits in an older exchange.
    messages = [
        user("first"),
        tool_call("slow_job()", ["j1"]),
        assistant("working on it"),
        user("second"),
        tool_result("job done", "j1"),
        assistant("here it is"),
    ]
    result = MaxTurnsFilter(1).apply(messages)
    assert contents(result) == ["slow_job()", "second", "job done", "here it is"]
    assert_tool_groups_whole(messages, result)


def test_max_chars_truncates_each_long_message_with_the_strategy() -> None:
    long = "x" * 50 + "y" * 100 + "z" * 50
    messages = [user("short"), assistant(long, name="bot")]
    hard = MaxCharsFilter(100).apply(messages)
    assert hard[0] == messages[0]
    assert hard[1].content == long[:99] + ELLIPSIS and hard[1].name == "bot"
    middle = MaxCharsFilter(100, TruncationStrategy.MIDDLE).apply(messages)
    assert middle[1].content == "x" * 40 + MIDDLE_MARKER + "z" * 40
    with pytest.raises(ValueError, match="max_chars"):
        MaxCharsFilter(-5)


def test_max_chars_semantic_uses_the_last_user_message_as_query() -> None:
    report = (
        "The invoice total is 420 euros. The cat slept all afternoon. "
        "Payment is due on March 3. The garden needs watering."
    )
    messages = [assistant(report), user("When is the invoice payment due?")]
    pipeline = MessageFilterPipeline(
        (
            ExcludeLastUserFilter(),
            MaxCharsFilter(70, "semantic", shortener=SemanticShortener(BagOfWordsEmbedder())),
        )
    )
    result = pipeline.apply(messages)
    assert contents(result) == ["The invoice total is 420 euros. … Payment is due on March 3."]
    explicit = pipeline.apply(messages, FilterContext(query="garden watering cat"))
    assert contents(explicit) == ["The cat slept all afternoon. … The garden needs watering."]


async def test_max_chars_llm_strategy_calls_the_llm_only_when_awaited() -> None:
    llm = shortening_llm()
    long = "alpha beta gamma delta " * 20
    shortener = LLMShortener(llm)
    pipeline = MessageFilterPipeline((MaxCharsFilter(65, "llm", shortener=shortener),))
    messages = [user(long), tool_call("call " * 30, ["t1"]), tool_result("ok", "t1")]
    result = await apply_pipeline(pipeline, messages)
    assert contents(result)[0] == "LLM: alpha beta gamma"
    assert contents(result)[1] == "LLM: call call call"
    assert result[1].tool_call_ids == ("t1",) and result[2].content == "ok"
    assert len(llm.calls) == 2
    fresh = MessageFilterPipeline((MaxCharsFilter(65, "llm", shortener=LLMShortener(llm)),))
    sync = fresh.apply(messages)  # nothing prepared: middle, no call
    assert MIDDLE_MARKER in sync[0].content and len(llm.calls) == 2


async def test_max_chars_llm_failure_falls_back_to_middle() -> None:
    llm = shortening_llm([True])
    long = "0123456789" * 30
    truncator = MaxCharsFilter(100, "llm", shortener=LLMShortener(llm))
    result = await apply_pipeline(MessageFilterPipeline((truncator,)), [user(long)])
    assert result[0].content == long[:40] + MIDDLE_MARKER + long[-40:]
    assert len(llm.calls) == 1


# -- presets ---------------------------------------------------------------------------


def test_supervisor_pipeline() -> None:
    result = SUPERVISOR_PIPELINE.apply(HISTORY)
    assert contents(result) == [
        "You are helpful.",
        "What's the weather in Paris?",
        "[WeatherAgent]\nIt is sunny and 24C in Paris.",
        "And tomorrow?",
        "[WeatherAgent]\nRain tomorrow, 18C.",
    ]


def test_supervisor_pipeline_excludes_the_query_before_skipping() -> None:
    # A query that itself starts with a skipped prefix must not make an older one vanish.
    messages = [user("older question"), assistant("answer"), user("[Supervisor] test")]
    assert contents(SUPERVISOR_PIPELINE.apply(messages)) == ["older question", "answer"]


def test_agent_pipeline() -> None:
    pipeline = agent_pipeline(("[WeatherAgent]\n",), max_chars=20, max_turns=2)
    result = pipeline.apply(HISTORY)
    assert contents(result) == [
        "What's the weather …",
        "get_weather(Paris)",
        "Sunny, 24C",
        "It is sunny and 24C…",
        "And tomorrow?",
        "get_forecast(Paris)…",
        "Rain, 18C",
        "No alerts",
        "Rain tomorrow, 18C.",
    ]
    assert_tool_groups_whole(HISTORY, result)
    assert all(len(m.content) <= 20 for m in result)


def test_agent_pipeline_options() -> None:
    no_limits = agent_pipeline(("[WeatherAgent]\n",))
    assert [type(f).__name__ for f in no_limits.filters] == [
        "SkipBlankFilter",
        "ExcludeLastUserFilter",
        "SkipPrefixFilter",
        "StripPrefixFilter",
    ]
    no_tools = agent_pipeline((), skip_tools=True, exclude_last_user=False)
    result = no_tools.apply(HISTORY)
    assert not any(m.tool_call_ids for m in result)
    assert result[-1].content == "Thanks! Book me a table for two."
    middle = agent_pipeline((), max_chars=100, strategy="middle")
    assert middle.filters[-1] == MaxCharsFilter(100, TruncationStrategy.MIDDLE)


def test_pipelines_nest_and_extend() -> None:
    inner = MessageFilterPipeline((SkipTypeFilter(),))
    outer = MessageFilterPipeline((inner,)).then(StripPrefixFilter(("[WeatherAgent]\n",)))
    result = outer(HISTORY)
    assert "It is sunny and 24C in Paris." in contents(result)
    assert not any(m.tool_call_ids for m in result)
    assert MessageFilterPipeline().apply(HISTORY) == HISTORY


# -- extract_conversation_history --------------------------------------------------------


def test_extract_with_a_pipeline_delegates_and_ignores_legacy_parameters() -> None:
    result = extract_conversation_history(HISTORY, SUPERVISOR_PIPELINE, strip_prefixes=("[W",))
    assert result == SUPERVISOR_PIPELINE.apply(HISTORY)


def test_extract_legacy_parameters_build_a_pipeline() -> None:
    result = extract_conversation_history(
        HISTORY,
        skip_prefixes=("[Supervisor", "[Conversation summary]"),
        strip_prefixes=("[WeatherAgent]\n",),
        max_chars=12,
        max_turns=1,
    )
    # max_turns=1 after excluding the query: the "And tomorrow?" exchange.
    assert contents(result) == [
        "And tomorro…",
        "get_forecas…",
        "Rain, 18C",
        "No alerts",
        "Rain tomorr…",
    ]


def test_extract_legacy_defaults_skip_supervisor_noise_and_the_query() -> None:
    result = extract_conversation_history(HISTORY)
    assert "[Supervisor] routing to weather-agent" not in contents(result)
    assert not any(c.startswith("[Conversation summary]") for c in contents(result))
    assert contents(result)[-1] == "[WeatherAgent]\nRain tomorrow, 18C."
    assert len(result) == len(HISTORY) - 3
    kept_query = extract_conversation_history(HISTORY, exclude_last_user=False, skip_prefixes=())
    assert kept_query == HISTORY


def test_extract_legacy_semantic_query_parameter() -> None:
    messages = [assistant("Alpha one here. Beta two there. Gamma three now."), user("q")]
    result = extract_conversation_history(
        messages, max_chars=25, truncation_strategy="middle", query="beta"
    )
    assert contents(result) == ["Alpha one here. Beta two…"]


# -- tool pairing under every filter and cap ----------------------------------------------

PAIRING_CASES: list[MessageFilter] = [
    SkipPrefixFilter(("[Supervisor", "get_forecast", "No alerts")),
    StripPrefixFilter(("get_",)),
    SkipTypeFilter(),
    SkipTypeFilter(types=(), roles=(Role.TOOL,)),
    SkipTypeFilter(types=(), roles=(Role.ASSISTANT,)),
    ExcludeLastUserFilter(),
    MaxTurnsFilter(1),
    MaxTurnsFilter(2),
    MaxTurnsFilter(3),
    MaxCharsFilter(5),
    SUPERVISOR_PIPELINE,
    agent_pipeline(("[WeatherAgent]\n",), max_chars=8, max_turns=1),
]


@pytest.mark.parametrize("message_filter", PAIRING_CASES, ids=lambda f: type(f).__name__)
def test_no_filter_separates_a_tool_call_from_its_results(message_filter: MessageFilter) -> None:
    interleaved = [
        *HISTORY[:6],
        user("run the report"),
        tool_call("report()", ["r1"]),
        user("also this"),
        tool_result("report ready", "r1"),
        assistant("done"),
        user("bye"),
    ]
    for messages in (HISTORY, interleaved):
        history = [m.model_copy(update={"id": f"{i:03}"}) for i, m in enumerate(messages)]
        result = message_filter.apply(history)
        assert_tool_groups_whole(history, result)
        ids = [m.id for m in result]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)


async def test_max_chars_llm_answers_are_remembered_but_fallbacks_are_not() -> None:
    down = [False]
    llm = shortening_llm(down)
    shortener = LLMShortener(llm, cache_size=2)
    truncator = MessageFilterPipeline((MaxCharsFilter(65, "llm", shortener=shortener),))
    first, second, third = ("alpha " * 20, "beta " * 20, "gamma " * 20)
    for _ in range(3):
        result = await apply_pipeline(truncator, [user(first), assistant(second)])
    assert contents(result) == ["LLM: alpha alpha alpha", "LLM: beta beta beta"]
    assert len(llm.calls) == 2
    await apply_pipeline(truncator, [user(third)])  # evicts the oldest answer
    await apply_pipeline(truncator, [user(first)])
    assert len(llm.calls) == 4
    down[0] = True
    for _ in range(2):
        fallback = await apply_pipeline(truncator, [user("delta " * 20)])
        assert MIDDLE_MARKER in fallback[0].content
    assert len(llm.calls) == 6
