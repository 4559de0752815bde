"""Native behaviours the Orchid and Orbiter suites exposed as bugs, each fixed and pinned."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from longtalk.compat.compression import compress_conversation_history
from longtalk.config import MemoryConfig
from longtalk.core.filters import (
    SUPERVISOR_PIPELINE,
    ExcludeLastUserFilter,
    extract_conversation_history,
)
from longtalk.core.messages import Message, assistant, tool_call, tool_result, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.storage.sqlite import SqliteStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import BrokenRecall, ScriptedLLM
from longtalk.vectors.base import RecallScope

COUNTER = HeuristicTokenCounter()


def contents(messages: Sequence[Message]) -> list[str]:
    return [m.content for m in messages]


def conversation(turns: int) -> list[Message]:
    return [
        m
        for i in range(turns)
        for m in (user(f"question {i} " + "q" * 80), assistant(f"answer {i} " + "a" * 80))
    ]


# -- the current query is only the UNANSWERED last user message ---------------------------


def test_an_answered_question_is_history_not_the_query() -> None:
    answered = [user("question"), assistant("answer")]
    assert contents(ExcludeLastUserFilter().apply(answered)) == ["question", "answer"]
    assert contents(SUPERVISOR_PIPELINE.apply(answered)) == ["question", "answer"]
    pending = [*answered, user("follow-up")]
    assert contents(SUPERVISOR_PIPELINE.apply(pending)) == ["question", "answer"]
    blank_reply = [*pending, assistant("  ")]
    assert contents(SUPERVISOR_PIPELINE.apply(blank_reply)) == ["question", "answer", "  "]


def test_a_question_with_only_tool_chatter_after_it_is_still_the_query() -> None:
    history = [
        user("old"),
        assistant("old answer"),
        user("weather?"),
        tool_call("", ["c1"]),
        tool_result("sunny", "c1"),
    ]
    # the tool call is an assistant message: the query was answered by a tool round
    assert "weather?" in contents(ExcludeLastUserFilter().apply(history))
    assert contents(ExcludeLastUserFilter().apply(history[:3])) == ["old", "old answer"]


# -- the legacy extractor skips empty and blank messages ----------------------------------


def test_the_legacy_extractor_skips_empty_and_blank_messages() -> None:
    history = [user("Hello"), assistant("  "), assistant(""), user("\n"), user("Current")]
    assert contents(extract_conversation_history(history)) == ["Hello"]


def test_a_tool_call_with_empty_text_is_not_blank() -> None:
    history = [user("q"), tool_call("", ["c1"]), tool_result("42", "c1"), assistant("42")]
    assert contents(extract_conversation_history(history)) == ["q", "", "42", "42"]


# -- a custom LLM's own exception degrades, it does not crash -----------------------------


async def test_compress_survives_a_custom_llm_raising_a_foreign_exception() -> None:
    llm = ScriptedLLM(default=RuntimeError("API down"))
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=40,
        structured_output=False,
    )
    result = await compress_conversation_history(
        conversation(6), writer=LLMSummaryWriter(llm), config=config, counter=COUNTER
    )
    assert len(llm.calls) == 1
    assert result.error is not None and "RuntimeError: API down" in str(result.error)
    assert result.summary_rows == ()
    assert result.summarized_count == 0


async def test_after_a_writer_failure_compress_returns_only_the_recent_window() -> None:
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=40,
        structured_output=False,
    )
    messages = conversation(8)
    result = await compress_conversation_history(
        messages,
        writer=LLMSummaryWriter(ScriptedLLM(default=TimeoutError("slow"))),
        config=config,
        counter=COUNTER,
    )
    assert contents(result.verbatim) == contents(messages[-4:])
    # the unsummarized messages are retried by the next call
    retried = await compress_conversation_history(
        messages,
        writer=LLMSummaryWriter(ScriptedLLM(default="Twelve questions were asked.")),
        previous=result,
        config=config,
        counter=COUNTER,
    )
    assert retried.error is None
    assert retried.summary_text == "Twelve questions were asked."
    assert contents(retried.verbatim) == contents(messages[-4:])


async def test_engine_summarize_survives_a_custom_llm_raising_a_foreign_exception(
    tmp_path: Path,
) -> None:
    llm = ScriptedLLM(default=ValueError("bad gateway payload"))
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=40,
        structured_output=False,
    )
    storage = SqliteStorage(tmp_path / "chat.db")
    memory = MemoryEngine(
        storage, config=config, writer=LLMSummaryWriter(llm), counter=COUNTER, title_llm=llm
    )
    try:
        chat = await memory.create_chat("c1")
        await memory.append(chat.id, conversation(6))
        outcome = await memory.summarize(chat.id, force=True)
        assert outcome.plan.error is not None
        assert not outcome.changed
        state = await storage.load_state(chat.id)
        assert state.chat.message_count == 12
        assert state.summaries == ()
    finally:
        await storage.close()


async def test_a_title_llm_raising_a_foreign_exception_keeps_the_summary(
    tmp_path: Path,
) -> None:
    writer_llm = ScriptedLLM(default="Six questions about q.")
    title_llm = ScriptedLLM(default=KeyError("choices"))
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=40,
        structured_output=False,
    )
    storage = SqliteStorage(tmp_path / "chat.db")
    memory = MemoryEngine(
        storage,
        config=config,
        writer=LLMSummaryWriter(writer_llm),
        counter=COUNTER,
        title_llm=title_llm,
    )
    try:
        chat = await memory.create_chat("c1")
        await memory.append(chat.id, conversation(6))
        outcome = await memory.summarize(chat.id, force=True)
        assert outcome.changed and len(title_llm.calls) == 1
        assert outcome.title and outcome.title.startswith("Question 0")
    finally:
        await storage.close()


# -- a custom vector store's own exception degrades after the write -----------------------


async def test_a_custom_vector_store_failure_degrades_and_loses_nothing(tmp_path: Path) -> None:
    recall = BrokenRecall(RuntimeError("Qdrant down"))
    config = MemoryConfig(strategy="rag_augmented", summary_recent_turns=2)
    storage = SqliteStorage(tmp_path / "chat.db")
    memory = MemoryEngine(storage, config=config, recall=recall, counter=COUNTER)
    try:
        chat = await memory.create_chat("c1")
        _, stored = await memory.append(chat.id, conversation(2))
        assert len(stored) == 4 and recall.store_calls == 1
        run = await memory.index_chat(chat.id)
        assert run.error is not None and "RuntimeError: Qdrant down" in run.error
        turn = await memory.run_turn(chat.id, [user("question 9"), assistant("answer 9")])
        assert len(turn.messages) == 2
        context = await memory.get_context(chat.id, "question 1")
        assert context.recalled == ()
        after = await storage.get_chat(chat.id)
        assert after is not None and after.message_count == 6
        assert after.indexed_sequence == 0  # nothing indexed: the next run retries all
    finally:
        await storage.close()


# -- the compat shims convert to and from longtalk's own types ---------------------------


def test_orbiter_items_round_trip_through_longtalk_messages() -> None:
    from longtalk.compat.orbiter import AIMemory, HumanMemory, from_message

    for item in (HumanMemory(content="hi"), AIMemory(content="hello")):
        back = from_message(item.to_message())
        assert (type(back), back.id, back.content) == (type(item), item.id, item.content)
    assert HumanMemory(content="x").to_message().role.value == "user"


def test_orbiter_config_maps_to_the_native_config() -> None:
    from longtalk.compat.orbiter import SummaryConfig, SummaryTemplate, native_config

    config = SummaryConfig(
        message_threshold=7, keep_recent=2, prompts={SummaryTemplate.FACTS: "F: {content}"}
    )
    mapped = native_config(config)
    assert (mapped.message_threshold, mapped.keep_recent) == (7, 2)
    assert mapped.get_prompt(SummaryTemplate.FACTS) == "F: {transcript}"


def test_orchid_summary_round_trips_through_the_native_model() -> None:
    from longtalk.compat.orchid import OrchidConversationSummary, OrchidSummaryEntity

    orchid = OrchidConversationSummary(
        topics=["trip"],
        entities=[OrchidSummaryEntity("Ann", "person", "traveller")],
        narrative="Ann plans a trip.",
        covered_turns=2,
    )
    native = orchid.to_native()
    assert native.topics == ("trip",) and native.entities[0].name == "Ann"
    assert OrchidConversationSummary.from_native(native) == orchid
    assert native.to_context_string() != orchid.to_context_string()  # Orchid adds "Summary:"
    assert orchid.to_context_string().endswith("Summary: Ann plans a trip.")


def test_orchid_supervisor_settings_become_a_memory_config() -> None:
    from longtalk.compat.orchid import OrchidSupervisorConfig

    legacy = OrchidSupervisorConfig(history_summary_recent_turns=4, history_max_chars=500)
    config = legacy.memory_config()
    assert (config.strategy, config.summary_recent_turns) == ("running_summary", 4)
    assert config.truncation_max_chars == 500
    assert OrchidSupervisorConfig(history_summary_enabled=False).memory_config().strategy == "none"


# -- a turn's own metadata travels with it through recall ---------------------------------


async def test_recalled_turns_keep_their_metadata(tmp_path: Path) -> None:
    from longtalk.embed.minilm import MiniLMEmbedder
    from longtalk.recall.retriever import HybridRetriever
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    retriever = HybridRetriever(QdrantEdgeStore(tmp_path / "vectors"), MiniLMEmbedder())
    scope = RecallScope(chat_id="c1")
    try:
        turns = [
            user("I adopted a grey kitten named Miso.", metadata={"source": "mobile", "n": 1}),
            assistant("Miso is a lovely name for a cat."),
        ]
        await retriever.store_turns(scope, list(enumerate(turns, start=1)))
        found = await retriever.get_relevant_history(
            "What is the kitten called?", scope, k=2, similarity_threshold=0.0
        )
        by_text = {t.message.content: t.message.metadata for t in found}
        assert by_text["I adopted a grey kitten named Miso."] == {"source": "mobile", "n": 1}
        assert by_text["Miso is a lovely name for a cat."] == {}
    finally:
        await retriever.close()


async def test_orbiter_generate_summary_with_longtalks_llm_summarizer() -> None:
    from longtalk.compat.orbiter import AIMemory, HumanMemory, SummaryConfig, generate_summary
    from longtalk.compat.templates import LLMSummarizer

    llm = ScriptedLLM(default="Ann adopted a kitten called Miso.")
    items = [HumanMemory(content="I adopted a kitten."), AIMemory(content="What is her name?")]
    items += [HumanMemory(content="Miso."), AIMemory(content="Lovely!")]
    result = await generate_summary(items, SummaryConfig(keep_recent=2), LLMSummarizer(llm))
    assert result.summaries == {"conversation": "Ann adopted a kitten called Miso."}
    sent = llm.calls[0].text
    assert "[HUMAN]: I adopted a kitten.\n[AI]: What is her name?" in sent
    assert "Miso." not in sent.split("[AI]: What is her name?")[1]
