"""Orbiter's store protocol, its in-memory store and its error, from the compat package."""

from __future__ import annotations

import builtins

import pytest

import longtalk.compat.orbiter as orbiter
from longtalk.compat.orbiter import (
    AIMemory,
    HumanMemory,
    MemoryError,
    MemoryItem,
    MemoryMetadata,
    MemoryStatus,
    MemoryStore,
    ShortTermMemory,
    SystemMemory,
    ToolMemory,
    from_message,
)
from longtalk.compat.orbiter import base as orbiter_base
from longtalk.core.messages import Role, assistant, user


def test_the_package_offers_what_orbiter_memory_offers_for_these_modules() -> None:
    for name in ("MemoryError", "MemoryStore", "ShortTermMemory", "MemoryStatus"):
        assert name in orbiter.__all__
    assert MemoryError is orbiter_base.MemoryError
    assert not issubclass(MemoryError, builtins.MemoryError)  # Orbiter's own, not Python's


def test_orbiters_error_is_raised_for_a_bad_transition_and_a_bad_scope() -> None:
    item = HumanMemory(content="x", status=MemoryStatus.DISCARD)
    with pytest.raises(MemoryError, match="Cannot transition"):
        item.transition(MemoryStatus.ACCEPTED)
    with pytest.raises(MemoryError, match="Invalid scope 'chat'"):
        ShortTermMemory(scope="chat")


def test_a_store_needs_all_four_methods() -> None:
    class NoClear:
        async def add(self, item: MemoryItem) -> None: ...

        async def get(self, item_id: str) -> MemoryItem | None: ...

        async def search(self, **filters: object) -> list[MemoryItem]: ...

    assert isinstance(ShortTermMemory(), MemoryStore)
    assert not isinstance(NoClear(), MemoryStore)


async def test_longtalk_messages_go_in_and_come_back_out() -> None:
    store = ShortTermMemory()
    for message in (user("I'm allergic to peanuts."), assistant("Noted: no peanuts.")):
        await store.add(from_message(message))
    found = await store.search(query="PEANUTS")
    assert [(m.to_message().role, m.content) for m in found] == [
        (Role.USER, "I'm allergic to peanuts."),
        (Role.ASSISTANT, "Noted: no peanuts."),
    ]


async def test_the_scope_decides_how_far_a_filter_reaches() -> None:
    session = ShortTermMemory(scope="session")
    for content, where in (("a", ("s", "1")), ("b", ("s", "2")), ("c", ("t", None))):
        metadata = MemoryMetadata(session_id=where[0], task_id=where[1])
        await session.add(HumanMemory(content=content, metadata=metadata))
    assert await session.clear(metadata=MemoryMetadata(session_id="s", task_id="1")) == 2
    assert [m.content for m in await session.search()] == ["c"]


async def test_only_the_tail_is_checked_for_dangling_tool_traffic() -> None:
    store = ShortTermMemory(max_rounds=1)
    await store.add(SystemMemory(content="sys"))
    await store.add(HumanMemory(content="old"))
    await store.add(ToolMemory(content="orphan inside", tool_call_id="x"))
    await store.add(HumanMemory(content="new"))
    await store.add(AIMemory(content="", tool_calls=[{"id": "c1"}]))
    await store.add(ToolMemory(content="result", tool_call_id="c1"))
    await store.add(AIMemory(content="", tool_calls=[{"id": "c2"}]))
    found = await store.search(limit=100)
    assert [m.content or m.memory_type for m in found] == ["sys", "new", "ai", "result"]
