"""``context_order``: where the parts stand, and that the stable ones repeat byte for byte."""

from __future__ import annotations

from pathlib import Path

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.resolve import from_url
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

TOPICS = ["kitten Miso", "trip to Lisbon", "sourdough starter", "marathon training", "new job"]


def _turns(round_: int) -> list:  # type: ignore[type-arg]
    topic = TOPICS[round_ % len(TOPICS)]
    return [
        user(f"Round {round_}: I keep thinking about my {topic}, it matters a lot to me."),
        assistant(f"Tell me more about the {topic} (round {round_})."),
    ]


async def _contexts(tmp_path: Path, order: str) -> list:  # type: ignore[type-arg]
    async with from_url(f"sqlite:///{tmp_path / f'{order}.db'}") as storage:
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / order), MiniLMEmbedder())
        config = MemoryConfig(context_order=order, summary_recent_turns=2)  # type: ignore[arg-type]
        engine = MemoryEngine(storage, config=config, recall=recall)
        await engine.create_chat("c")
        for round_ in range(30):
            await engine.append("c", _turns(round_))
        await engine.summarize("c", force=True)
        await engine.append("c", [user("I am vegetarian and I never eat meat.")])
        questions = ["What about the kitten?", "How is the Lisbon trip going?"]
        found = [await engine.get_context("c", q, budget_tokens=400) for q in questions]
        await recall.close()
        return found


async def test_cache_friendly_repeats_everything_but_the_recalled_turns(tmp_path: Path) -> None:
    first, second = await _contexts(tmp_path, "cache_friendly")
    kinds = [part.kind for part in first.parts]
    assert kinds[-2:] == ["verbatim", "recalled"] and "summary" in kinds
    assert first.recalled != second.recalled  # the question changed what is recalled...
    stable = first.render()[: first.render().index(first.part("summary").text)]
    assert second.render().startswith(stable)  # ...and nothing before it
    messages = second.to_messages()
    assert messages[-1]["role"] == "system" and "Relevant earlier" in messages[-1]["content"]


async def test_contract_order_keeps_its_parts_and_their_bytes(tmp_path: Path) -> None:
    first, second = await _contexts(tmp_path, "contract")
    kinds = [part.kind for part in first.parts]
    assert kinds.index("recalled") < kinds.index("summary") < kinds.index("verbatim")
    for kind in ("summary", "verbatim"):
        assert first.part(kind).text == second.part(kind).text
    assert second.to_messages()[-1]["role"] == "user"


STATED = [
    "I am allergic to peanuts.",
    "I live in Leeds with my husband Sam.",
    "I work as a nurse at the children's hospital.",
    "I am vegetarian and I never eat meat.",
    "My sister Ana lives in Lisbon.",
    "I hate flying, I always take the train.",
    "I play the cello in an amateur orchestra.",
    "My dog Biscuit is a beagle.",
]
QUESTIONS = [
    "What should I cook for dinner?",
    "How do I get to Lisbon?",
    "Any tips for the orchestra concert?",
    "Which hospital shift should I take?",
    "Where could we live next year?",
]


async def _turns_with_more_facts_than_fit(tmp_path: Path, order: str) -> list:  # type: ignore[type-arg]
    """A context per question, appended turn by turn; the facts share holds two of eight."""
    async with from_url(f"sqlite:///{tmp_path / f'{order}.db'}") as storage:
        embedder = MiniLMEmbedder()
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / order), embedder)
        config = MemoryConfig(
            context_order=order,  # type: ignore[arg-type]
            summary_recent_turns=2,
            facts_max_tokens=40,
        )
        engine = MemoryEngine(storage, config=config, recall=recall, embedder=embedder)
        await engine.create_chat("c")
        for said in STATED:
            await engine.append("c", [user(said), assistant("Noted, thank you.")])
        for round_ in range(30):
            await engine.append("c", _turns(round_))
        await engine.summarize("c", force=True)
        found = []
        for question in QUESTIONS:
            await engine.append("c", [user(question)])
            found.append(await engine.get_context("c", question, budget_tokens=600))
            await engine.append("c", [assistant("Let me think about that.")])
        await recall.close()
        return found


def _before_recall(context) -> str:  # type: ignore[no-untyped-def]
    """The context up to the turns recalled afresh (the kept block and the window included)."""
    text = context.render()
    last = context.parts[-1]
    return text[: text.rindex(last.text) - len("\n\n")] if last.kind == "recalled" else text


async def test_cache_friendly_context_extends_the_previous_one_turn_after_turn(
    tmp_path: Path,
) -> None:
    contexts = await _turns_with_more_facts_than_fit(tmp_path, "cache_friendly")
    assert all(context.dropped_facts for context in contexts)  # the question could choose...
    assert len({context.facts.text for context in contexts}) == 1  # ...but the head is fixed
    for previous, current in zip(contexts, contexts[1:], strict=False):
        turns = next(p for p in previous.parts if p.kind in ("recalled", "verbatim"))
        head = previous.render()[: previous.render().index(turns.text)]
        assert "Durable facts" in head and current.render().startswith(head)
        if _shown_block(current) and _shown_block(current) == _shown_block(previous):
            assert current.render().startswith(_before_recall(previous))


def _shown_block(context) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
    """The sequences of the recalled block shown before the window (empty when none is)."""
    kinds = [part.kind for part in context.parts]
    if "recalled" not in kinds or kinds.index("recalled") > kinds.index("verbatim"):
        return ()
    return tuple(context.parts[kinds.index("recalled")].sequences)


async def test_contract_order_still_lets_the_question_choose_the_facts(tmp_path: Path) -> None:
    contexts = await _turns_with_more_facts_than_fit(tmp_path, "contract")
    shown = [context.facts.text for context in contexts]
    assert len(set(shown)) > 1
    assert "vegetarian" in shown[0] and "Lisbon" in shown[1] and "cello" in shown[2]


async def _kept_block_reads(tmp_path: Path, forget: bool) -> list:  # type: ignore[type-arg]
    """Reads on one topic: the first chooses a block, the next two show it (returned); with
    ``forget``, a turn of the shown block is forgotten between them."""
    async with from_url(f"sqlite:///{tmp_path / 'kept.db'}") as storage:
        embedder = MiniLMEmbedder()
        recall = HybridRetriever(QdrantEdgeStore(tmp_path / "kept"), embedder)
        config = MemoryConfig(context_order="cache_friendly", summary_recent_turns=2)
        engine = MemoryEngine(storage, config=config, recall=recall, embedder=embedder)
        await engine.create_chat("c")
        for round_ in range(30):
            await engine.append("c", _turns(round_))
        await engine.summarize("c", force=True)  # recall gets the room pending messages took
        await engine.get_context("c", "Tell me about my kitten Miso.", budget_tokens=800)
        first = await engine.get_context("c", "What about my kitten Miso?", budget_tokens=800)
        if forget:
            await engine.forget("c", [first.recall_block[0].sequence])
        await engine.append("c", [user("Miso again"), assistant("Tell me.")])
        second = await engine.get_context("c", "And the kitten Miso now?", budget_tokens=800)
        await recall.close()
        return [first, second]


async def test_cache_friendly_keeps_the_recalled_block_before_the_window(tmp_path: Path) -> None:
    first, second = await _kept_block_reads(tmp_path, forget=False)
    kinds = [part.kind for part in first.parts]
    assert kinds.index("recalled") < kinds.index("verbatim") and first.recall_block
    assert _shown_block(second) == _shown_block(first) != ()
    window = first.part("verbatim")
    assert window is not None
    cached = first.render()[: first.render().index(window.text) + len(window.text)]
    assert second.render().startswith(cached)  # the block and the whole previous window


async def test_a_forgotten_turn_of_the_kept_block_is_not_shown_again(tmp_path: Path) -> None:
    first, second = await _kept_block_reads(tmp_path, forget=True)
    gone = first.recall_block[0].message.content
    assert gone in first.render() and gone not in second.render()
