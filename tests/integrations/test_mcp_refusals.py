"""MCP over stdio: a refused call leaves nothing behind, and every request gets an answer."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml


class Session:
    """``longtalk mcp`` as a real process, spoken to line by line."""

    def __init__(self, config: Path) -> None:
        command = [sys.executable, "-m", "longtalk.cli", "mcp", "-c", str(config)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("LONGTALK_")}
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.send_line(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2024-11-05",
                        "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"},
                    },
                }
            )
        )
        assert self.answer()["id"] == 0
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self, seconds: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        assert ready, "no answer"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def call(self, number: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        self.send_line(
            json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
        )
        return self.answer()

    def close(self) -> None:
        self.process.kill()
        self.process.communicate(timeout=30)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    config = tmp_path / "agents.yaml"
    settings = {
        "storage": {"sqlite_path": str(tmp_path / "mcp.db")},
        "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
    }
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    opened = Session(config)
    yield opened
    opened.close()


def test_a_refused_first_message_creates_no_chat(session: Session) -> None:
    refused = session.call(
        1, "append_message", {"chat_id": "fresh", "role": "user", "content": "a\x00b"}
    )
    assert refused["result"]["isError"], refused
    assert "NUL" in refused["result"]["content"][0]["text"]
    listed = session.call(2, "list_chats", {})
    assert listed["result"]["structuredContent"]["result"] == []  # no empty chat left


def test_a_lone_surrogate_sent_as_an_escape_gets_an_answer(session: Session) -> None:
    line = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": '
        '"append_message", "arguments": {"chat_id": "s", "role": "user", "content": "x\\ud800y"}}}'
    )
    session.send_line(line)
    answer = session.answer()
    assert answer["id"] == 7 and "lone surrogate" in answer["error"]["message"]
    assert "params.arguments.content" in answer["error"]["message"]
    session.send_line("{not json")
    assert session.answer()["error"]["code"] == -32700
    listed = session.call(8, "list_chats", {})  # the session goes on, nothing was stored
    assert listed["result"]["structuredContent"]["result"] == []
