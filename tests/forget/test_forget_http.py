"""Forgetting over HTTP, on a real server: the receipt as JSON, the text found nowhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI
from forget_traces import every_file, every_table
from test_forget_library import EXCHANGES, FORGOTTEN, SECRET, settings

from longtalk.client import AsyncClient, Client
from longtalk.engine import ForgetReceipt
from longtalk.service import create_app


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            yield client
    finally:
        server.should_exit = True
        await task


async def converse(client: httpx.AsyncClient, exchanges: list[tuple[str, str]]) -> None:
    for question, answer in exchanges:
        messages = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        response = await client.post("/chats/trip/messages", json={"messages": messages})
        assert response.status_code == 201, response.text
        response = await client.post("/chats/trip/summarize")
        assert response.status_code == 200, response.text


async def traces(client: httpx.AsyncClient, url: str, tmp_path: Path) -> str:
    query = {"query": f"What about {SECRET}s?", "budget_tokens": 4000}
    answers = [
        await client.post("/chats/trip/context", json=query),
        await client.post("/chats/trip/context", json={**query, "budget_tokens": 120}),
        await client.get("/chats/trip/messages"),
        await client.get("/chats/trip/summaries"),
        await client.get("/chats/trip"),
        await client.get("/users/maya/memory"),
    ]
    assert all(answer.status_code == 200 for answer in answers[:5])
    parts = [answer.text for answer in answers]
    parts += [await every_table(url), every_file(tmp_path / "vectors")]
    return "\n".join(parts).casefold()


async def test_forget_over_http(database_url: str, tmp_path: Path) -> None:
    app = create_app(settings(database_url, tmp_path))
    async with served(app) as client:
        created = await client.post("/chats", json={"id": "trip", "user": "maya"})
        assert created.status_code == 201, created.text
        await converse(client, EXCHANGES)
        assert SECRET in await traces(client, database_url, tmp_path)
        missing = await client.delete("/chats/nowhere/messages/1")
        assert missing.status_code == 404
        bad = await client.post("/chats/trip/forget", json={"sequences": []})
        assert bad.status_code == 422 and "sequences" in bad.text
        past = await client.post("/chats/trip/forget", json={"sequences": [999]})
        assert past.status_code == 422 and "sequences" in past.text
        answer = await client.delete(f"/chats/trip/messages/{FORGOTTEN}")
        assert answer.status_code == 200, answer.text
        receipt = answer.json()
        assert receipt["chat_id"] == "trip" and receipt["sequences"] == [FORGOTTEN]
        done = {(item["artefact"], item["action"]) for item in receipt["items"]}
        assert {("message", "removed"), ("fact", "removed"), ("digest", "rewritten")} <= done
        assert SECRET not in answer.text.casefold()
        assert SECRET not in await traces(client, database_url, tmp_path)
        base = str(client.base_url)
        async with AsyncClient(base) as remote:
            chat = await remote.chat("trip")
            batch = await chat.forget([5, 6])
        assert batch.sequences == (5, 6) and ("message", "removed") in kinds(batch)
        with Client(base) as remote_sync:
            sync_chat = await asyncio.to_thread(remote_sync.chat, "trip")
            single = await asyncio.to_thread(sync_chat.forget, [7])
        assert single.sequences == (7,)
        answer = await client.get("/chats/trip/messages")
        sequences = [m["sequence"] for m in answer.json()["items"]]
        assert not {FORGOTTEN, 5, 6, 7} & set(sequences)
        assert len(sequences) == 2 * len(EXCHANGES) - 4
        await converse(client, [(f"Day {n}: more sightseeing.", "Noted.") for n in range(10)])
        assert SECRET not in await traces(client, database_url, tmp_path)


def kinds(receipt: ForgetReceipt) -> set[tuple[str, str]]:
    return {(item.artefact, item.action) for item in receipt.items}


async def test_forget_a_fact_over_http(database_url: str, tmp_path: Path) -> None:
    app = create_app(settings(database_url, tmp_path))
    async with served(app) as client:
        await client.post("/chats", json={"id": "trip", "user": "maya"})
        await converse(client, EXCHANGES)
        facts = (await client.get("/chats/trip/facts")).json()["items"]
        (text,) = [fact["text"] for fact in facts if SECRET in fact["text"].casefold()]
        missing = await client.post("/chats/trip/facts/forget", json={"text": "no such fact"})
        assert missing.status_code == 404 and "text" in missing.text
        async with AsyncClient(str(client.base_url)) as remote:
            receipt = await (await remote.chat("trip")).forget_fact(text)
        assert ("fact", "removed") in kinds(receipt)
        await converse(client, [("Remember, I'm allergic to zorblatnuts.", "Of course.")])
        facts = (await client.get("/chats/trip/facts")).json()["items"]
        memory = (await client.get("/users/maya/memory")).json()["items"]
        assert not [item for item in facts + memory if SECRET in item["text"].casefold()]
