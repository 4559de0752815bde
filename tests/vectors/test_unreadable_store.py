"""A vector store that cannot read an entry back is rebuilt from storage, not switched off.

The reproduction: metadata nested 130 levels deep, written into the embedded Qdrant edge
shard's write-ahead log, makes every later load fail (``RecursionLimitExceeded``). Payloads
are now flat (nested values go in as JSON text), and a shard that cannot be loaded is
emptied and indexed again from the messages, which storage always holds.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from longtalk.config import Settings
from longtalk.core.messages import assistant, user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.factory import open_memory
from longtalk.vectors.base import NullVectorReader, RecallScope, StoreUnreadableError, VectorPoint
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

FACT = "My sister Ines is allergic to peanuts, so no satay for her."
QUESTION = "Which allergy does Ines have?"


def nested(levels: int) -> dict[str, Any]:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"d": value}
    return value  # type: ignore[no-any-return]


def settings(tmp_path: Path) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "chats.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
        }
    )


def write_an_unreadable_entry(path: Path) -> None:
    """What an earlier version let through: a deep payload in the shard's write-ahead log."""
    shard = qe.EdgeShard.load(str(path / "shard"))  # the configuration stored with it
    point = qe.Point(
        "00000000-0000-0000-0000-000000000001", {"dense": [0.1] * 384}, {"m": nested(130)}
    )
    shard.update(qe.UpdateOperation.upsert_points([point]))
    shard.flush()
    shard.close()


async def test_nested_payload_values_round_trip_as_flat_entries(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path / "edge")
    await store.setup(dimension=4, model_id="m")
    scope = RecallScope(chat_id="c")
    payload = {"namespace": scope.namespace, "tenant": scope.tenant, "chat_id": "c",
               "sequence": 1, "metadata": nested(130), "tags": ["a", "b"]}  # fmt: skip
    await store.upsert([VectorPoint("p1", [0.1, 0.2, 0.3, 0.4], payload)])
    await store.close()
    again = QdrantEdgeStore(tmp_path / "edge")
    await again.setup(dimension=4, model_id="m")  # the write-ahead log reads back
    try:
        (found,) = await again.search(scope, dense=[0.1, 0.2, 0.3, 0.4], limit=1)
        (fetched,) = await again.fetch(scope, [1])
    finally:
        await again.close()
    assert found.payload["metadata"] == nested(130) == fetched.payload["metadata"]
    assert found.payload["tags"] == ["a", "b"] and "_json_fields" not in found.payload


async def test_an_unreadable_store_is_rebuilt_from_storage_and_recalls_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with open_memory(settings(tmp_path)) as memory:
        await memory.create_chat("trip")
        await memory.append("trip", [user(FACT), assistant("Noted: no peanuts.")])
    write_an_unreadable_entry(tmp_path / "vectors")
    broken = QdrantEdgeStore(tmp_path / "vectors")
    with pytest.raises(StoreUnreadableError, match="RecursionLimitExceeded"):
        await broken.setup(dimension=384, model_id=HashingEmbedder().model_id)
    await broken.close()

    with caplog.at_level(logging.WARNING):
        async with open_memory(settings(tmp_path)) as memory:
            assert not isinstance(memory.recall, NullVectorReader)  # recall stays on
            chat = await memory.storage.get_chat("trip")
            assert chat is not None and chat.indexed_sequence == 0  # to be indexed again
            assert (await memory.index_pending()).turns == 2
            turns = await memory.recall.get_relevant_history(
                QUESTION, memory.scope(chat), k=1, similarity_threshold=0.0
            )
    assert "rebuilt from storage" in caplog.text
    assert [turn.message.content for turn in turns] == [FACT]


async def test_searches_during_a_compaction_wait_for_the_swap_instead_of_failing(
    tmp_path: Path,
) -> None:
    store = QdrantEdgeStore(tmp_path / "edge")
    await store.setup(dimension=4, model_id="m")
    scopes = [RecallScope(chat_id=f"c{n}") for n in range(3)]
    points = [
        VectorPoint(
            f"{scope.chat_id}-{sequence}",
            [0.1 * sequence, 0.2, 0.3, 0.4],
            {
                "namespace": scope.namespace,
                "tenant": scope.tenant,
                "chat_id": scope.chat_id,
                "sequence": sequence,
            },
        )  # fmt: skip
        for scope in scopes
        for sequence in range(1, 40)
    ]
    await store.upsert(points)
    await store.delete(scopes[0])
    compaction = asyncio.ensure_future(store.compact())
    found: list[int] = []
    try:
        while not compaction.done():  # every search lands before, during or after the swap
            found.append(len(await store.search(scopes[1], dense=[0.1, 0.2, 0.3, 0.4])))
            found.append(len(await store.fetch(scopes[2], [1, 2])))
            await asyncio.sleep(0)
        await compaction
        assert await store.count() == 78
    finally:
        await store.close()
    assert len(found) > 10 and set(found) == {10, 2}
