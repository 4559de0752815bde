"""Appends commit messages only; the background indexer makes them recallable, retrying faults."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from longtalk.config import Settings
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.service import create_app
from longtalk.storage.resolve import from_url
from longtalk.vectors.qdrant_edge import QdrantEdgeStore


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


async def test_appends_are_indexed_in_the_background_and_faults_are_retried(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "service": {"summary_retry_seconds": 0.05, "summary_retry_max_seconds": 0.2},
        }
    )
    vectors = tmp_path / "vectors"
    vectors.write_text("in the way")  # the vector store cannot open until this goes
    async with from_url(settings.storage) as storage:
        store = QdrantEdgeStore(vectors)
        engine = MemoryEngine(storage, recall=HybridRetriever(store, embedder))
        app = create_app(settings, engine=engine)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://localhost"
            ) as client:
                chat = (await client.post("/chats", json={})).json()["id"]
                body = {"messages": [{"role": "user", "content": "my cat is called Miso"}]}
                response = await client.post(f"/chats/{chat}/messages", json=body)
                assert response.status_code == 201  # committed, whatever the index does
                await app.state.service.indexer.drain()
                health = (await client.get("/healthz")).json()
                assert health["status"] == "degraded"
                assert health["checks"]["index"]["lag_turns"] == 1
                assert (await client.get(f"/chats/{chat}")).json()["index_lag"] == 1

                vectors.unlink()  # the disk is back: the next retry indexes the turn
                for _ in range(100):
                    if (await client.get(f"/chats/{chat}")).json()["index_lag"] == 0:
                        break
                    await asyncio.sleep(0.05)
                assert (await client.get(f"/chats/{chat}")).json()["index_lag"] == 0
                health = (await client.get("/healthz")).json()
                assert health["checks"]["index"]["status"] == "ok"
                query = {"query": "what is the cat's name?", "budget_tokens": 500}
                context = (await client.post(f"/chats/{chat}/context", json=query)).json()
                assert "Miso" in context["text"]
                metrics = (await client.get("/metrics")).text
                assert "longtalk_indexed_turns_total 1.0" in metrics
        await store.close()
