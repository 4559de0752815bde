"""A failing summary model's error reaches tenants without its URL credentials or body."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_harness import exchange, make_settings, uvicorn_server

from longtalk.engine import MemoryEngine
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy
from longtalk.service import create_app
from longtalk.service.errors import public_error
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import free_port

SECRET_BODY = '{"error": {"message": "Incorrect API key provided: sk-live-TOPSECRET42"}}'
SECRETS = ("hunter2", "TOPSECRET42", "sk-live", "Incorrect API key")


@pytest.fixture
async def rejecting_server() -> AsyncIterator[str]:
    """An OpenAI-compatible endpoint that answers every call 401 with a revealing body."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        length = next(
            (
                int(line.split(":")[1])
                for line in head.split("\r\n")
                if line.lower().startswith("content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        body = SECRET_BODY.encode()
        writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://admin:hunter2@127.0.0.1:{port}/v1"
    finally:
        server.close()


async def failing_summary(tmp_path: Path, base_url: str) -> dict[str, Any]:
    settings = make_settings(tmp_path)
    llm = OpenAICompatibleLLM("m", base_url=base_url, retry=RetryPolicy(max_attempts=1))
    async with from_url(settings.storage) as storage, llm:
        writer = LLMSummaryWriter(llm, use_json_schema=False)
        engine = MemoryEngine(storage, config=settings.memory, writer=writer)
        app = create_app(settings, engine=engine)
        async with uvicorn_server(app) as served:
            async with httpx.AsyncClient(base_url=served, timeout=10) as client:
                chat = (await client.post("/chats", json={})).json()["id"]
                body = {"messages": exchange(1) + exchange(2)}
                await client.post(f"/chats/{chat}/messages", json=body)
                async with client.stream("GET", f"/chats/{chat}/events") as stream:
                    summarize = await client.post(f"/chats/{chat}/summarize")
                    failed = await _first_failed(stream)
                read = await client.get(f"/chats/{chat}")
                return {
                    "summarize": summarize.json(),
                    "chat": read.json(),
                    "event": failed,
                }


async def _first_failed(stream: httpx.Response) -> dict[str, Any]:
    kind = ""
    async for line in stream.aiter_lines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind == "failed":
            return json.loads(line[6:])  # type: ignore[no-any-return]
    raise AssertionError("no failed event")


async def test_model_errors_reach_tenants_without_secrets(
    tmp_path: Path, rejecting_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        seen = await asyncio.wait_for(failing_summary(tmp_path, rejecting_server), 30)
    public = [seen["summarize"]["error"], seen["chat"]["last_error"], seen["event"]["error"]]
    for text in public:
        assert text and "HTTP 401" in text
        assert not any(secret in text for secret in SECRETS), text
    # the operator still sees the whole error, with the key in it masked like every secret
    assert "Incorrect API key provided: sk-***" in caplog.text
    assert "TOPSECRET42" not in caplog.text


async def test_an_unreachable_model_url_is_not_shown(tmp_path: Path) -> None:
    url = f"http://admin:hunter2@127.0.0.1:{free_port()}/v1"
    seen = await asyncio.wait_for(failing_summary(tmp_path, url), 30)
    text = seen["chat"]["last_error"]
    assert "unreachable" in text and "hunter2" not in text and "127.0.0.1" not in text


def test_public_error_cleans_keys_urls_and_bodies() -> None:
    raw = (
        "OpenAI request failed (HTTP 500): {upstream body}\n at https://u:p@api.example/v1 "
        "with Bearer abc.def"
    )
    assert public_error(raw) == "OpenAI request failed (HTTP 500)"
    assert public_error("timed out: https://u:p@h/v1?key=1 api_key=zzz") == (
        "timed out: <url> api_key=***"
    )
    assert len(public_error("x" * 1000) or "") == 300
    assert public_error(None) is None
