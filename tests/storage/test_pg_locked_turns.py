"""PostgreSQL's turn statement run after the chat row's lock (what a turn that keeps losing
races falls back to) keeps every rule of the seams: the suites run with it alone."""

from __future__ import annotations

import asyncio

import pytest
from tests.storage.conftest import Backend

from longtalk.core.messages import user
from longtalk.storage import ChatStorage
from longtalk.storage.postgres import PostgresStorage
from longtalk.testing import ChatStoreConformance, SummaryStoreConformance


@pytest.fixture
async def storage(make_backend) -> ChatStorage:
    backend: Backend = await make_backend("postgres")
    store = backend.open()
    assert isinstance(store, PostgresStorage)
    store.optimistic_attempts = 0  # every turn locks first
    await store.setup()
    return store


class TestLockedChatStore(ChatStoreConformance):
    """Chats and messages, every turn written after the lock."""


class TestLockedSummaryStore(SummaryStoreConformance):
    """Summary rows, every turn written after the lock."""


async def test_locked_and_racing_turns_keep_every_message_in_order(make_backend) -> None:
    backend: Backend = await make_backend("postgres")
    locked, racing = backend.open(), backend.open()
    assert isinstance(locked, PostgresStorage)
    locked.optimistic_attempts = 0
    await locked.setup()
    chat = await locked.create_chat("c")

    async def append(storage: ChatStorage, writer: str) -> None:
        for turn in range(10):
            await storage.append_messages(
                chat.id, [user(f"{writer}{turn}a"), user(f"{writer}{turn}b")]
            )

    await asyncio.gather(append(locked, "L"), append(racing, "R"))
    stored = await locked.list_messages(chat.id)
    assert [item.sequence for item in stored] == list(range(1, 41))
    contents = [item.message.content for item in stored]
    for writer in "LR":
        mine = [text for text in contents if text.startswith(writer)]
        assert mine == [f"{writer}{turn}{half}" for turn in range(10) for half in "ab"]
