"""One input gate for every door: what the service refuses, the library and the CLI refuse.

Metadata nested ~130 levels deep once reached the embedded vector store's write-ahead log
through the library or ``longtalk ingest`` and broke every later open of the store. Now it
is refused at the door with an error naming the message, the field and the limit; nothing
is stored, and the store opens and recalls as before.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from longtalk import AsyncMemory, Settings
from longtalk.cli import app
from longtalk.errors import InputError
from longtalk.vectors.base import NullVectorReader

FACT = "My sister Ines is allergic to peanuts."

runner = CliRunner()


def nested(levels: int) -> dict[str, Any]:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"d": value}
    return value  # type: ignore[no-any-return]


def settings(tmp_path: Path) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "gate.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
        }
    )


async def recalls_the_fact(tmp_path: Path) -> list[str]:
    """A fresh open of the same data directory: the chat's messages, and recall working."""
    async with AsyncMemory(settings(tmp_path)) as memory:
        engine = memory.engine
        assert not isinstance(engine.recall, NullVectorReader)  # the store opened
        chat = await memory.chat("trip")
        await engine.index_chat("trip")
        turns = await engine.recall.get_relevant_history(
            "Which allergy does Ines have?", engine.scope(chat.record), similarity_threshold=0.0
        )
        assert [turn.message.content for turn in turns] == [FACT]
        return [item.message.content for item in await chat.messages()]


async def test_the_library_refuses_deep_metadata_and_stores_nothing(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="off") as memory:
        chat = await memory.chat("trip")
        await chat.append("user", "My sister Ines is allergic to peanuts.")
        with pytest.raises(InputError) as refused:
            await chat.extend(
                [
                    {"role": "user", "content": "fine"},
                    {"role": "user", "content": "deep", "payload": nested(130)},
                ]
            )
        assert "message 1: metadata nests 131 levels" in str(refused.value)
        assert "limits.max_metadata_depth" in str(refused.value)
        with pytest.raises(InputError, match="metadata nests"):
            await chat.append("user", "deep again", payload=nested(130))
    assert await recalls_the_fact(tmp_path) == ["My sister Ines is allergic to peanuts."]


def test_longtalk_ingest_refuses_deep_metadata_and_stores_nothing(tmp_path: Path) -> None:
    config = tmp_path / "agents.yaml"
    config.write_text(json.dumps(settings(tmp_path).model_dump(mode="json", exclude_unset=True)))
    lines = [
        {"role": "user", "content": "My sister Ines is allergic to peanuts."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "deep", "metadata": nested(130)},
    ]
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(lines[0]) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    args = ["--config", str(config), "--chat", "trip", "--no-summarize"]
    assert runner.invoke(app, ["ingest", str(good), *args]).exit_code == 0
    result = runner.invoke(app, ["ingest", str(bad), *args])
    assert result.exit_code == 2, result.output
    output = " ".join(result.output.split())
    assert "message 2: metadata nests 130 levels" in output
    assert "limits.max_metadata_depth" in output and "nothing was stored" in output
    assert asyncio.run(recalls_the_fact(tmp_path)) == ["My sister Ines is allergic to peanuts."]
