"""Indexing leased per chat: replicas on one database embed every turn once, kills included."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from cluster import Client, Cluster, config_text
from fastapi import FastAPI
from service_harness import uvicorn_server

from longtalk.config import Settings
from longtalk.core.messages import Message
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.service import create_app
from longtalk.service.leased_indexing import LeasedIndexPass
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.index_leases import IndexLeases
from longtalk.storage.resolve import from_url
from longtalk.testing import RecordingEmbedder
from longtalk.vectors.pgvector import PgVectorStore


def settings(dsn: str) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"url": dsn},
            "vectors": {"url": "null:"},
            "supervisor": {
                "memory": {"strategy": "rag_augmented", "summary_trigger_tokens": 10**6}
            },
            "service": {"job_poll_seconds": 0.2},  # leases of 30 s: none expires here
        }
    )


@asynccontextmanager
async def replicas(
    dsn: str, embedder: RecordingEmbedder, count: int
) -> AsyncIterator[list[tuple[FastAPI, httpx.AsyncClient]]]:
    """``count`` services on one database and one pgvector table, sharing the embedder."""
    config = settings(dsn)
    async with AsyncExitStack() as stack:
        made = []
        for _ in range(count):
            storage = await stack.enter_async_context(from_url(config.storage))
            store = PgVectorStore(dsn)
            stack.push_async_callback(store.close)
            recall = HybridRetriever(store, embedder)
            engine = MemoryEngine(storage, config=config.memory, recall=recall)
            app = create_app(config, engine=engine)
            base_url = await stack.enter_async_context(uvicorn_server(app))
            client = await stack.enter_async_context(httpx.AsyncClient(base_url=base_url))
            made.append((app, client))
        yield made


def turns(chat: int, round_: int) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": f"Chat {chat} asks question {round_} about Lisbon trams."},
            {"role": "assistant", "content": f"Chat {chat} hears answer {round_}: take tram 28."},
        ]
    }


async def lagging(dsn: str) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        return int(
            await connection.fetchval(
                "SELECT count(*) FROM chats WHERE indexed_sequence < message_count"
            )
        )
    finally:
        await connection.close()


async def wait_indexed(dsn: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while await lagging(dsn):
        assert time.monotonic() < deadline, f"{await lagging(dsn)} chats still lag"
        await asyncio.sleep(0.2)


async def stored_points(dsn: str) -> tuple[int, int, int]:
    """Points in the pgvector table, distinct (chat, sequence) among them, stored messages."""
    connection = await asyncpg.connect(dsn)
    try:
        row = await connection.fetchrow(
            "SELECT count(*), count(DISTINCT (chat_id, sequence)) FROM longtalk_turns"
        )
        messages = await connection.fetchval("SELECT count(*) FROM messages")
        return int(row[0]), int(row[1]), int(messages)
    finally:
        await connection.close()


async def test_replicas_embed_every_turn_once(database: str) -> None:
    embedder = RecordingEmbedder(MiniLMEmbedder())
    async with replicas(database, embedder, count=3) as services:
        for app, _ in services:
            assert isinstance(app.state.service.indexer.index_pass, LeasedIndexPass)
        clients = [client for _, client in services]
        chats = [(await clients[0].post("/chats", json={})).json()["id"] for _ in range(12)]

        async def write(number: int, chat: str) -> None:
            for round_ in range(6):  # every replica writes to every chat, so every one indexes
                client = clients[(number + round_) % len(clients)]
                response = await client.post(f"/chats/{chat}/messages", json=turns(number, round_))
                assert response.status_code == 201, response.text

        await asyncio.gather(*(write(number, chat) for number, chat in enumerate(chats)))
        await wait_indexed(database, timeout=120)
        for app, _ in services:  # every run has ended and been counted (none is cut short)
            await asyncio.wait_for(app.state.service.indexer.drain(), 60)
        for app, _ in services:  # nothing is left for anyone: no run embeds anything more
            await app.state.service.indexer.stop()
        indexed = [
            app.state.service.metrics.registry.get_sample_value("longtalk_indexed_turns_total")
            for app, _ in services
        ]
    points, distinct, messages = await stored_points(database)
    assert messages == 12 * 6 * 2 and points == distinct == messages
    assert len(embedder.texts) == messages  # each turn embedded once across the replicas
    assert len(set(embedder.texts)) == messages
    assert sum(indexed) == messages  # no replica read turns another one was indexing


async def test_leases_skip_held_chats_and_expire(database: str) -> None:
    config = settings(database)
    async with from_url(config.storage) as storage:
        assert isinstance(storage, PostgresStorage)
        chats = [await storage.create_chat() for _ in range(3)]
        assert await IndexLeases(storage, owner="a", lease=1.0).claim(10) == []  # none lags
        for chat in chats:
            await storage.append_messages(chat.id, [Message(role="user", content="hello")])
        first = IndexLeases(storage, owner="first", lease=1.0)
        second = IndexLeases(storage, owner="second", lease=1.0)
        held = await first.claim(2)
        assert held == [chats[0].id, chats[1].id]  # the longest waiting first
        assert await second.claim(10) == [chats[2].id]  # held chats are skipped
        assert await second.claim(10) == []
        await second.release([chats[2].id])
        assert await first.renew(held) == 2
        await asyncio.sleep(1.2)  # "first" died: its leases run out
        assert sorted(await second.claim(10)) == sorted([*held, chats[2].id])
        assert await first.renew(held) == 0  # lost, and a release of lost leases is a no-op
        await first.release(held)
        assert await first.claim(10) == []


async def leased_and_lagging(connection: asyncpg.Connection, pid: int) -> int:
    """Chats that still lag and that the replica with process id ``pid`` holds."""
    return int(
        await connection.fetchval(
            "SELECT count(*) FROM chats WHERE index_lease_owner LIKE $1 "
            "AND indexed_sequence < message_count",
            f"%:{pid}:%",
        )
    )


async def test_a_replica_killed_mid_indexing_leaves_no_turn_unindexed(
    database: str, tmp_path: Path
) -> None:
    config = tmp_path / "agents.yaml"
    text = config_text(database, "http://127.0.0.1:9", vectors=f"pgvector:{database}")
    text = text.replace("running_summary", "rag_augmented")
    config.write_text(text.replace("summary_trigger_tokens: 60", "summary_trigger_tokens: 1000000"))
    cluster = Cluster(config)
    cluster.migrate()
    connection = await asyncpg.connect(database)
    client = Client(cluster, 0)
    try:
        await cluster.up(2)
        victim = cluster.replicas[0].process.pid
        chats = [(await client.send("chat", "POST", "/chats", json={})).json()["id"]]
        chats += [(await client.send("chat", "POST", "/chats", json={})).json()["id"]]
        chats += [
            (await client.send("chat", "POST", "/chats", json={})).json()["id"] for _ in range(22)
        ]
        orphaned = 0

        async def kill_mid_indexing() -> None:
            nonlocal orphaned
            while not await leased_and_lagging(connection, victim):
                await asyncio.sleep(0.01)
            cluster.kill(0)  # kill -9 while it holds leases on chats that still lag
            orphaned = await leased_and_lagging(connection, victim)

        killer = asyncio.create_task(kill_mid_indexing())
        for round_ in range(8):  # both replicas get appends, so both index
            for number, chat in enumerate(chats):
                headers = {"Idempotency-Key": f"{chat}-{round_}"}
                path = f"/chats/{chat}/messages"
                body = turns(number, round_)
                response = await client.send("append", "POST", path, json=body, headers=headers)
                assert response.status_code == 201, response.text
        await asyncio.wait_for(killer, 60)
        assert orphaned > 0 and not cluster.replicas[0].alive
        await wait_indexed(database, timeout=180)  # the survivor takes them once they expire
        points, distinct, messages = await stored_points(database)
        assert messages == 24 * 8 * 2 and points == distinct == messages
    finally:
        await client.close()
        await connection.close()
        cluster.stop()
