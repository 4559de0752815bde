"""/healthz probes the summary model (cheaply, cached) and says degraded when it is down."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy
from longtalk.service import create_app
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import free_port


@pytest.fixture
async def models_server() -> AsyncIterator[tuple[str, list[str]]]:
    """Answers ``GET /v1/models`` with 200 and records the paths asked for."""
    paths: list[str] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        paths.append(head.split(" ")[1])
        body = b'{"object": "list", "data": []}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        writer.write(b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1", paths
    finally:
        server.close()


async def health(tmp_path: Path, base_url: str, calls: int = 2) -> list[dict]:  # type: ignore[type-arg]
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "db.sqlite")},
            "supervisor": {"memory": {"strategy": "running_summary"}},
        }
    )
    llm = OpenAICompatibleLLM("m", base_url=base_url, retry=RetryPolicy(max_attempts=1))
    async with from_url(settings.storage) as storage, llm:
        engine = MemoryEngine(storage, config=settings.memory, writer=LLMSummaryWriter(llm))
        app = create_app(settings, engine=engine)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://localhost"
            ) as client:
                return [(await client.get("/healthz")).json() for _ in range(calls)]


async def test_a_reachable_model_is_ok_and_probed_once_per_interval(
    tmp_path: Path, models_server: tuple[str, list[str]]
) -> None:
    base_url, paths = models_server
    first, second = await health(tmp_path, base_url)
    assert first["status"] == "ok" and first["checks"]["llm"]["status"] == "ok"
    assert second["checks"]["llm"].get("cached") is True
    assert paths == ["/v1/models"]  # one probe for two health checks


async def test_an_unreachable_model_makes_the_service_degraded(tmp_path: Path) -> None:
    (first,) = await health(tmp_path, f"http://127.0.0.1:{free_port()}/v1", calls=1)
    assert first["status"] == "degraded"
    assert first["checks"]["llm"]["status"] == "down"
    assert "unreachable" in first["checks"]["llm"]["error"]
