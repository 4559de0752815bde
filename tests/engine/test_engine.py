import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.errors import LLMTransientError, VectorStoreError
from longtalk.llm.base import LLMRequest
from longtalk.storage.base import ChatStorage
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.storage.sqlite import SqliteStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import FunctionLLM, RecordingRecall, ScriptedLLM
from longtalk.vectors.base import RecallScope

COUNTER = HeuristicTokenCounter()
STORAGE: ContextVar[Callable[[], ChatStorage]] = ContextVar("STORAGE")


def exchange(i: int) -> list[Message]:
    asked = f"question {i} about topic {i} " + "q" * 60 + "?"
    return [user(asked), assistant(f"answer {i} " + "a" * 60)]


@pytest.fixture(params=["memory", "sqlite"], autouse=True)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[None]:
    """Every engine test runs on the in-memory store and on a real SQLite file."""
    opened: list[ChatStorage] = []

    def open_storage() -> ChatStorage:
        storage: ChatStorage = (
            InMemoryStorage()
            if request.param == "memory"
            else SqliteStorage(tmp_path / f"{uuid.uuid4().hex}.db")
        )
        opened.append(storage)
        return storage

    token = STORAGE.set(open_storage)
    yield
    STORAGE.reset(token)
    for storage in opened:
        await storage.close()


def engine(llm: ScriptedLLM | FunctionLLM, **settings: object) -> MemoryEngine:
    defaults: dict[str, object] = {
        "strategy": "running_summary",
        "summary_recent_turns": 2,
        "summary_trigger_tokens": 60,
        "structured_output": False,
        "context_max_tokens": 250,  # below what the chats grow to: the layered context
    }
    config = MemoryConfig(**{**defaults, **settings})  # type: ignore[arg-type]
    storage = STORAGE.get()()
    return MemoryEngine(storage, config=config, writer=LLMSummaryWriter(llm), counter=COUNTER)


async def play(memory: MemoryEngine, chat_id: str, turns: int) -> None:
    for i in range(turns):
        await memory.run_turn(chat_id, exchange(i))


async def test_a_turn_commits_messages_summary_and_title_together() -> None:
    memory = engine(ScriptedLLM(default="Ann plans a trip."))
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 4)
    state = await memory.storage.load_state(chat.id)
    assert state.chat.message_count == 8
    assert state.chat.last_summarized_sequence == 4
    assert [r.summary_text for r in state.summaries] == ["Ann plans a trip."]
    assert state.chat.title is not None and state.chat.title.startswith("Question 0 about")
    assert len(state.chat.title) <= 80


async def test_context_is_summary_then_verbatim_and_bounded() -> None:
    memory = engine(ScriptedLLM(default="Summary of older turns."))
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 12)
    context = await memory.get_context(chat.id, "what about topic 3?")
    kinds = [part.kind for part in context.parts]
    assert kinds == ["summary", "verbatim"]
    assert "Summary of older turns." in context.render()
    assert "question 11" in context.render()
    assert "question 0 " not in context.render()
    assert context.tokens_used <= memory.config.context_max_tokens


async def test_each_extension_reads_only_new_messages() -> None:
    llm = ScriptedLLM(default="S")
    memory = engine(llm)
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 15)
    inputs = "\n".join(call.request.messages[-1].content for call in llm.calls)
    for i in range(12):
        assert inputs.count(f"question {i} ") == 1


async def test_llm_failure_degrades_to_last_good_summary_and_verbatim() -> None:
    llm = ScriptedLLM(default="good summary")
    memory = engine(llm)
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 4)
    llm.default = LLMTransientError("model is down")
    outcomes = [(await memory.run_turn(chat.id, exchange(i))).summary for i in range(4, 8)]
    failed = [outcome for outcome in outcomes if outcome.failed]
    assert len(failed) == 1 and isinstance(failed[0].plan.error, LLMTransientError)
    assert {o.skipped for o in outcomes[outcomes.index(failed[0]) + 1 :]} <= {"backing off"}
    state = await memory.storage.load_state(chat.id)
    assert state.chat.stats.failures == 1 and state.chat.stats.retry_at is not None
    assert [r.summary_text for r in state.summaries] == ["good summary"]
    assert state.chat.message_count == 16
    context = await memory.get_context(chat.id, "q")
    assert "good summary" in context.render()
    assert "question 7" in context.render() and "question 3" in context.render()
    assert "down" not in context.render()
    # recovery: the next successful run folds everything that waited, nothing skipped
    llm.default = "recovered summary"
    assert (await memory.summarize(chat.id)).skipped == "backing off"
    outcome = await memory.summarize(chat.id, force=True)
    assert outcome.changed and outcome.chat is not None and not outcome.chat.stats.failures
    assert "question 3 " in llm.calls[-1].request.messages[-1].content


async def test_strategy_none_is_identical_to_no_memory() -> None:
    llm = ScriptedLLM()
    memory = engine(llm, strategy="none")
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 10)
    context = await memory.get_context(chat.id, "q")
    assert llm.calls == []
    assert [p.kind for p in context.parts] == ["verbatim"]
    assert len(context.verbatim) == 20
    assert context.verbatim[0].content.startswith("question 0")


async def test_strategy_none_loads_what_a_smart_load_left_out() -> None:
    memory = engine(ScriptedLLM(), strategy="none")
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 3)
    state = await memory.context_state(chat.id)
    # a smart load with no tail, of a chat a summary covers whole, holds no message
    context = await memory.get_context(chat.id, "q", state=replace(state, messages=()))
    assert [message.content[:10] for message in context.verbatim] == [
        message.content[:10] for message in (*exchange(0), *exchange(1), *exchange(2))
    ]


async def test_rag_with_null_reader_behaves_as_running_summary() -> None:
    plain = engine(ScriptedLLM(default="S"))
    rag = engine(ScriptedLLM(default="S"), strategy="rag_augmented")
    for memory in (plain, rag):
        await memory.create_chat("c1")
        await play(memory, "c1", 6)
    a = await plain.get_context("c1", "topic 1")
    b = await rag.get_context("c1", "topic 1")
    assert a.render() == b.render()


async def test_concurrent_summarizations_never_overwrite_newer_with_older() -> None:
    gate = asyncio.Event()
    calls = 0

    async def slow(request: LLMRequest) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await gate.wait()  # the first planner is stalled while the second commits
        return f"summary {calls}"

    memory = engine(FunctionLLM(slow), summary_trigger_tokens=10_000)
    chat = await memory.create_chat("c1")
    for i in range(8):
        await memory.append(chat.id, exchange(i))
    first = asyncio.create_task(memory.summarize(chat.id, force=True))
    await asyncio.sleep(0.01)
    second = await memory.summarize(chat.id, force=True)
    gate.set()
    first_outcome = await first
    assert second.changed and second.attempts == 1
    assert first_outcome.attempts == 2  # lost the compare-and-swap, re-planned
    state = await memory.storage.load_state(chat.id)
    assert state.chat.last_summarized_sequence == 12
    assert [r.summary_text for r in state.summaries] == ["summary 2"]


async def test_concurrent_turns_keep_all_messages_in_order() -> None:
    memory = engine(ScriptedLLM(default="S"))
    chat = await memory.create_chat("c1")
    await asyncio.gather(*(memory.run_turn(chat.id, exchange(i)) for i in range(10)))
    stored = await memory.storage.list_messages(chat.id)
    assert [m.sequence for m in stored] == list(range(1, 21))
    for first, second in zip(stored[::2], stored[1::2], strict=True):
        assert first.message.content.split()[1] == second.message.content.split()[1]


async def test_title_comes_from_the_llm_and_falls_back_offline() -> None:
    llm = ScriptedLLM(default="S")
    memory = engine(llm)
    memory.title_llm = ScriptedLLM().enqueue('Title: "Trip planning."', LLMTransientError("x"))
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 4)
    assert (await memory.storage.get_chat(chat.id)).title == "Trip planning"  # type: ignore[union-attr]
    await play(memory, chat.id, 3)  # the title model fails: the title stays
    assert (await memory.storage.get_chat(chat.id)).title == "Trip planning"  # type: ignore[union-attr]
    offline = engine(ScriptedLLM(default="S"))
    await offline.create_chat("c2")
    await play(offline, "c2", 4)
    title = (await offline.storage.get_chat("c2")).title  # type: ignore[union-attr]
    assert title and title.startswith("Question 0 about topic 0")


async def test_rag_recalls_before_the_summary_and_excludes_the_window() -> None:
    recall = RecordingRecall()
    memory = engine(ScriptedLLM(default="S"), strategy="rag_augmented")
    memory.recall = recall
    chat = await memory.create_chat("c1", tenant="t1", user="u1")
    await play(memory, chat.id, 6)
    context = await memory.get_context(chat.id, "boat?")
    assert [p.kind for p in context.parts] == ["recalled", "summary", "verbatim"]
    scope = RecallScope("c1", "t1", "u1", incarnation=chat.incarnation)
    assert recall.stored and recall.stored[0][0] == scope
    _, excluded = recall.queries[-1]
    assert {m.content_hash for m in context.verbatim} <= excluded
    assert await memory.delete_chat(chat.id)
    assert recall.deleted == [scope]


@pytest.mark.parametrize("resolve_dates", [True, False])
async def test_recalled_relative_dates_follow_the_configuration(resolve_dates: bool) -> None:
    said = user("I sold the boat yesterday.", timestamp=datetime(2023, 5, 8, 13, 56))
    memory = engine(ScriptedLLM(default="S"), strategy="rag_augmented", resolve_dates=resolve_dates)
    memory.recall = RecordingRecall(said=said)
    chat = await memory.create_chat("c1")
    await play(memory, chat.id, 6)
    recalled = (await memory.get_context(chat.id, "boat?")).part("recalled")
    assert recalled is not None and "I sold the boat yesterday." in recalled.text
    assert ("(7 May)" in recalled.text) is resolve_dates


async def test_a_failing_vector_store_never_breaks_the_write_path() -> None:
    memory = engine(ScriptedLLM(default="S"), strategy="rag_augmented")
    memory.recall = RecordingRecall(fail=VectorStoreError("store is down"))
    chat = await memory.create_chat("c1")
    _, stored = await memory.append(chat.id, exchange(0))
    assert [m.sequence for m in stored] == [1, 2]


async def test_context_parts_carry_provenance_and_summary_due_follows_the_trigger() -> None:
    memory = engine(ScriptedLLM(default="S"))
    chat = await memory.create_chat("c1")
    for i in range(3):
        await memory.append(chat.id, exchange(i))
    assert not await memory.summary_due(chat.id)  # one exchange pending: 40 tokens <= 60
    for i in range(3, 6):
        await memory.append(chat.id, exchange(i))
    assert await memory.summary_due(chat.id)
    await memory.summarize(chat.id)
    assert not await memory.summary_due(chat.id)
    context = await memory.get_context(chat.id, "q")
    summary, verbatim = context.parts
    assert summary.kind == "summary" and summary.episode_ranges == ((1, 4),)
    assert verbatim.sequences == (9, 10, 11, 12)
    assert [m.content for m in verbatim.messages][0].startswith("question 4")
