"""longtalk's chats as a LangGraph store, used directly and by a compiled graph's node."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore

from longtalk import AsyncMemory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.integrations.langgraph import LongtalkStore
from longtalk.storage.config import StorageConfig

TRIP = [
    ("user", "My sister Ines is allergic to peanuts."),
    ("assistant", "Noted, no peanuts for Ines."),
    ("user", "We arrive in Lisbon on Friday by train."),
    ("assistant", "The train station is Santa Apolónia."),
    ("user", "Book a table for dinner near Alfama."),
    ("assistant", "Booked for eight at a tasca in Alfama."),
]


def settings(tmp_path: Path, strategy: str = "running_summary") -> Settings:
    memory = MemoryConfig(strategy=strategy, summary_recent_turns=1, summary_trigger_tokens=30)  # type: ignore[arg-type]
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(sqlite_path=tmp_path / "store.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


async def fill(store: BaseStore) -> None:
    await store.aput(("chats",), "trip", {"title": "Lisbon", "user": "priya"})
    for number, (role, content) in enumerate(TRIP):
        await store.aput(("chats", "trip"), f"m{number}", {"role": role, "content": content})


async def test_chats_messages_and_summaries(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        store = LongtalkStore(memory)
        await fill(store)
        await store.aput(("chats", "trip"), "m0", {"role": "user", "content": TRIP[0][1]})  # no-op
        with pytest.raises(UsageError, match="already stored with other content"):
            await store.aput(("chats", "trip"), "m0", {"role": "user", "content": "other"})

        chat = await store.aget(("chats",), "trip")
        assert chat is not None
        assert chat.value["user"] == "priya" and chat.value["message_count"] == len(TRIP)
        first = await store.aget(("chats", "trip"), "m0")
        assert first is not None and first.value["content"] == TRIP[0][1]
        assert first.value["sequence"] == 1
        assert await store.aget(("chats", "trip"), "missing") is None
        assert await store.aget(("chats",), "missing") is None

        found = await store.asearch(("chats", "trip"), query="dinner table in Alfama", limit=2)
        assert [item.key for item in found] == ["m4", "m5"]
        assert found[0].score is not None and found[0].score > found[1].score  # type: ignore[operator]
        assert await store.asearch(("chats", "trip"), query="peanut allergy") == []  # words only
        users = await store.asearch(("chats", "trip"), filter={"role": "user"}, limit=10)
        assert [item.key for item in users] == ["m0", "m2", "m4"]
        assert [i.key for i in await store.asearch(("chats",), filter={"user": "priya"})] == [
            "trip"
        ]
        summaries = await store.asearch(("summaries", "trip"))
        assert summaries and summaries[0].value["kind"] in ("row", "digest")
        assert summaries[0].value["episode_first"] >= 1
        spaces = await store.alist_namespaces(prefix=("chats",))
        assert spaces == [("chats",), ("chats", "trip")]

        with pytest.raises(UsageError, match="append-only"):
            await store.adelete(("chats", "trip"), "m0")
        with pytest.raises(UsageError, match="unknown namespace"):
            await store.aget(("users", "priya"), "x")
        with pytest.raises(UsageError, match="'role' and 'content'"):
            await store.aput(("chats", "trip"), "bad", {"text": "hi"})
        with pytest.raises(UsageError, match="a-methods"):
            store.get(("chats",), "trip")
        from_thread = await asyncio.to_thread(store.get, ("chats", "trip"), "m1")
        assert from_thread is not None and from_thread.value["role"] == "assistant"

        await store.adelete(("chats",), "trip")
        assert await memory.get("trip") is None


async def test_recall_ranks_by_meaning(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path, "rag_augmented")) as memory:
        store = LongtalkStore(memory)
        await fill(store)
        found = await store.asearch(("chats", "trip"), query="peanut allergy", limit=2)
    # the two turns about Ines's allergy; no word is the query's ("peanuts", "allergic")
    assert {item.key for item in found} == {"m0", "m1"}


class LookupState(TypedDict):
    question: str
    notes: list[str]


async def test_a_graph_node_reads_another_chat(tmp_path: Path) -> None:
    async def lookup(state: LookupState, *, store: BaseStore) -> dict[str, Any]:
        found = await store.asearch(("chats", "trip"), query=state["question"], limit=1)
        return {"notes": [item.value["content"] for item in found]}

    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        store = LongtalkStore(memory)
        await fill(store)
        builder = StateGraph(LookupState)
        builder.add_node("lookup", lookup)
        builder.add_edge(START, "lookup")
        graph = builder.compile(store=store)
        state = await graph.ainvoke({"question": "Which station does the train arrive at?"})
    assert state["notes"] == ["The train station is Santa Apolónia."]
