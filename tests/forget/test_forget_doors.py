"""Forgetting through the CLI and MCP (a real stdio server): a receipt, the text nowhere."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from forget_traces import every_file, every_table
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_forget_library import EXCHANGES, FORGOTTEN, SECRET, converse, settings
from typer.testing import CliRunner

from longtalk import AsyncMemory
from longtalk.cli import app


async def test_forget_through_the_cli_and_mcp(database_url: str, tmp_path: Path) -> None:
    config = tmp_path / "agents.yaml"
    config.write_text(settings(database_url, tmp_path).model_dump_json(), encoding="utf-8")
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        await converse(memory, EXCHANGES)
    assert SECRET in (await every_table(database_url)).casefold()
    runner = CliRunner()
    refused = await asyncio.to_thread(
        runner.invoke, app, ["forget", "trip", "999", "--yes", "--config", str(config)]
    )
    assert refused.exit_code != 0 and "sequences" in refused.output
    done = await asyncio.to_thread(
        runner.invoke,
        app,
        ["forget", "trip", str(FORGOTTEN), "--yes", "--json", "--config", str(config)],
    )
    assert done.exit_code == 0, done.output
    receipt = json.loads(done.stdout)
    assert receipt["sequences"] == [FORGOTTEN]
    assert ("digest", "rewritten") in {(i["artefact"], i["action"]) for i in receipt["items"]}
    assert SECRET not in (await every_table(database_url)).casefold()
    exported = await asyncio.to_thread(
        runner.invoke, app, ["export", "trip", "--config", str(config)]
    )
    assert exported.exit_code == 0 and '"sequence": 4' in exported.stdout
    assert SECRET not in exported.stdout.casefold()
    text = await asyncio.to_thread(
        runner.invoke, app, ["forget", "trip", "5", "--yes", "--config", str(config)]
    )
    assert text.exit_code == 0 and "removed   message 5" in text.stdout
    env = {name: value for name, value in os.environ.items() if not name.startswith("LONGTALK_")}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "longtalk.cli", "mcp", "--config", str(config)],
        env=env,
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("forget_messages", {"chat_id": "trip", "sequences": [7]})
        assert not result.is_error, result.content
        answer = result.structured_content
        assert answer is not None and answer["sequences"] == [7]
        assert ("message", "removed") in {(i["artefact"], i["action"]) for i in answer["items"]}
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        chat = await memory.chat("trip")
        assert not {FORGOTTEN, 5, 7} & {m.sequence for m in await chat.messages()}
        shown = await chat.context(f"{SECRET}?", budget_tokens=4000)
        assert SECRET not in str(shown.messages).casefold()
    assert SECRET not in every_file(tmp_path / "vectors").casefold()
    assert SECRET not in (await every_table(database_url)).casefold()
