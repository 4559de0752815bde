"""A vector store of another embedding model is rebuilt from storage, never mixed."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from longtalk.config import Settings
from longtalk.core.messages import assistant, user
from longtalk.factory import open_memory
from longtalk.vectors.base import RecallScope


def settings(tmp_path: Path, embedder: str) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": embedder},
        }
    )


async def test_a_new_embedding_model_rebuilds_the_index_from_storage(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with open_memory(settings(tmp_path, "hashing")) as memory:
        await memory.create_chat("trip")
        await memory.append("trip", [user("My sister lives in Lisbon."), assistant("Lovely city.")])
        old_model = memory.recall.embedder.model_id  # type: ignore[union-attr]
        assert (await memory.storage.get_chat("trip")).indexed_sequence == 2  # type: ignore[union-attr]

    with caplog.at_level(logging.WARNING):
        async with open_memory(settings(tmp_path, "minilm")) as memory:
            retriever = memory.recall
            assert retriever.embedder.model_id != old_model  # type: ignore[union-attr]
            chat = await memory.storage.get_chat("trip")
            assert chat is not None and chat.indexed_sequence == 0  # every turn to redo
            scope = RecallScope(chat_id="trip", tenant="default")
            assert await retriever.store.fetch(scope, [1, 2]) == []  # type: ignore[union-attr]
            run = await memory.index_pending()
            assert run.turns == 2 and run.error is None
            hits = await retriever.get_relevant_history(
                "where does my sister live?", scope, k=1, similarity_threshold=0.0
            )
            assert [hit.message.content for hit in hits] == ["My sister lives in Lisbon."]
    assert "embedding model changed" in caplog.text

    async with open_memory(settings(tmp_path, "minilm")) as memory:  # same model: kept
        assert (await memory.storage.get_chat("trip")).indexed_sequence == 2  # type: ignore[union-attr]
