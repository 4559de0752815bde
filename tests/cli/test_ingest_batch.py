"""``longtalk ingest`` never sends a batch over the configured ``max_batch_size``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from longtalk import Memory, Settings
from longtalk.cli import app

runner = CliRunner()


def test_ingest_batches_within_the_configured_limit(tmp_path: Path) -> None:
    data = {
        "storage": {"sqlite_path": str(tmp_path / "batch.db")},
        "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
        "service": {"max_batch_size": 50},
    }
    config = tmp_path / "agents.yaml"
    config.write_text(json.dumps(data), encoding="utf-8")
    talk = tmp_path / "talk.jsonl"
    lines = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"Message {n} on Lisbon."}
        for n in range(120)
    ]
    talk.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = runner.invoke(
        app, ["ingest", str(talk), "-c", str(config), "--chat", "big", "--no-summarize"]
    )
    assert done.exit_code == 0, done.output
    assert "120 messages added" in done.output
    # the engine's gate refuses any append over 50 messages: every batch was within it
    with Memory(Settings.model_validate(data), summarize="off") as memory:
        chat = memory.get("big")
        assert chat is not None and len(chat.messages()) == 120
    too_big = runner.invoke(
        app, ["ingest", str(talk), "-c", str(config), "--chat", "other", "--batch", "60"]
    )
    assert too_big.exit_code == 2 and "service.max_batch_size" in too_big.output
