"""``rag_relevance_floor``: recalled turns far below the best one are left out."""

from __future__ import annotations

from pathlib import Path

from longtalk.config import MemoryConfig
from longtalk.core.context import ContextPart
from longtalk.core.messages import assistant, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.resolve import from_url
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.tools.demo import DEMO_QUERY
from longtalk.tools.ingest import DEMO_CHAT_ID, demo_path, ingest_chats, read_chats
from longtalk.vectors.base import RecalledTurn, above_floor
from longtalk.vectors.qdrant_edge import QdrantEdgeStore


def _turn(sequence: int, score: float) -> RecalledTurn:
    return RecalledTurn(user(f"turn {sequence}"), score, sequence)


def test_the_floor_is_a_share_of_the_best_turn_and_keeps_equals() -> None:
    found = [_turn(1, 0.8), _turn(2, 0.4), _turn(5, 0.39), _turn(7, 0.01)]
    assert [t.sequence for t in above_floor(found, 0.5)] == [1, 2]
    assert above_floor(found, 0.0) == found
    assert above_floor([], 0.5) == []


def test_a_turn_beside_a_relevant_one_is_kept_under_the_floor() -> None:
    found = [_turn(10, 0.9), _turn(11, 0.001), _turn(9, 0.002), _turn(13, 0.001), _turn(0, 0.001)]
    kept = above_floor(found, 0.5)
    assert [t.sequence for t in kept] == [10, 11, 9]  # the exchange around it, in rank order
    # only what is beside a relevant turn: not beside a kept neighbour, nor an unnumbered turn
    assert [t.sequence for t in above_floor([_turn(10, 0.9), _turn(12, 0.001)], 0.5)] == [10]


async def test_a_read_recalls_nothing_under_the_floor(tmp_path: Path) -> None:
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / "vectors"), MiniLMEmbedder())
        contexts = {}
        for floor in (0.0, 0.3):
            config = MemoryConfig(rag_relevance_floor=floor, summary_recent_turns=1)
            engine = MemoryEngine(storage, config=config, recall=recall)
            chat = f"c{floor}"
            await engine.create_chat(chat)
            turns = [user("My kitten Miso is grey."), assistant("Lovely.")]
            for n in range(30):
                turns += [user(f"Note {n}: the printer on floor {n} jams."), assistant("Noted.")]
            await engine.append(chat, turns)
            contexts[floor] = await engine.get_context(
                chat, "What is my kitten called?", budget_tokens=400
            )
        await recall.close()
    off, on = contexts[0.0].part("recalled"), contexts[0.3].part("recalled")
    assert off is not None and on is not None
    assert "Miso" in on.text and len(on.sequences) < len(off.sequences)
    assert "Lovely." in on.text  # the reply said beside it stays, as one exchange
    assert "printer" in off.text and "printer" not in on.text
    assert _above_or_beside(on, 0.3)


async def test_the_default_floor_leaves_out_the_demos_filler(tmp_path: Path) -> None:
    embedder = MiniLMEmbedder()
    (whole,) = read_chats(demo_path(), chat_id=DEMO_CHAT_ID)
    async with from_url(f"sqlite:///{tmp_path / 'chats.db'}") as storage:
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / "vectors"), embedder)
        engines = {
            floor: MemoryEngine(
                storage,
                config=MemoryConfig() if floor is None else MemoryConfig(rag_relevance_floor=0),
                recall=recall,
                embedder=embedder,
                writer=OfflineSummaryWriter(embedder),
            )
            for floor in (None, 0)
        }
        await ingest_chats(engines[0], [whole])
        while (await engines[0].summarize(DEMO_CHAT_ID, force=True)).changed:
            pass
        shown = {}
        for floor, engine in engines.items():
            context = await engine.get_context(DEMO_CHAT_ID, DEMO_QUERY, budget_tokens=2000)
            shown[floor] = context.part("recalled")
        await recall.close()
    default, off = shown[None], shown[0]
    assert default is not None and off is not None
    floor = MemoryConfig().rag_relevance_floor
    assert min(off.scores) < floor * max(off.scores)  # the floor has filler to remove...
    assert _above_or_beside(default, floor)  # ...and removes it
    assert len(default.sequences) < len(off.sequences) and default.tokens < off.tokens
    assert "Douro" in default.text  # the turns the question asks about stay


def _above_or_beside(part: ContextPart, floor: float) -> bool:
    """Every turn of ``part`` is above ``floor`` of the best, or said right beside one that is."""
    best = max(part.scores)
    relevant = {
        seq for seq, score in zip(part.sequences, part.scores, strict=True) if score >= floor * best
    }
    return all(seq in relevant or {seq - 1, seq + 1} & relevant for seq in part.sequences)
