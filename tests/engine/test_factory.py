import logging
from pathlib import Path

import pytest

from longtalk.config import MemoryConfig, Settings, SupervisorConfig, VectorsConfig
from longtalk.core.messages import assistant, user
from longtalk.factory import open_memory
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.config import StorageConfig
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.storage.sqlite import SqliteStorage
from longtalk.vectors.base import NullVectorReader


def settings(tmp_path: Path, vectors: str | None = None, **memory: object) -> Settings:
    return Settings(
        supervisor=SupervisorConfig(memory=MemoryConfig(**memory)),  # type: ignore[arg-type]
        storage=StorageConfig(sqlite_path=tmp_path / "m.db"),
        vectors=VectorsConfig(url=vectors or f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


SUNNY = "Sunny all day, 24 degrees, with a light breeze from the sea in the afternoon."


async def test_embedded_defaults_recall_an_old_turn_end_to_end(tmp_path: Path) -> None:
    config = settings(tmp_path, summary_recent_turns=2, summary_trigger_tokens=20)
    async with open_memory(config) as memory:
        assert isinstance(memory.storage, SqliteStorage)
        assert isinstance(memory.recall, HybridRetriever)
        chat = await memory.create_chat("trip")
        await memory.run_turn(
            chat.id, [user("My sister Ines is allergic to peanuts."), assistant("Noted.")]
        )
        for i in range(6):
            weather = [user(f"What is the weather on day {i} in Lisbon?"), assistant(SUNNY)]
            await memory.run_turn(chat.id, weather)
        question = "Which food allergy does Ines have?"
        context = await memory.get_context(chat.id, question, budget_tokens=200)
    recalled = context.part("recalled")
    assert recalled is not None
    assert "allergic to peanuts" in recalled.text and recalled.sequences[0] == 1
    assert "allergic to peanuts" not in (context.part("verbatim") or recalled).text


async def test_rag_ranking_picks_the_ranker(tmp_path: Path) -> None:
    async with open_memory(settings(tmp_path)) as memory:
        assert isinstance(memory.recall, HybridRetriever)
        assert memory.recall.ranking.fusion == "learned"
        assert memory.budget.length_penalty == 1.0  # fill by relevance per token
        assert memory.budget.recall_answered > 0  # scores relative to the best match
    async with open_memory(settings(tmp_path, rag_ranking="weighted")) as memory:
        assert isinstance(memory.recall, HybridRetriever)
        assert memory.recall.ranking.fusion == "weighted"
        assert memory.budget.length_penalty == 0.0  # fused scores fill best first
        assert memory.budget.recall_answered == 0.0  # and are not relative to a best match
    with pytest.raises(ValueError, match="rag_ranking"):
        MemoryConfig(rag_ranking="bm25")  # type: ignore[arg-type]


async def test_an_unusable_vector_store_degrades_to_running_summary(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    with caplog.at_level(logging.WARNING):
        async with open_memory(settings(tmp_path, f"qdrant-edge:{blocker}")) as memory:
            assert isinstance(memory.recall, NullVectorReader)
            await memory.run_turn("c", [user("hello")]) if await memory.create_chat("c") else None
            context = await memory.get_context("c", "hello?")
    assert [p.kind for p in context.parts] == ["verbatim"]
    assert "recall is off" in caplog.text


async def test_semantic_truncation_uses_the_bundled_embedder(tmp_path: Path) -> None:
    long_message = (
        "I spent the morning repainting the garden fence. "
        "Our flight to Porto leaves at nine on Friday. "
        "The neighbours' cat watched me the whole time. "
        "Later I fixed the squeaky gate as well."
    )
    config = settings(
        tmp_path,
        strategy="running_summary",
        truncation_strategy="semantic",
        truncation_max_chars=60,
    )
    async with open_memory(config) as memory:
        await memory.create_chat("c")
        await memory.append("c", [user(long_message), assistant("ok")])
        context = await memory.get_context("c", "When does our plane depart?")
    shown = context.verbatim[0].content
    assert len(shown) <= 60 and "Porto" in shown


async def test_not_persisting_summaries_keeps_the_memory_in_process(tmp_path: Path) -> None:
    async with open_memory(settings(tmp_path, persist_summary=False, strategy="none")) as memory:
        assert isinstance(memory.storage, InMemoryStorage)
    assert not (tmp_path / "m.db").exists()


async def test_the_vector_store_follows_the_storage_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path / "data"))
    for storage, where in (
        (StorageConfig(), tmp_path / "data" / "longtalk-vectors"),
        (StorageConfig(sqlite_path=tmp_path / "a" / "chats.db"), tmp_path / "a" / "chats-vectors"),
        (StorageConfig(url=f"sqlite:///{tmp_path}/b/x.db"), tmp_path / "b" / "x-vectors"),
    ):
        async with open_memory(Settings(storage=storage)) as memory:
            assert isinstance(memory.recall, HybridRetriever)
            store = memory.recall.store
            assert isinstance(store, QdrantEdgeStore) and store.path == where
            chat = await memory.create_chat("c")
            await memory.append(chat.id, [user("kept beside its database")])
        assert where.is_dir()
    assert (tmp_path / "data" / "longtalk.db").is_file()


async def test_in_memory_storage_keeps_its_vectors_in_a_scratch_directory() -> None:
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    async with open_memory(Settings(storage=StorageConfig(url="memory:"))) as memory:
        assert isinstance(memory.recall, HybridRetriever)
        store = memory.recall.store
        assert isinstance(store, QdrantEdgeStore)
        scratch = store.path
        chat = await memory.create_chat("c")
        await memory.append(chat.id, [user("gone with the process"), assistant("yes")])
        assert scratch.is_dir()
    assert not scratch.exists()
