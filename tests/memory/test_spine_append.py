"""``MemoryEngine.append`` is the whole write of a turn: the gate, the commit, the follow-up.

Every door calls it and nothing else, so what it does here is what each door does: a
message past a limit is refused before anything is stored, and the door's follow-up is
told what was stored (also for a retry, which names what its first attempt stored: that
attempt may have been cut off between the commit and the scheduling).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from longtalk import AsyncMemory, Settings
from longtalk.core.messages import Message
from longtalk.engine import index_later
from longtalk.errors import InputError
from longtalk.storage.base import ChatRecord, StoredMessage


def settings(tmp_path: Path) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "spine.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
            "limits": {"max_message_chars": 40},
        }
    )


class Followed:
    """A door's follow-up that records what it was asked to schedule."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[int]]] = []

    async def __call__(self, chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
        self.calls.append((chat.id, [item.sequence for item in stored]))


async def test_the_engine_refuses_past_a_limit_before_storing(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="off") as memory:
        await memory.chat("trip")
        followed = Followed()
        too_long = Message(role="user", content="x" * 41)
        with pytest.raises(InputError, match="max_message_chars"):
            await memory.engine.append("trip", [too_long], after=followed)
        assert await memory.engine.storage.list_messages("trip") == []
        assert followed.calls == []


async def test_the_follow_up_hears_what_was_stored_and_a_retry(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="off") as memory:
        await memory.chat("trip")
        followed = Followed()
        said = [
            Message(role="user", content="Tom is allergic to peanuts.", id="m1"),
            Message(role="assistant", content="Noted.", id="m2"),
        ]
        await memory.engine.append("trip", said, after=followed)
        await memory.engine.append("trip", said, after=followed)  # the same ids: a retry
        assert followed.calls == [("trip", [1, 2]), ("trip", [1, 2])]  # scheduled again


async def test_the_library_indexes_at_once_and_index_later_waits(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="off") as memory:
        chat = await memory.chat("trip")
        await chat.append("user", "Tom is allergic to peanuts.")
        assert (await memory.engine.storage.get_chat("trip")).indexed_sequence == 1  # type: ignore[union-attr]
        await memory.engine.append(
            "trip", [Message(role="user", content="A boat trip.")], after=index_later
        )
        assert (await memory.engine.storage.get_chat("trip")).indexed_sequence == 1  # type: ignore[union-attr]
        await memory.engine.index_chat("trip")
        assert (await memory.engine.storage.get_chat("trip")).indexed_sequence == 2  # type: ignore[union-attr]
