"""docs/integrations.md: every Python example runs as written.

The data directory is a temp directory; the OpenAI Agents example talks to a scripted
Responses API server (``OPENAI_BASE_URL``), the client example to the real service.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from llm_wire import Reply, ScriptedServer, Seen
from service_harness import SummaryModel, make_settings, running

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE, re.S)


def block(marker: str) -> str:
    (found,) = [code for code in BLOCKS if marker in code]
    return found


def run(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "integrations_doc"}
    exec(compile(code, "integrations.md", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_every_example_is_tested() -> None:
    markers = [
        "stdio_client",
        "LongtalkChatMessageHistory",
        "MemoryNode",
        "LongtalkSession",
        "longtalk.client",
        "instrument(",
        "LongtalkStore",
    ]
    assert sorted(BLOCKS) == sorted(block(marker) for marker in markers)


def test_langchain_example(capsys: pytest.CaptureFixture[str]) -> None:
    run(block("LongtalkChatMessageHistory"))
    out = capsys.readouterr().out
    assert "human My order hasn't arrived." in out and "ai Sorry!" in out


def test_langgraph_example(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    run(block("MemoryNode"))
    assert capsys.readouterr().out.strip() == "(a reply to: Where should we eat?)"
    assert (data_dir / "longtalk.db").is_file()


def test_langgraph_store_example(capsys: pytest.CaptureFixture[str]) -> None:
    run(block("LongtalkStore"))
    assert capsys.readouterr().out.strip() == "['My sister Ines is allergic to peanuts.']"


def test_otel_example(capsys: pytest.CaptureFixture[str]) -> None:
    run(block("instrument("))
    out = capsys.readouterr().out
    assert "'longtalk.append'" in out and "'longtalk.get_context'" in out


def test_mcp_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # the SDK passes only a few variables (HOME, PATH, ...) to the server it starts: the
    # data directory given as an argument is where the chats land, not HOME's
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    run(block("stdio_client"))  # capfd: the server's stderr needs a real file descriptor
    out = capfd.readouterr().out
    assert "'role': 'user', 'content': 'Find me a quiet hotel in Alfama.'" in out
    assert (tmp_path / "memory-data" / "longtalk.db").is_file()
    assert not (tmp_path / "home" / ".local" / "share" / "longtalk").exists()


def responses_api(seen: Seen) -> Reply:
    assert seen.path == "/v1/responses"
    question = seen.body["input"][-1]["content"]
    text = f"Try the seafood. (you asked: {question})"
    return Reply(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-test",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 15,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )


def test_openai_agents_example(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server.responder = responses_api
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    run(block("LongtalkSession"))
    assert "you asked: Where should we eat?" in capsys.readouterr().out
    second = server.requests[-1].body["input"]
    contents = json.dumps(second)
    assert "We land in Lisbon on Friday." in contents  # the session gave the history


async def test_client_example(
    tmp_path: Path, model: SummaryModel, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        code = block("longtalk.client").replace("http://127.0.0.1:8765", api.base_url)
        await asyncio.to_thread(run, code)
    out = capsys.readouterr().out
    assert "['verbatim']" in out
