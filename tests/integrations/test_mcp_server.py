"""``longtalk mcp`` in a real subprocess, driven over stdio by the MCP SDK's own client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from longtalk.config import load_settings
from longtalk.factory import open_memory

TOOLS = {
    "append_message",
    "get_context",
    "get_messages",
    "list_chats",
    "summarize_chat",
    "delete_chat",
    "get_facts",
    "user_memory",
    "remember",
    "forget",
    "forget_messages",
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "supervisor:\n"
        "  memory:\n"
        "    strategy: running_summary\n"
        "    summary_recent_turns: 1\n"
        "    summary_trigger: pending_tokens\n"
        "    summary_trigger_tokens: 20\n"
        "    context_max_tokens: 120\n"
        "storage:\n"
        f"  sqlite_path: {tmp_path / 'mcp.db'}\n",
        encoding="utf-8",
    )
    return path


@asynccontextmanager
async def session_for(config: Path) -> AsyncIterator[ClientSession]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("LONGTALK_")}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "longtalk.cli", "mcp", "--config", str(config)],
        env=env,
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


async def test_memory_tools_over_stdio(config: Path) -> None:
    async with session_for(config) as session:
        assert session.initialize_result is not None
        assert session.initialize_result.server_info.name == "longtalk"
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        append = next(tool for tool in listed.tools if tool.name == "append_message")
        assert set(append.input_schema["required"]) == {"chat_id", "role", "content"}

        first = await call(
            session,
            "append_message",
            chat_id="trip",
            role="user",
            content="I want a quiet hotel in Lisbon, near Alfama.",
        )
        assert first == {"chat_id": "trip", "sequence": 1, "created_chat": True}
        for day in range(1, 5):
            await call(
                session,
                "append_message",
                chat_id="trip",
                role="assistant",
                content=f"Day {day}: the tram to Belém, then pastries by the river.",
            )
            await call(
                session,
                "append_message",
                chat_id="trip",
                role="user",
                content=f"And on day {day + 1}, what about Sintra and the palaces?",
            )

        for _ in range(300):  # the summary is written in the background: appends never wait
            context = await call(session, "get_context", chat_id="trip", query="Which hotel?")
            kinds = [part["kind"] for part in context["parts"]]
            if kinds != ["verbatim"]:
                break
            await asyncio.sleep(0.1)
        assert kinds == ["summary", "verbatim"]
        assert context["tokens_used"] == sum(p["tokens"] for p in context["parts"]) + 1
        assert context["messages"][0]["role"] == "system"
        assert context["messages"][-1] == {
            "role": "user",
            "content": "And on day 5, what about Sintra and the palaces?",
        }

        messages = await call(session, "get_messages", chat_id="trip", after_sequence=7)
        assert [m["sequence"] for m in messages] == [8, 9]
        chats = await call(session, "list_chats")
        assert [(c["id"], c["message_count"]) for c in chats] == [("trip", 9)]
        assert chats[0]["last_summarized_sequence"] > 0

        missing = await session.call_tool("get_context", {"chat_id": "nope"})
        assert missing.is_error
        assert "no chat 'nope'" in json.dumps([block.model_dump() for block in missing.content])
        bad_role = await session.call_tool(
            "append_message", {"chat_id": "trip", "role": "robot", "content": "hi"}
        )
        assert bad_role.is_error

        await call(session, "append_message", chat_id="scratch", role="user", content="tmp")
        assert await call(session, "delete_chat", chat_id="scratch") is True

    async with open_memory(load_settings(config)) as memory:  # what the server stored
        assert await memory.storage.get_chat("scratch") is None
        stored = await memory.storage.list_messages("trip", after_sequence=0, limit=100)
        assert len(stored) == 9
        assert stored[0].message.content.startswith("I want a quiet hotel")


async def test_the_server_keeps_its_data_where_its_arguments_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK starts the server with HOME and PATH only: no LONGTALK_* reaches it."""
    home, data = tmp_path / "home", tmp_path / "data"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path / "dropped"))  # the SDK drops it
    settings = tmp_path / "settings.yaml"  # memory settings only: storage follows --data-dir
    settings.write_text("supervisor:\n  memory:\n    context_max_tokens: 1234\n", encoding="utf-8")
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "longtalk", "mcp", "--data-dir", str(data), "--config", str(settings)],
        # the SDK's log handler wraps at the terminal's width; the sources under test
        env={"COLUMNS": "1000", "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    log = tmp_path / "server.log"
    with log.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for n in range(3):
                await call(session, "append_message", chat_id="c", role="user", content=f"q{n}")
                await call(session, "append_message", chat_id="c", role="assistant", content="a")
            context = await call(session, "get_context", chat_id="c")

    assert (data / "longtalk.db").is_file() and (data / "longtalk-vectors").is_dir()
    assert not (tmp_path / "dropped").exists()
    assert not (home / ".local" / "share" / "longtalk").exists()
    said = log.read_text()
    assert f"chats stored in {data / 'longtalk.db'}" in said
    assert "migration" not in said and "Processing request" not in said  # a first start is quiet
    assert context["budget_tokens"] == 1234  # the settings of --config
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(data))
    async with open_memory(load_settings()) as memory:
        stored = await memory.storage.list_messages("c")
        assert [m.message.content for m in stored] == ["q0", "a", "q1", "a", "q2", "a"]
