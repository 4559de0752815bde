from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.errors import LLMTransientError
from longtalk.llm.base import LLMRequest
from longtalk.service import Service, create_app
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import FunctionLLM

KEYS = {"key-a": "tenant-a", "key-b": "tenant-b"}


class SummaryModel:
    """The summary LLM of a test: answers JSON, can be held at a gate or made to fail."""

    def __init__(self) -> None:
        self.calls = 0
        self.failures = 0
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    def hold(self) -> None:
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()

    def release(self) -> None:
        assert self.gate is not None
        self.gate.set()
        self.gate = None

    async def __call__(self, request: LLMRequest) -> str:
        self.calls += 1
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            self.failures -= 1
            raise LLMTransientError("the summary model is down")
        return json.dumps(
            {
                "narrative": f"Summary number {self.calls}.",
                "topics": ["trip planning"],
                "entities": [{"name": "Lisbon", "type": "place"}],
                "decisions": ["rent a car for the coast"],
                "open_questions": ["which hotel in Porto"],
                "user_preferences": ["quiet neighbourhoods"],
            }
        )


def make_settings(
    tmp_path: Path, *, keys: dict[str, str] | None = None, **service: Any
) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "supervisor": {
                "memory": {
                    "strategy": "running_summary",
                    "summary_trigger": "pending_tokens",
                    "summary_trigger_tokens": 20,
                    "summary_recent_turns": 1,
                    "context_max_tokens": 250,  # below what the chats grow to: layered
                }
            },
            "service": {
                "api_keys": keys or {},
                "max_message_chars": 2000,
                "max_batch_size": 20,
                "summary_retry_seconds": 0.05,
                "summary_retry_max_seconds": 0.2,
                **service,
            },
        }
    )


@dataclass
class Harness:
    client: httpx.AsyncClient
    app: FastAPI
    model: SummaryModel
    base_url: str

    @property
    def service(self) -> Service:
        return self.app.state.service  # type: ignore[no-any-return]

    async def settle(self) -> None:
        await asyncio.wait_for(self.service.settle(), 10)


@asynccontextmanager
async def open_engine(settings: Settings, model: SummaryModel) -> AsyncIterator[MemoryEngine]:
    async with from_url(settings.storage) as storage:
        writer = LLMSummaryWriter(FunctionLLM(model), use_json_schema=False)
        yield MemoryEngine(storage, config=settings.memory, writer=writer)


@asynccontextmanager
async def uvicorn_server(app: FastAPI) -> AsyncIterator[str]:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def running(
    settings: Settings, model: SummaryModel, *, transport: str = "asgi"
) -> AsyncIterator[Harness]:
    async with open_engine(settings, model) as engine:
        app = create_app(settings, engine=engine)
        if transport == "uvicorn":
            async with uvicorn_server(app) as base_url:
                async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
                    yield Harness(client, app, model, base_url)
            return
        async with app.router.lifespan_context(app):
            asgi = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=asgi, base_url="http://localhost") as client:
                yield Harness(client, app, model, "http://localhost")


def exchange(number: int) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": f"Question {number}: what about the trip to Lisbon, day {number}?",
        },
        {
            "role": "assistant",
            "content": f"Answer {number}: we could visit Alfama and Belém on day {number}.",
        },
    ]
