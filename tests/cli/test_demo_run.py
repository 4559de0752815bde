"""The demo ``make run`` loads: a second run (or one after an interruption) just works."""

from __future__ import annotations

from pathlib import Path

import pytest

from longtalk.cli.serving import load_demo
from longtalk.config import load_settings
from longtalk.factory import open_memory
from longtalk.tools.ingest import DEMO_CHAT_ID, ChatFile, demo_path, ingest_chats, read_chats


async def test_loading_the_demo_again_adds_nothing_and_does_not_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LONGTALK_SUPERVISOR__MEMORY__STRATEGY", "running_summary")
    (whole,) = read_chats(demo_path(), chat_id=DEMO_CHAT_ID)
    async with open_memory(load_settings()) as memory:
        # an earlier run stopped after the first 10 messages
        await ingest_chats(memory, [ChatFile(DEMO_CHAT_ID, whole.messages[:10], "Trip")])
        await load_demo(memory)
        first = capsys.readouterr().out
        rows = await memory.storage.list_summaries(DEMO_CHAT_ID)
        await load_demo(memory)
        second = capsys.readouterr().out
        chat = await memory.storage.get_chat(DEMO_CHAT_ID)
        assert chat is not None and chat.message_count == len(whole.messages)
        contents = [m.message.content for m in await memory.storage.list_messages(DEMO_CHAT_ID)]
        assert contents == [m.content for m in whole.messages]
        assert len(await memory.storage.list_summaries(DEMO_CHAT_ID)) == len(rows)
    assert f"{len(whole.messages) - 10} messages added" in first
    assert "0 messages added, 0 summary passes" in second
    assert "=== Assembled context" in second  # the report is printed every time
    assert (tmp_path / "longtalk.db").is_file()
