"""The episode-summary service's HTTP contract, as its Node client speaks it, over real HTTP.

From its documentation: summary rows are written with ``fetch`` and a ``JSON.stringify``
body (so ``Content-Type: text/plain;charset=UTF-8``): ``POST /summaries`` with
``{sessionId, content, tokenCount, episodeRange}`` creates a row, ``PATCH /summaries/{id}``
with ``{content, tokenCount, episodeRange}`` updates the latest one, and a summary grown
past its maximum starts a new row. ``sessionId`` is the session's integer id, and each
row's ``episodeRange`` ("259-263") covers only the episodes of its own pass.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.service import create_app
from longtalk.storage.sqlite import SqliteStorage

NODE_FETCH_HEADERS = {"content-type": "text/plain;charset=UTF-8"}


@asynccontextmanager
async def memory_service(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The longtalk service on 127.0.0.1 (an OS-chosen port) over a real SQLite file."""
    settings = Settings.model_validate({"supervisor": {"memory": {"strategy": "running_summary"}}})
    storage = SqliteStorage(tmp_path / "memory.db")
    app = create_app(settings, engine=MemoryEngine(storage, config=settings.memory))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client
    finally:
        server.should_exit = True
        await task
        await storage.close()


async def node_fetch(
    client: httpx.AsyncClient, method: str, url: str, body: dict[str, Any]
) -> httpx.Response:
    """``fetch(url, {method, body: JSON.stringify(body)})`` as Node sends it."""
    return await client.request(
        method, url, content=json.dumps(body, separators=(",", ":")), headers=NODE_FETCH_HEADERS
    )


async def test_the_node_client_creates_updates_and_chains_summary_rows(tmp_path: Path) -> None:
    async with memory_service(tmp_path) as client:
        session_id = 7  # the internal SQLite integer id, not the external UUID
        assert (await client.post("/chats", json={"id": str(session_id)})).status_code == 201

        # No existing summary: a fresh row for episodes 259-263.
        created = await node_fetch(
            client,
            "POST",
            "/summaries",
            {
                "sessionId": session_id,
                "content": "The user planned a trip to Lisbon and asked about trams.",
                "tokenCount": 14,
                "episodeRange": "259-263",
            },
        )
        assert created.status_code == 201, created.text
        latest = created.json()
        assert (latest["chat_id"], latest["episode_range"]) == ("7", "259-263")
        assert latest["token_count"] == 14

        # Latest summary under the maximum: the same row is updated with the new pass.
        updated = await node_fetch(
            client,
            "PATCH",
            f"/summaries/{latest['id']}",
            {
                "content": "The user planned Lisbon, chose tram 28 and booked Alfama.",
                "tokenCount": 15,
                "episodeRange": "264-268",
            },
        )
        assert updated.status_code == 200, updated.text
        assert updated.json()["id"] == latest["id"]
        assert updated.json()["version"] == latest["version"] + 1

        # Latest summary over the maximum: a new row, covering only its own pass.
        second = await node_fetch(
            client,
            "POST",
            "/summaries",
            {
                "sessionId": session_id,
                "content": "The user moved on to Porto hotels.",
                "tokenCount": 9,
                "episodeRange": "269-273",
            },
        )
        assert second.status_code == 201, second.text

        chain = (await client.get(f"/chats/{session_id}/summaries")).json()["items"]
        assert [(r["id"], r["episode_range"], r["token_count"]) for r in chain] == [
            (latest["id"], "264-268", 15),
            (second.json()["id"], "269-273", 9),
        ]
        assert chain[0]["summary_text"].startswith("The user planned Lisbon, chose tram 28")


async def test_the_node_client_gets_clear_errors_and_loses_nothing(tmp_path: Path) -> None:
    async with memory_service(tmp_path) as client:
        await client.post("/chats", json={"id": "7"})
        row = (
            await node_fetch(
                client, "POST", "/summaries", {"sessionId": 7, "content": "kept", "tokenCount": 1}
            )
        ).json()
        unknown = await node_fetch(
            client, "POST", "/summaries", {"sessionId": 8, "content": "x", "tokenCount": 1}
        )
        assert unknown.status_code == 404 and "'8'" in unknown.text
        bad_range = await node_fetch(
            client, "PATCH", f"/summaries/{row['id']}", {"episodeRange": "259 to 263"}
        )
        assert bad_range.status_code == 422 and "first-last" in bad_range.text
        not_json = await client.patch(
            f"/summaries/{row['id']}", content="content=x", headers=NODE_FETCH_HEADERS
        )
        assert not_json.status_code in (400, 422) and "JSON" in not_json.text
        chain = (await client.get("/chats/7/summaries")).json()["items"]
        assert [r["summary_text"] for r in chain] == ["kept"]
