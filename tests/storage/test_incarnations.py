"""A chat id deleted and created again is another chat: work for the old one never lands.

Each test replays an attack on a reused chat id against every backend (memory, SQLite,
PostgreSQL): a summary planned for the deleted chat, an indexing run that outlived it.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import Connection, text

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.errors import NotFoundError
from longtalk.llm.base import LLMRequest
from longtalk.storage import ChatStorage, NewMessages, SummaryRow, SummaryUpdate, TurnCommit
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import FunctionLLM


async def test_a_recreated_chat_is_another_incarnation(storage: ChatStorage) -> None:
    first = await storage.create_chat("x", tenant="a")
    assert first.incarnation and (await storage.get_chat("x")) == first
    assert await storage.delete_chat("x")
    second = await storage.create_chat("x", tenant="b")
    assert second.incarnation and second.incarnation != first.incarnation
    assert (await storage.load_state("x")).chat.incarnation == second.incarnation


async def test_a_commit_planned_for_the_deleted_chat_writes_nothing(storage: ChatStorage) -> None:
    old = await storage.create_chat("x", tenant="a")
    await storage.append_messages("x", [user("a1"), assistant("a2"), user("a3")])
    planned = await storage.load_state("x")
    await storage.delete_chat("x", tenant="a")
    await storage.create_chat("x", tenant="b")
    await storage.append_messages("x", [user("b1"), assistant("b2"), user("b3")])
    commit = TurnCommit(
        "x",
        summary=SummaryUpdate(
            rows=(SummaryRow("x", "tenant a's secrets"),),
            last_summarized_sequence=2,
            expected_version=planned.chat.summary_version,
        ),
        incarnation=old.incarnation,
    )
    with pytest.raises(NotFoundError, match="deleted"):
        await storage.commit_turn(commit)
    state = await storage.load_state("x")
    assert state.summaries == () and state.chat.last_summarized_sequence == 0
    assert state.chat.summary_version == 0 and state.chat.tenant == "b"


async def test_a_commit_for_another_tenant_is_a_missing_chat(storage: ChatStorage) -> None:
    await storage.create_chat("x", tenant="a")
    first = TurnCommit("x", append=NewMessages([user("a1", id="m1")]), tenant="a")
    assert [m.sequence for m in (await storage.commit_turn(first)).messages] == [1]
    for attempt in (  # new messages, and a replay of a's ids that would echo a's message
        TurnCommit("x", append=NewMessages([user("b1")]), tenant="b"),
        TurnCommit("x", append=NewMessages([user("a1", id="m1")]), tenant="b"),
    ):
        with pytest.raises(NotFoundError, match="no chat with id 'x'"):
            await storage.commit_turn(attempt)
    state = await storage.load_state("x")
    assert [m.message.content for m in state.messages] == ["a1"]
    assert state.chat.message_count == 1 and state.chat.tenant == "a"


async def test_an_old_indexing_run_does_not_move_the_new_watermark(storage: ChatStorage) -> None:
    old = await storage.create_chat("x")
    await storage.append_messages("x", [user("a1"), assistant("a2")])
    await storage.delete_chat("x")
    new = await storage.create_chat("x")
    await storage.append_messages("x", [user("b1"), assistant("b2")])
    assert not await storage.mark_indexed("x", 2, incarnation=old.incarnation)
    chat = await storage.get_chat("x")
    assert chat is not None and chat.indexed_sequence == 0  # b1, b2 still to be indexed
    assert await storage.mark_indexed("x", 2, incarnation=new.incarnation)
    assert await storage.mark_indexed("x", 1, incarnation=new.incarnation)  # exists, no move
    chat = await storage.get_chat("x")
    assert chat is not None and chat.indexed_sequence == 2
    assert not await storage.mark_indexed("gone", 1)


async def test_delete_chats_by_user_and_by_tenant(storage: ChatStorage) -> None:
    for chat_id, tenant, who in [
        ("a1", "a", "ann"),
        ("a2", "a", "ann"),
        ("a3", "a", "bob"),
        ("b1", "b", "ann"),
    ]:
        await storage.create_chat(chat_id, tenant=tenant, user=who, title=f"title {chat_id}")
        await storage.append_messages(chat_id, [user(f"text of {chat_id}")])
        await storage.create_summary(SummaryRow(chat_id, f"summary of {chat_id}"))
    gone = await storage.delete_chats(tenant="a", user="ann")
    assert [chat.id for chat in gone] == ["a1", "a2"]
    assert await storage.get_chat("a1") is None and await storage.list_messages("a1") == []
    assert await storage.list_summaries("a2") == []
    assert [chat.id for chat in await storage.list_chats(tenant="a")] == ["a3"]
    assert await storage.get_chat("b1") is not None  # the same user name in another tenant
    gone = await storage.delete_chats(tenant="a")
    assert [chat.id for chat in gone] == ["a3"] and await storage.list_chats(tenant="a") == []
    assert await storage.delete_chats(tenant="a") == []
    assert len(await storage.list_summaries("b1")) == 1


class GatedSummaries:
    """A summary model held at a gate: the planning turn waits while the chat is replaced."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def __call__(self, request: LLMRequest) -> str:
        self.entered.set()
        await self.gate.wait()
        return json.dumps({"narrative": "Tenant A planned a merger with Initech."})


async def test_a_summary_job_for_the_deleted_chat_never_writes_the_new_one(
    storage: ChatStorage,
) -> None:
    model = GatedSummaries()
    config = MemoryConfig(summary_recent_turns=1, structured_output=True)
    writer = LLMSummaryWriter(FunctionLLM(model), use_json_schema=False)
    engine = MemoryEngine(storage, config=config, writer=writer)
    await engine.create_chat("x", tenant="a")
    secret = [user("merger with Initech?"), assistant("yes, in May")]
    await engine.append("x", [*secret, user("more"), assistant("sure")])
    job = asyncio.create_task(engine.summarize("x", force=True))
    await asyncio.wait_for(model.entered.wait(), 5)
    assert await engine.delete_chat("x", tenant="a")
    await engine.create_chat("x", tenant="b")
    await engine.append("x", [user(f"b{i}") for i in range(6)])
    model.gate.set()
    with pytest.raises(NotFoundError):
        await job
    state = await storage.load_state("x")
    assert state.summaries == () and state.chat.last_summarized_sequence == 0
    assert "Initech" not in json.dumps([row.summary_text for row in state.summaries])


async def test_a_job_pinned_to_the_old_incarnation_finds_the_chat_gone(
    storage: ChatStorage,
) -> None:
    engine = MemoryEngine(storage, config=MemoryConfig(summary_recent_turns=1))
    old = await engine.create_chat("x")
    await engine.append("x", [user("a"), assistant("b"), user("c"), assistant("d")])
    await engine.delete_chat("x")
    await engine.create_chat("x")
    await engine.append("x", [user("a"), assistant("b"), user("c"), assistant("d")])
    with pytest.raises(NotFoundError):
        await engine.summary_due("x", incarnation=old.incarnation)
    with pytest.raises(NotFoundError):
        await engine.summarize("x", force=True, incarnation=old.incarnation)
    assert await storage.list_summaries("x") == []


async def test_chats_made_before_incarnations_migrate_to_the_empty_one(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql_backend.open()
    await storage.create_chat("old", tenant="a", title="kept")
    await storage.append_messages("old", [user("a1"), assistant("a2"), user("a3")])

    def back_to_version_4(conn: Connection) -> None:
        conn.execute(text("ALTER TABLE chats DROP COLUMN incarnation"))
        conn.execute(text("DELETE FROM longtalk_schema WHERE version >= 5"))

    await storage.transaction(back_to_version_4, write=True)
    await storage.close()
    upgraded = sql_backend.open()
    chat = await upgraded.get_chat("old")
    assert chat is not None and chat.incarnation == ""
    assert (chat.title, chat.message_count) == ("kept", 3)
    commit = TurnCommit(
        "old",
        summary=SummaryUpdate(
            rows=(SummaryRow("old", "a summary"),), last_summarized_sequence=2, expected_version=0
        ),
        incarnation="",
    )
    assert len((await upgraded.commit_turn(commit)).summaries) == 1
    assert await upgraded.mark_indexed("old", 3, incarnation="")
    assert (await upgraded.create_chat("new")).incarnation != ""
