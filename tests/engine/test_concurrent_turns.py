"""Concurrent turns on one chat: every turn's messages are stored, whatever the summary does."""

from __future__ import annotations

import asyncio
from pathlib import Path

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.storage.resolve import from_url


async def test_sixteen_concurrent_turns_on_one_chat_all_store_their_messages(
    tmp_path: Path,
) -> None:
    config = MemoryConfig(
        strategy="running_summary", summary_recent_turns=1, summary_trigger_tokens=10
    )
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        engine = MemoryEngine(storage, config=config)
        await engine.create_chat("busy")
        for warm in range(4):  # a summary exists, so every turn plans an extension
            await engine.run_turn("busy", [user(f"warm {warm} " * 8), assistant("ok " * 8)])

        async def turn(number: int) -> int:
            result = await engine.run_turn(
                "busy", [user(f"question {number} " * 6), assistant(f"answer {number} " * 6)]
            )
            return len(result.messages)

        stored = await asyncio.gather(*(turn(n) for n in range(16)))
        assert stored == [2] * 16
        contents = [m.message.content for m in await storage.list_messages("busy")]
        for number in range(16):
            assert contents.count(f"question {number} " * 6) == 1
            assert contents.count(f"answer {number} " * 6) == 1
        chat = await storage.get_chat("busy")
        assert chat is not None and chat.message_count == 8 + 32
        # nothing is lost to the summary either: what is not summarized is still pending
        assert 0 < chat.last_summarized_sequence < chat.message_count
