"""Two replicas in one process on one PostgreSQL database: leased jobs and relayed events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI
from service_harness import uvicorn_server
from sqlalchemy import text

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.errors import LLMTransientError
from longtalk.llm.base import LLMRequest
from longtalk.service import create_app
from longtalk.service.leased_jobs import LeasedSummaryJobs
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.job_table import JobTable
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import FunctionLLM


class Model:
    """A summary model shared by the replicas: counts calls, can be held or made to fail."""

    def __init__(self) -> None:
        self.calls = 0
        self.failures = 0
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def __call__(self, request: LLMRequest) -> str:
        self.calls += 1
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            self.failures -= 1
            raise LLMTransientError("the summary model is down")
        return f"Summary number {self.calls}: the trip to Lisbon."


def settings(dsn: str, **service: Any) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"url": dsn},
            "vectors": {"url": "null:"},
            "supervisor": {
                "memory": {
                    "strategy": "running_summary",
                    "summary_trigger": "pending_tokens",
                    "summary_trigger_tokens": 20,
                    "summary_recent_turns": 1,
                    "structured_output": False,
                }
            },
            "service": {
                "summary_retry_seconds": 0.3,
                "summary_retry_max_seconds": 1.0,
                "job_lease_seconds": 1.0,
                "job_poll_seconds": 0.2,
                **service,
            },
        }
    )


@dataclass
class Replica:
    app: FastAPI
    client: httpx.AsyncClient

    @property
    def jobs(self) -> LeasedSummaryJobs:
        jobs = self.app.state.service.jobs
        assert isinstance(jobs, LeasedSummaryJobs)
        return jobs


@asynccontextmanager
async def replicas(dsn: str, model: Model, count: int = 2) -> AsyncIterator[list[Replica]]:
    config = settings(dsn)
    async with AsyncExitStack() as stack:
        made = []
        for _ in range(count):
            storage = await stack.enter_async_context(from_url(config.storage))
            writer = LLMSummaryWriter(FunctionLLM(model), use_json_schema=False)
            engine = MemoryEngine(storage, config=config.memory, writer=writer)
            app = create_app(config, engine=engine)
            base_url = await stack.enter_async_context(uvicorn_server(app))
            client = httpx.AsyncClient(base_url=base_url, timeout=10)
            await stack.enter_async_context(client)
            made.append(Replica(app, client))
        yield made


def exchange(number: int) -> dict[str, Any]:
    return {
        "messages": [
            {
                "role": "user",
                "content": f"Question {number}: what about the trip to Lisbon, day {number}?",
            },
            {
                "role": "assistant",
                "content": f"Answer {number}: we could visit Alfama and Belém on day {number}.",
            },
        ]
    }


async def post(replica: Replica, chat: str, number: int) -> None:
    response = await replica.client.post(f"/chats/{chat}/messages", json=exchange(number))
    assert response.status_code == 201, response.text


async def settle(replica: Replica) -> None:
    await asyncio.wait_for(replica.jobs.drain(), 15)


async def stream(replica: Replica, chat: str, until: str, into: list[Any]) -> None:
    async with replica.client.stream("GET", f"/chats/{chat}/events") as response:
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                into.append((kind, json.loads(line[6:])))
                if kind == until:
                    return


async def subscribed(replica: Replica, chat: str, listener: asyncio.Task[None]) -> None:
    """Wait until the listener's stream is subscribed on ``replica`` (fail if it ended)."""
    hub = replica.app.state.service.hub
    for _ in range(1000):
        if hub.subscribers(chat):
            return
        if listener.done():
            listener.result()  # the stream's own error, if it raised one
            raise AssertionError("the event stream ended before it was subscribed")
        await asyncio.sleep(0.01)
    raise AssertionError("the event stream was not subscribed within 10 s")


async def test_one_worker_per_chat_across_replicas(database: str) -> None:
    model = Model()
    async with replicas(database, model) as (one, two):
        chat = (await one.client.post("/chats", json={})).json()["id"]
        model.gate = asyncio.Event()
        await post(one, chat, 0)
        await post(two, chat, 1)
        await asyncio.wait_for(model.entered.wait(), 5)
        for number in range(2, 8):  # writes on both replicas while the job is held
            await post(one if number % 2 else two, chat, number)
        await asyncio.sleep(1.5)  # longer than a lease: the holder renews it
        assert model.calls == 1 and one.jobs.runs + two.jobs.runs == 0
        model.gate.set()
        await settle(one)
        assert one.jobs.runs + two.jobs.runs == 2  # the held job, then ONE for the writes
        done = (await two.client.get(f"/chats/{chat}")).json()
        assert done["message_count"] == 16 and done["last_summarized_sequence"] == 14
        assert await one.jobs.table.pending() == 0


async def test_events_reach_subscribers_of_another_replica(database: str) -> None:
    model = Model()
    async with replicas(database, model) as (worker, watcher):
        await watcher.jobs.stop()  # every job runs on the other replica
        chat = (await worker.client.post("/chats", json={})).json()["id"]
        seen: list[Any] = []
        listener = asyncio.create_task(stream(watcher, chat, "summarized", seen))
        await subscribed(watcher, chat, listener)
        await post(worker, chat, 0)
        await post(worker, chat, 1)
        await asyncio.wait_for(listener, 10)
        kinds = [kind for kind, _ in seen]
        assert kinds[0] == "state" and kinds[-1] == "summarized"
        assert "summarizing" in kinds and kinds.count("appended") == 2
        counts = [data["message_count"] for kind, data in seen if kind == "appended"]
        assert counts[-1] == 4 and all(count in (2, 4) for count in counts)
        summarized = seen[-1][1]
        stored = (await watcher.client.get(f"/chats/{chat}")).json()
        assert summarized["summary_version"] == stored["summary_version"] >= 1
        assert summarized["episode_ranges"] == [[1, 1]]
        relay = watcher.app.state.service.replicas.relay
        assert relay.received == len(seen) - 1  # all but the first (local) state event
        assert watcher.jobs.runs == 0 and worker.jobs.runs == 1


async def test_an_expired_lease_is_claimed_by_another_replica(database: str) -> None:
    model = Model()
    async with replicas(database, model) as (one, two):
        storage = one.app.state.service.engine.storage
        assert isinstance(storage, PostgresStorage)
        dead = JobTable(storage, kind="summary", owner="killed-replica", lease=2.0)
        model.gate = asyncio.Event()  # hold the live replicas' first job...
        chat = (await one.client.post("/chats", json={})).json()["id"]
        await post(one, chat, 0)
        await post(one, chat, 1)
        await asyncio.wait_for(model.entered.wait(), 5)
        other = (await one.client.post("/chats", json={})).json()["id"]
        # ...while a replica that then died holds another chat's job
        lease = await dead.claim_chat(other, "default")
        assert lease is not None
        await post(two, other, 0)
        await post(two, other, 1)
        model.gate.set()
        await asyncio.sleep(0.8)
        assert (await two.client.get(f"/chats/{other}")).json()["summary_version"] == 0
        await settle(two)  # the lease ran out; a live worker took the chat
        after = (await two.client.get(f"/chats/{other}")).json()
        assert after["summary_version"] >= 1 and after["last_summarized_sequence"] == 2
        assert await dead.renew(lease) is False  # the dead replica's lease is gone


async def test_retries_back_off_in_the_database(database: str) -> None:
    model = Model()
    async with replicas(database, model) as (one, two):
        chat = (await one.client.post("/chats", json={})).json()["id"]
        model.failures = 1
        seen: list[Any] = []
        listener = asyncio.create_task(stream(two, chat, "summarized", seen))
        await subscribed(two, chat, listener)
        await post(one, chat, 0)
        await post(one, chat, 1)
        storage = one.app.state.service.engine.storage
        row = None
        for _ in range(100):
            async with storage.engine.connect() as conn:
                row = (
                    await conn.execute(
                        text("SELECT attempts, last_error, due_at > now() FROM longtalk_jobs")
                    )
                ).first()
            if row is not None and row[0] == 1:
                break
            await asyncio.sleep(0.02)
        assert row is not None and row[0] == 1 and "model is down" in row[1] and row[2]
        await asyncio.wait_for(listener, 10)
        failed = dict(seen)["failed"]
        assert failed["state"] == "failed" and "model is down" in failed["error"]
        assert [kind for kind, _ in seen if kind != "appended"][-1] == "summarized"
        await settle(one)
        assert model.calls == 2
        assert (await two.client.get(f"/chats/{chat}")).json()["summary_state"] == "idle"
