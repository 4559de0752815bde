"""Deleting over HTTP: a chat, a user's chats, the caller's tenant; and nothing is left.

The service runs on real SQLite with recall on a real Qdrant Edge shard (hashing embedder);
after each deletion the deleted text is looked for in the store's files, and the rows,
summaries, titles and idempotent-append records are looked for through the API.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_harness import make_settings

from longtalk.embed.hashing import HashingEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.service import create_app
from longtalk.storage.sqlite import SqliteStorage
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

KEYS = {"key-a": "tenant-a", "key-b": "tenant-b"}
A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}
SECRET = {chat_id: f"pelican{uuid.uuid4().hex}" for chat_id in ("a1", "a2", "b1", "x")}
"""One random token per chat: compressed segments cannot hide it (it repeats nothing)."""


def files_holding(root: Path, text: str) -> list[str]:
    needle = text.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = make_settings(tmp_path, keys=KEYS)
    config = settings.memory.model_copy(update={"strategy": "rag_augmented"})
    store = QdrantEdgeStore(tmp_path / "vectors")
    storage = SqliteStorage(tmp_path / "longtalk.db")
    engine = MemoryEngine(storage, config=config, recall=HybridRetriever(store, HashingEmbedder()))
    app = create_app(settings, engine=engine)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http
            await app.state.service.settle()
    await store.close()
    await storage.close()


async def chat_with_text(
    client: httpx.AsyncClient, headers: dict[str, str], chat_id: str, user: str
) -> None:
    body = {"id": chat_id, "user": user, "title": f"{SECRET[chat_id]} title"}
    assert (await client.post("/chats", json=body, headers=headers)).status_code == 201
    messages = {
        "messages": [
            {"role": "user", "content": f"The code is {SECRET[chat_id]}"},
            {"role": "assistant", "content": f"{chat_id}: noted"},
            {"role": "user", "content": f"{chat_id}: and the harbour opens at nine"},
            {"role": "assistant", "content": f"{chat_id}: noted too"},
        ]
    }
    headers = {**headers, "Idempotency-Key": "append-1"}
    response = await client.post(f"/chats/{chat_id}/messages", json=messages, headers=headers)
    assert response.status_code == 201, response.text
    assert (await client.post(f"/chats/{chat_id}/summarize", headers=headers)).status_code == 200


async def settle(client: httpx.AsyncClient) -> None:
    app: Any = client._transport.app  # type: ignore[attr-defined]
    await app.state.service.settle()


async def test_delete_a_user_removes_their_chats_and_vectors_only(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await chat_with_text(client, A, "a1", "ann")
    await chat_with_text(client, A, "a2", "bob")
    await chat_with_text(client, B, "b1", "ann")  # the same user name, another tenant
    await settle(client)
    assert files_holding(tmp_path / "vectors", SECRET["a1"])
    response = await client.delete("/users/ann", headers=A)
    assert response.status_code == 200, response.text
    assert response.json() == {"tenant": "tenant-a", "user": "ann", "deleted_chats": ["a1"]}
    assert (await client.get("/chats/a1", headers=A)).status_code == 404
    assert (await client.get("/chats/a1/messages", headers=A)).status_code == 404
    assert (await client.get("/chats/a2", headers=A)).status_code == 200
    assert (await client.get("/chats/b1", headers=B)).json()["user"] == "ann"
    assert files_holding(tmp_path / "vectors", SECRET["a1"]) == []
    assert files_holding(tmp_path / "vectors", SECRET["b1"])
    again = await client.delete("/users/ann", headers=A)
    assert again.status_code == 200 and again.json()["deleted_chats"] == []


async def test_delete_the_tenant_needs_confirmation_and_spares_other_tenants(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await chat_with_text(client, A, "a1", "ann")
    await chat_with_text(client, A, "a2", "bob")
    await chat_with_text(client, B, "b1", "ann")
    await settle(client)
    refused = await client.delete("/tenant", headers=A)
    assert refused.status_code == 409 and "confirm='tenant-a'" in refused.text
    wrong = await client.delete("/tenant", params={"confirm": "tenant-b"}, headers=A)
    assert wrong.status_code == 409
    assert len((await client.get("/chats", headers=A)).json()["items"]) == 2
    response = await client.delete("/tenant", params={"confirm": "tenant-a"}, headers=A)
    assert response.status_code == 200, response.text
    assert response.json()["deleted_chats"] == ["a1", "a2"]
    assert (await client.get("/chats", headers=A)).json()["items"] == []
    assert files_holding(tmp_path / "vectors", SECRET["a1"]) == []
    assert files_holding(tmp_path / "vectors", SECRET["a2"]) == []
    assert (await client.get("/chats/b1", headers=B)).status_code == 200
    assert files_holding(tmp_path / "vectors", SECRET["b1"])


async def test_a_deleted_chat_leaves_no_row_title_summary_or_idempotency_record(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    await chat_with_text(client, A, "x", "ann")
    await settle(client)
    assert files_holding(tmp_path / "vectors", SECRET["x"]) and files_holding(tmp_path, SECRET["x"])
    assert (await client.get("/chats/x/summaries", headers=A)).json()["items"]
    assert (await client.delete("/chats/x", headers=A)).status_code == 204
    assert files_holding(tmp_path, SECRET["x"]) == []  # the vectors, the SQLite files and logs
    created = await client.post("/chats", json={"id": "x"}, headers=A)
    assert created.status_code == 201 and created.json()["title"] is None
    assert (await client.get("/chats/x/summaries", headers=A)).json()["items"] == []
    retry = {"messages": [{"role": "user", "content": "a new first message"}]}
    headers = {**A, "Idempotency-Key": "append-1"}  # the key the deleted chat used
    replayed = await client.post("/chats/x/messages", json=retry, headers=headers)
    assert replayed.status_code == 201, replayed.text
    assert [m["message"]["content"] for m in replayed.json()["stored"]] == ["a new first message"]
