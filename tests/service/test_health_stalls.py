"""/healthz tells the truth about a model that hangs or trickles.

The probe (``GET /v1/models``) answers at once either way; the completions do not. A real
HTTP double stands for the model: one whose completions hang, one that sends its answer a
byte at a time. Before, /healthz said ``ok`` (the probe was fine, a call in flight counted
as fine); now the last calls' outcomes and a call in flight past its timeout make the
``llm`` part ``down`` and the service ``degraded``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy
from longtalk.service import create_app
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import ChatCompletionsServer

TIMEOUT = 1.0


@pytest.fixture
def hanging() -> Iterator[ChatCompletionsServer]:
    server = ChatCompletionsServer(latency=60).start()
    yield server
    server.stop()


@pytest.fixture
def trickling() -> Iterator[ChatCompletionsServer]:
    server = ChatCompletionsServer(trickle=0.2).start()
    yield server
    server.stop()


@asynccontextmanager
async def service(
    tmp_path: Path, double: ChatCompletionsServer, attempts: int, retry_seconds: float = 30
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "db.sqlite")},
            "supervisor": {
                "memory": {
                    "strategy": "running_summary",
                    "structured_output": False,
                    "summary_trigger_tokens": 20,
                    "summary_recent_turns": 1,
                }
            },
            "service": {"summary_retry_seconds": retry_seconds},
        }
    )
    retry = RetryPolicy(max_attempts=attempts, initial_delay=0.05, jitter=0)
    llm = OpenAICompatibleLLM("double", base_url=f"{double.url}/v1", timeout=TIMEOUT, retry=retry)
    async with from_url(settings.storage) as storage, llm:
        writer = LLMSummaryWriter(llm, use_json_schema=False)
        engine = MemoryEngine(storage, config=settings.memory, writer=writer)
        app = create_app(settings, engine=engine)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://localhost"
            ) as client:
                assert (await client.get("/healthz")).json()["status"] == "ok"  # probe fine
                await client.post("/chats", json={"id": "c"})
                for number in range(4):
                    text = f"Message {number}: we plan the Lisbon trip, hotels and trains."
                    await client.post("/chats/c/messages", json={"role": "user", "content": text})
                yield client


async def health_when(client: httpx.AsyncClient, done: Any) -> dict[str, Any]:
    """/healthz polled until ``done(answer)`` (at most 10 s)."""
    for _ in range(200):
        answer: dict[str, Any] = (await client.get("/healthz")).json()
        if done(answer):
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError(f"/healthz never said so: {answer}")


async def test_a_call_in_flight_past_its_timeout_is_down(
    tmp_path: Path, hanging: ChatCompletionsServer
) -> None:
    async with service(tmp_path, hanging, attempts=5) as client:
        answer = await health_when(client, lambda a: a["checks"]["llm"]["status"] != "ok")
    llm = answer["checks"]["llm"]
    assert answer["status"] == "degraded" and llm["status"] == "down"
    # past the 1 s timeout, reported in whole milliseconds: 1,000.4 ms is shown as 1000
    assert llm["calls"]["in_flight"] == 1 and llm["calls"]["oldest_in_flight_ms"] >= 1000
    assert "past the 1 s timeout" in llm["error"]
    assert llm["calls"]["recent"] == 0  # no call has ended: the hang alone tells


async def test_a_model_that_trickles_past_its_deadline_is_down(
    tmp_path: Path, trickling: ChatCompletionsServer
) -> None:
    async with service(tmp_path, trickling, attempts=1, retry_seconds=0.05) as client:
        answer = await health_when(client, lambda a: a["checks"]["llm"]["calls"]["failed"] >= 2)
    llm = answer["checks"]["llm"]
    assert answer["status"] == "degraded" and llm["status"] == "down"
    assert llm["calls"]["last"] == "failed" and "timed out" in llm["calls"]["last_error"]
    assert llm["calls"]["p50_ms"] >= 900  # each ran into the whole-call deadline
    assert trickling.calls  # the double did answer, a byte at a time
