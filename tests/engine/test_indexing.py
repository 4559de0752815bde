"""The recall index's outbox: turns are indexed from a durable watermark, never lost or doubled."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.embed.priority import BACKGROUND_NICE, in_background
from longtalk.engine import MemoryEngine, index_later
from longtalk.recall.outbox import RecallIndexer
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.storage.resolve import from_url
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

TURNS = 400


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def conversation(count: int) -> list:  # type: ignore[type-arg]
    return [
        (user if i % 2 == 0 else assistant)(f"turn {i}: we talked about topic number {i}")
        for i in range(count)
    ]


async def test_a_failed_run_keeps_the_watermark_and_the_next_run_indexes_everything(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        blocker = tmp_path / "vectors"
        blocker.write_text("not a directory")  # the store cannot open: a lost or broken disk
        broken = MemoryEngine(storage, recall=HybridRetriever(QdrantEdgeStore(blocker), embedder))
        for name in ("a", "b"):
            await broken.create_chat(name)
        await broken.append("a", conversation(6), after=index_later)
        await broken.append("b", conversation(4), after=index_later)
        run = await broken.index_pending()
        assert run.error and run.turns == 0
        assert [(c.id, c.index_lag) for c in await storage.index_backlog()] == [("a", 6), ("b", 4)]

        blocker.unlink()  # the disk is back
        store = QdrantEdgeStore(tmp_path / "vectors")
        engine = MemoryEngine(storage, recall=HybridRetriever(store, embedder))
        run = await engine.index_pending()
        assert (run.turns, run.chats, run.error) == (10, 2, None)
        assert await storage.index_backlog() == []
        assert await store.count() == 10
        assert (await engine.index_pending()).turns == 0  # nothing left, nothing doubled
        await engine.append("a", [user("the llama ate my homework")])  # the library path
        chat = await storage.get_chat("a")
        assert chat is not None and chat.index_lag == 0
        found = await engine.recall.get_relevant_history("llama", engine.scope(chat), k=1)
        assert found and "llama" in found[0].message.content
        await store.close()


async def test_reindex_rebuilds_a_chat_from_storage(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        store = QdrantEdgeStore(tmp_path / "vectors")
        engine = MemoryEngine(storage, recall=HybridRetriever(store, embedder))
        await engine.create_chat("a")
        await engine.append("a", conversation(8))
        assert await store.count() == 8
        chat = await storage.get_chat("a")
        assert chat is not None
        await store.delete(engine.scope(chat))  # the vectors are lost
        run = await engine.reindex("a")
        assert run.turns == 8 and await store.count() == 8
        await store.close()


WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from longtalk.core.messages import user
    from longtalk.embed.minilm import MiniLMEmbedder
    from longtalk.engine import MemoryEngine, index_later
    from longtalk.recall.retriever import HybridRetriever
    from longtalk.storage.resolve import from_url
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    async def main(root: Path, turns: int) -> None:
        async with from_url(f"sqlite:///{root / 'chats.db'}") as storage:
            engine = MemoryEngine(
                storage, recall=HybridRetriever(QdrantEdgeStore(root / "vectors"), MiniLMEmbedder())
            )
            await engine.create_chat("c")
            messages = [user(f"turn {i}: we talked about topic number {i}") for i in range(turns)]
            await engine.append("c", messages, after=index_later)
            while (run := await engine.index_pending(max_turns=32)).turns:
                print("indexed", run.turns, flush=True)

    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
    """
)


async def test_kill_9_during_indexing_then_restart_indexes_every_turn_once(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(tmp_path), str(TURNS)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert worker.stdout is not None
    for _ in range(3):  # let it index a few batches, then kill it mid-run
        line = await asyncio.wait_for(asyncio.to_thread(worker.stdout.readline), 120)
        assert line.startswith("indexed"), line
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)
    worker.stdout.close()
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        chat = await storage.get_chat("c")
        assert chat is not None and 0 < chat.indexed_sequence < TURNS
        store = QdrantEdgeStore(tmp_path / "vectors")
        engine = MemoryEngine(
            storage, config=MemoryConfig(), recall=HybridRetriever(store, embedder)
        )
        while (await engine.index_pending()).turns:
            pass
        chat = await storage.get_chat("c")
        assert chat is not None and chat.indexed_sequence == TURNS
        assert await store.count() == TURNS  # every turn once: none lost, none doubled
        await store.close()


class PriorityRecordingStore:
    """A turn store noting the nice value its embedding work would get (as the retriever's)."""

    def __init__(self) -> None:
        self.runs: list[tuple[int, int]] = []

    async def store_turns(self, scope: object, messages: list[object]) -> int:
        nice = await in_background(lambda: os.getpriority(os.PRIO_PROCESS, 0))
        self.runs.append((len(messages), nice))
        return len(messages)

    async def delete_chat(self, scope: object) -> None:
        """Nothing kept."""


async def test_an_indexer_behind_by_more_than_a_run_catches_up_at_the_process_priority() -> None:
    storage = InMemoryStorage()
    engine = MemoryEngine(storage)
    await engine.create_chat("a")
    await engine.append("a", conversation(10), after=index_later)
    store = PriorityRecordingStore()
    indexer = RecallIndexer(storage, store, engine.scope)  # type: ignore[arg-type]
    while (await indexer.index_pending(max_turns=4)).turns:
        pass
    base = os.getpriority(os.PRIO_PROCESS, 0)
    lowered = min(19, base + BACKGROUND_NICE)
    # 10 and then 6 turns wait for runs of 4: behind, at the process's priority; the last
    # 2 fit one run: background again.
    assert store.runs == [(4, base), (4, base), (2, lowered)]
