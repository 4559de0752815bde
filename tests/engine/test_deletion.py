"""Deletion reaches every copy: rows, recall vectors, and the vector store's files.

Real SQLite, a real Qdrant Edge shard on disk and the hashing embedder (the bundled
fallback, deterministic and fast); the deleted text is looked for byte by byte in every
file under the store's directory.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.engine import MemoryEngine, index_later
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.sqlite import SqliteStorage
from longtalk.testing import RecordingRecall
from longtalk.vectors.base import RecallScope
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

SECRET = "ZEBRA-4471-vault"
Parts = tuple[MemoryEngine, RecordingRecall, QdrantEdgeStore]


def files_holding(root: Path, text: str) -> list[str]:
    """Every file under ``root`` whose bytes contain ``text``."""
    needle = text.encode()
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and needle in p.read_bytes()
    )


@pytest.fixture
async def parts(tmp_path: Path) -> AsyncIterator[Parts]:
    store = QdrantEdgeStore(tmp_path / "vectors")
    recall = RecordingRecall(HybridRetriever(store, HashingEmbedder()))
    storage = SqliteStorage(tmp_path / "chats.db")
    config = MemoryConfig(strategy="rag_augmented", summary_recent_turns=1)
    engine = MemoryEngine(storage, config=config, recall=recall)
    yield engine, recall, store
    await store.close()
    await storage.close()


async def recalled(engine: MemoryEngine, chat_id: str, query: str) -> list[str]:
    chat = await engine.storage.get_chat(chat_id)
    assert chat is not None
    turns = await engine.recall.get_relevant_history(
        query, engine.scope(chat), k=10, similarity_threshold=0.0
    )
    return [turn.message.content for turn in turns]


async def test_an_indexing_run_racing_the_delete_leaves_no_vector_behind(
    parts: Parts, tmp_path: Path
) -> None:
    engine, recall, store = parts
    await engine.create_chat("x")
    await engine.append("x", [user(f"The code is {SECRET}"), assistant("noted")], after=index_later)
    recall.gate.clear()
    indexing = asyncio.create_task(engine.index_chat("x"))  # read the turns, now held
    await asyncio.wait_for(recall.entered.wait(), 5)
    assert await engine.delete_chat("x")
    await engine.create_chat("x")  # the same id, the same tenant: another chat
    await engine.append(
        "x", [user("what is the code?"), assistant("which one?")], after=index_later
    )
    recall.gate.set()
    await indexing  # stores the deleted chat's turns, finds it gone, deletes them
    await engine.index_chat("x")
    chat = await engine.storage.get_chat("x")
    assert chat is not None and chat.indexed_sequence == 2
    found = await recalled(engine, "x", f"the code {SECRET}")
    assert sorted(found) == ["what is the code?", "which one?"]
    assert await store.count() == 2
    assert files_holding(tmp_path / "vectors", SECRET) == []


async def test_deleted_text_is_not_readable_in_the_store_files(
    parts: Parts, tmp_path: Path
) -> None:
    engine, _, store = parts
    for chat_id, text in [("gone", SECRET), ("kept", "the harbour opens at nine")]:
        await engine.create_chat(chat_id)
        await engine.append(chat_id, [user(text), assistant(f"ok, {chat_id}")])
    await store.close()  # flushed: the text is on disk now
    await store.setup(dimension=384, model_id=HashingEmbedder().model_id)
    assert files_holding(tmp_path / "vectors", SECRET)
    assert await engine.delete_chat("gone")
    assert files_holding(tmp_path / "vectors", SECRET) == []
    assert await recalled(engine, "kept", "when does the harbour open") == [
        "the harbour opens at nine",
        "ok, kept",
    ]
    await store.close()  # and still after a restart
    await store.setup(dimension=384, model_id=HashingEmbedder().model_id)
    assert files_holding(tmp_path / "vectors", SECRET) == []
    assert await store.count() == 2


async def test_delete_by_user_and_by_tenant_reaches_the_vectors(
    parts: Parts, tmp_path: Path
) -> None:
    engine, _, store = parts
    vectors = tmp_path / "vectors"
    token = {chat_id: f"tok{uuid.uuid4().hex}" for chat_id in ("a1", "a2", "b1")}
    for chat_id, tenant, who in [("a1", "a", "ann"), ("a2", "a", "bob"), ("b1", "b", "ann")]:
        await engine.create_chat(chat_id, tenant=tenant, user=who)
        await engine.append(chat_id, [user(f"{chat_id} says {token[chat_id]}")])
    gone = await engine.delete_user("ann", tenant="a")
    assert [chat.id for chat in gone] == ["a1"]
    assert files_holding(vectors, token["a1"]) == []
    assert files_holding(vectors, token["a2"]) and files_holding(vectors, token["b1"])
    assert await store.count() == 2
    gone = await engine.delete_tenant("a")  # a second deletion, from the rebuilt shard
    assert [chat.id for chat in gone] == ["a2"]
    assert files_holding(vectors, token["a2"]) == [] and files_holding(vectors, token["b1"])
    assert await recalled(engine, "b1", "says") == [f"b1 says {token['b1']}"]
    assert await engine.delete_tenant("a") == []
    segments = sorted(p.name for p in (vectors / "shard" / "segments").iterdir())
    await engine.create_chat("empty", tenant="b")
    assert await engine.delete_chat("empty")  # no vector deleted: no rebuild
    assert sorted(p.name for p in (vectors / "shard" / "segments").iterdir()) == segments


async def test_an_interrupted_compaction_is_undone_when_the_store_opens(tmp_path: Path) -> None:
    root = tmp_path / "vectors"
    store = QdrantEdgeStore(root)
    await HybridRetriever(store, HashingEmbedder()).store_turns(
        RecallScope("c"), [(1, user("a kept turn"))]
    )
    await store.close()
    (root / "shard").rename(root / "shard.old")  # stopped between the two renames
    (root / "shard.compacting").mkdir()
    await store.setup(dimension=384, model_id=HashingEmbedder().model_id)
    assert await store.count() == 1
    assert sorted(p.name for p in root.iterdir()) == ["longtalk.json", "longtalk.lock", "shard"]
    await store.close()
