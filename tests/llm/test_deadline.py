"""``llm.timeout_seconds`` bounds a whole call, even against a server that trickles bytes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from longtalk.errors import LLMTransientError
from longtalk.llm.base import prompt_request
from longtalk.llm.ollama import OllamaLLM
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy


@pytest.fixture
async def trickling_server() -> AsyncIterator[str]:
    """Answers 200 at once, then one byte of a never-ending JSON body every 0.1 s."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: 100000\r\n\r\n{")
        try:
            for _ in range(600):  # bounded: at most a minute
                await asyncio.sleep(0.1)
                writer.write(b" ")
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()


@pytest.mark.parametrize("backend", ["openai", "ollama"])
async def test_a_trickling_server_cannot_hold_a_call_past_its_deadline(
    trickling_server: str, backend: str
) -> None:
    retry = RetryPolicy(max_attempts=1)
    llm: OpenAICompatibleLLM | OllamaLLM
    if backend == "openai":
        llm = OpenAICompatibleLLM("m", base_url=f"{trickling_server}/v1", timeout=1.0, retry=retry)
    else:
        llm = OllamaLLM("m", base_url=trickling_server, timeout=1.0, retry=retry)
    started = time.monotonic()
    async with llm:
        with pytest.raises(LLMTransientError, match=r"within 1 s \(llm.timeout_seconds\)"):
            await llm.complete(prompt_request("hi"))
    assert time.monotonic() - started < 2.5
