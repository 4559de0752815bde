"""A context read cuts the summary to size while recall embeds the query."""

from __future__ import annotations

import threading
from pathlib import Path

from longtalk.core.messages import assistant, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.resolve import from_url
from longtalk.summary.chain import ShownSummaries
from longtalk.testing import RecordingEmbedder
from longtalk.vectors.qdrant_edge import QdrantEdgeStore


async def test_the_summary_is_cut_while_the_query_embeds(tmp_path: Path) -> None:
    embedding = threading.Event()

    class Watched(RecordingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            embedding.set()
            return super().embed(texts)

    seen: list[bool] = []

    class Overlapping(ShownSummaries):
        def __call__(self, rows, *, max_tokens):  # type: ignore[no-untyped-def]
            seen.append(embedding.wait(2))  # is the query already in the embedder?
            return super().__call__(rows, max_tokens=max_tokens)

    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / "vectors"), Watched(MiniLMEmbedder()))
        engine = MemoryEngine(storage, recall=recall)
        engine.reader.shown_summaries = Overlapping(engine.counter)
        await engine.create_chat("c")
        turns = [
            user("I adopted a grey kitten named Miso."),
            assistant("Lovely! How old is Miso?"),
        ]
        await engine.append("c", turns * 20)
        embedding.clear()
        context = await engine.get_context("c", "What is the kitten called?", budget_tokens=200)
        assert seen == [True] and "Miso" in context.text
        await recall.close()
