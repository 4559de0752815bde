"""Background summarization: coalescing, retries, events over SSE, restart with pending work."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from service_harness import Harness, SummaryModel, exchange, make_settings, open_engine, running

from longtalk.core.messages import Message
from longtalk.service import create_app


async def post(api: Harness, chat: str, number: int) -> httpx.Response:
    response = await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(number)})
    assert response.status_code == 201, response.text
    return response


async def events(client: httpx.AsyncClient, chat: str) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    async with client.stream("GET", f"/chats/{chat}/events") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                yield kind, json.loads(line[6:])


async def collect(client: httpx.AsyncClient, chat: str, until: str, into: list[Any]) -> None:
    async for kind, data in events(client, chat):
        into.append((kind, data))
        if kind == until:
            return


async def test_writes_coalesce_into_one_next_job(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model) as api:
        chat = (await api.client.post("/chats", json={})).json()["id"]
        model.hold()
        await post(api, chat, 0)
        await post(api, chat, 1)
        await asyncio.wait_for(model.entered.wait(), 5)
        assert (await api.client.get(f"/chats/{chat}")).json()["summary_state"] == "summarizing"
        for number in range(2, 8):  # the write path does not wait for the held job
            await asyncio.wait_for(post(api, chat, number), 5)
        assert api.service.jobs.runs == 0 and model.calls == 1
        model.release()
        await api.settle()
        assert api.service.jobs.runs == 2  # the held job, then ONE job for the six writes
        done = (await api.client.get(f"/chats/{chat}")).json()
        assert done["message_count"] == 16 and done["summary_state"] == "idle"
        assert done["last_summarized_sequence"] == 14  # all but the verbatim window (1 turn)
        chain = (await api.client.get(f"/chats/{chat}/summaries")).json()["items"]
        assert (chain[0]["episode_first"], chain[-1]["episode_last"]) == (1, 7)


async def test_failed_job_retries_and_reports(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        chat = (await api.client.post("/chats", json={})).json()["id"]
        model.failures = 1
        model.hold()
        seen: list[Any] = []
        listener = asyncio.create_task(collect(api.client, chat, "summarized", seen))
        while api.service.hub.subscribers(chat) == 0:
            await asyncio.sleep(0.01)
        await post(api, chat, 0)
        await post(api, chat, 1)
        await asyncio.wait_for(model.entered.wait(), 5)
        model.release()
        await asyncio.wait_for(listener, 10)
        appended = [data["message_count"] for kind, data in seen if kind == "appended"]
        assert appended == [2, 4]
        kinds = [kind for kind, _ in seen if kind != "appended"]
        assert kinds == ["state", "summarizing", "failed", "summarizing", "summarized"]
        failed = dict(seen)["failed"]
        assert failed["state"] == "failed" and "model is down" in failed["error"]
        summarized = seen[-1][1]
        assert summarized["chat_id"] == chat and summarized["episode_ranges"] == [[1, 1]]
        chat_now = (await api.client.get(f"/chats/{chat}")).json()
        assert chat_now["summary_state"] == "idle" and chat_now["last_error"] is None
        metrics = (await api.client.get("/metrics")).text
        assert 'longtalk_summary_jobs_total{outcome="failed"} 1.0' in metrics
        for _ in range(200):  # the closed stream unsubscribed
            if api.service.hub.subscribers(chat) == 0:
                break
            await asyncio.sleep(0.01)
        assert api.service.hub.subscribers(chat) == 0


async def test_failed_state_is_visible_on_the_chat(tmp_path: Path, model: SummaryModel) -> None:
    settings = make_settings(tmp_path, summary_retry_seconds=60, summary_retry_max_seconds=120)
    async with running(settings, model) as api:
        chat = (await api.client.post("/chats", json={})).json()["id"]
        model.failures = 5
        await post(api, chat, 0)
        await post(api, chat, 1)
        await api.settle()
        failed = (await api.client.get(f"/chats/{chat}")).json()
        assert failed["summary_state"] == "failed" and "model is down" in failed["last_error"]
        assert failed["last_summarized_sequence"] == 0 and failed["message_count"] == 4
        await post(api, chat, 2)  # writes still work; the retry is scheduled, not hammered
        await api.settle()
        assert model.calls == 1
        model.failures = 0
        forced = (await api.client.post(f"/chats/{chat}/summarize")).json()
        assert forced["outcome"] == "summarized" and forced["summary_state"] == "idle"


async def test_restart_with_pending_work(tmp_path: Path, model: SummaryModel) -> None:
    settings = make_settings(tmp_path)
    async with running(settings, model, transport="uvicorn") as api:
        chat = (await api.client.post("/chats", json={})).json()["id"]
        model.hold()
        for number in range(5):
            await post(api, chat, number)
        await asyncio.wait_for(model.entered.wait(), 5)
    # the service stopped mid-job: nothing was summarized, nothing is lost
    async with open_engine(settings, model) as engine:
        stored = await engine.storage.get_chat(chat)
        assert stored is not None
        assert (stored.message_count, stored.last_summarized_sequence) == (10, 0)
        await engine.append(chat, [Message(role="user", content="written while down")])
    fresh = SummaryModel()
    async with running(settings, fresh, transport="uvicorn") as api:
        await api.settle()
        after = (await api.client.get(f"/chats/{chat}")).json()
        assert after["message_count"] == 11
        assert after["last_summarized_sequence"] == 10 and fresh.calls >= 1
        chain = (await api.client.get(f"/chats/{chat}/summaries")).json()["items"]
        assert (chain[0]["episode_first"], chain[-1]["episode_last"]) == (1, 5)


async def test_jobs_run_with_bounded_concurrency(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path, summary_workers=2), model) as api:
        model.hold()
        chats = [(await api.client.post("/chats", json={})).json()["id"] for _ in range(5)]
        for chat in chats:
            await post(api, chat, 0)
            await post(api, chat, 1)
        for _ in range(500):  # both workers take a chat...
            if model.calls == 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # ...and no third job starts while they are held
        states = [(await api.client.get(f"/chats/{c}")).json()["summary_state"] for c in chats]
        assert states.count("summarizing") == 2 and model.calls == 2
        model.release()
        await api.settle()
        assert model.calls == 5


async def test_app_opens_its_own_memory(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            chat = (await client.post("/chats", json={"id": "own"})).json()
            assert chat["id"] == "own"
            health = (await client.get("/healthz")).json()
            assert health["checks"]["llm"]["status"] == "disabled"  # offline summaries
