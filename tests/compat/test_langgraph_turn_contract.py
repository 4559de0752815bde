"""The LangGraph backend's end-of-turn contract, on longtalk, against real databases.

From its architecture notes: session init smart-loads "summary + last 4 messages" when a
summary exists and all messages otherwise; the summarization check fires on "> 20 msgs OR
> 4000 tokens"; the summarization node generates the summary (keeping the last 4 messages
verbatim) and regenerates the title but is computation-only, no DB writes; the message
persist node writes summary and title atomically at end of turn, so a graph that fails after
summarization leaves no partial write; new summaries incorporate the previous one.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import make_url

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.errors import ConflictError
from longtalk.storage import ChatStorage, resolve_storage
from longtalk.storage.base import NewMessages, RecordUpdate, SummaryUpdate, TurnCommit
from longtalk.summary.chain import row_summary
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.planner import SummaryPlanner
from longtalk.summary.title import generate_title
from longtalk.testing import FunctionLLM, ScriptedLLM

COUNTER = HeuristicTokenCounter()
LANGGRAPH = MemoryConfig(
    strategy="running_summary",
    summary_trigger="count_or_tokens",
    message_threshold=20,
    token_threshold=4000,
    summary_recent_turns=2,  # the last 4 messages (2 exchanges) stay verbatim
    structured_output=False,
)


@pytest.fixture(params=["sqlite", "postgres"])
async def storage(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_server: str
) -> AsyncIterator[ChatStorage]:
    """A real SQLite file or a fresh database on the run's real PostgreSQL server."""
    if request.param == "sqlite":
        opened = resolve_storage(f"sqlite:///{tmp_path / 'chats.db'}")
    else:
        database = f"longtalk_compat_{uuid.uuid4().hex[:12]}"
        admin = await asyncpg.connect(
            make_url(postgres_server).set(database="postgres").render_as_string(False)
        )
        try:
            await admin.execute(f'CREATE DATABASE "{database}"')
        finally:
            await admin.close()
        url = make_url(postgres_server).set(database=database)
        opened = resolve_storage(url.render_as_string(hide_password=False))
    try:
        yield opened
    finally:
        await opened.close()


def exchanges(first: int, count: int) -> list[Message]:
    return [
        m
        for i in range(first, first + count)
        for m in (user(f"Question {i}: what about the Lisbon trip?"), assistant(f"Answer {i}."))
    ]


def summary_model() -> FunctionLLM:
    """Answers the summary prompt; says which earlier summary it was given, if any."""

    def answer(request: object) -> str:
        prompt = "\n".join(m.content for m in request.messages)  # type: ignore[attr-defined]
        earlier = "after the earlier summary" if "Lisbon trip, part" in prompt else "first"
        return f"Lisbon trip, part {prompt.count('Question')} ({earlier})."

    return FunctionLLM(answer)


async def test_smart_loading_and_the_twenty_message_check(storage: ChatStorage) -> None:
    planner = SummaryPlanner(LANGGRAPH, LLMSummaryWriter(summary_model()), COUNTER)
    chat = await storage.create_chat("c1")
    await storage.append_messages(chat.id, exchanges(0, 12))  # 24 messages, 4 in the window
    state = await storage.load_state(chat.id)
    assert len(state.messages) == 24  # no summary yet: all messages
    split = planner.split([(m.sequence, m.message) for m in state.messages], 0)
    assert len(split.recent) == 4 and len(split.pending) == 20
    assert not planner.decide(split).triggered  # 20 is not > 20
    await storage.append_messages(chat.id, exchanges(12, 1))
    state = await storage.load_state(chat.id)
    split = planner.split([(m.sequence, m.message) for m in state.messages], 0)
    decision = planner.decide(split)
    assert decision.triggered and decision.message_count == 22


async def test_the_summarization_node_computes_and_the_persist_node_writes_atomically(
    storage: ChatStorage,
) -> None:
    llm = summary_model()
    planner = SummaryPlanner(LANGGRAPH, LLMSummaryWriter(llm), COUNTER)
    chat = await storage.create_chat("c1")
    await storage.append_messages(chat.id, exchanges(0, 13))
    state = await storage.load_state(chat.id)
    numbered = [(m.sequence, m.message) for m in state.messages]

    # Summarization node: an LLM call and a new title, and not one write.
    plan = await planner.plan(state.summaries, numbered, chat_id=chat.id, last_summarized=0)
    title = await generate_title(
        ScriptedLLM(default="Lisbon trip"), row_summary(plan.rows[-1]), current=None
    )
    assert len(llm.calls) == 1 and plan.last_summarized == 22 and title == "Lisbon trip"
    untouched = await storage.load_state(chat.id)
    assert untouched.summaries == () and untouched.chat.title is None
    assert untouched.chat.summary_version == state.chat.summary_version

    # The graph fails after summarization: a stale persist writes nothing at all.
    await storage.create_summary(plan.rows[-1])  # another turn won the race meanwhile
    stale = TurnCommit(
        chat.id,
        append=NewMessages(exchanges(13, 1)),
        summary=SummaryUpdate(
            rows=plan.rows,
            last_summarized_sequence=plan.last_summarized,
            expected_version=state.chat.summary_version,
        ),
        record=RecordUpdate(title=title),
    )
    with pytest.raises(ConflictError):
        await storage.commit_turn(stale)
    after = await storage.load_state(chat.id)
    assert after.chat.message_count == 26 and after.chat.title is None
    assert len(after.summaries) == 1 and after.chat.last_summarized_sequence == 0


async def test_a_turn_persists_summary_and_title_together_and_loads_smartly(
    storage: ChatStorage,
) -> None:
    llm = summary_model()
    memory = MemoryEngine(
        storage,
        config=LANGGRAPH,
        writer=LLMSummaryWriter(llm),
        counter=COUNTER,
        title_llm=ScriptedLLM(default="Lisbon trip"),
    )
    chat = await memory.create_chat("c1")
    await memory.append(chat.id, exchanges(0, 12))
    turn = await memory.run_turn(chat.id, exchanges(12, 1))
    assert turn.summary.changed and turn.summary.title == "Lisbon trip"
    state = await storage.load_state(chat.id)
    assert state.chat.title == "Lisbon trip"
    assert [r.summary_text for r in state.summaries] == ["Lisbon trip, part 11 (first)."]
    # Smart loading: the summary plus the last 4 messages, not the 26 stored.
    assert [m.message.content for m in state.messages] == [m.content for m in exchanges(11, 2)]

    # Iterative: the next summary is written from the previous one plus the new messages.
    await memory.append(chat.id, exchanges(13, 10))
    turn = await memory.run_turn(chat.id, exchanges(23, 1))
    assert turn.summary.changed
    state = await storage.load_state(chat.id)
    assert state.summaries[-1].summary_text.endswith("(after the earlier summary).")
    assert "Lisbon trip, part 11 (first)." in llm.calls[-1].text
    assert len(state.messages) == 4
