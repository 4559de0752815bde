import asyncio
import logging
import threading
from datetime import datetime
from pathlib import Path

import pytest

from longtalk.core.messages import Message, assistant, tool_result, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.recall.ranking import RankingConfig
from longtalk.recall.retriever import HybridRetriever, point_id
from longtalk.testing import RecordingEmbedder
from longtalk.vectors.base import RecallScope, TurnStore, VectorReader
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

TURNS = [
    user("Hi! How was your weekend?", name="Ann"),
    assistant("Great, I adopted a grey kitten named Miso from the shelter.", name="Bob"),
    user("What colour is your new car?", name="Ann"),
    assistant("It is a bright red hatchback, I bought it in March.", name="Bob"),
    user("I started learning the violin last month.", name="Ann"),
    assistant("My sister lives in Lisbon and works as a nurse.", name="Bob"),
    user("Did you finish the marathon training plan?", name="Ann"),
    assistant("Yes, I ran my first marathon in Berlin in under four hours.", name="Bob"),
]
SCOPE = RecallScope(chat_id="chat-1", tenant="acme", user="u1")


def numbered(messages: list[Message]) -> list[tuple[int, Message]]:
    stamp = datetime(2024, 3, 1, 12, 0)
    return [(i + 1, m.model_copy(update={"timestamp": stamp})) for i, m in enumerate(messages)]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
async def retriever(tmp_path: Path, embedder: MiniLMEmbedder) -> HybridRetriever:
    store = QdrantEdgeStore(tmp_path / "vectors")
    found = HybridRetriever(store, embedder)
    await found.store_turns(SCOPE, numbered(TURNS))
    yield found
    await found.close()


def test_it_implements_both_seams(retriever: HybridRetriever) -> None:
    assert isinstance(retriever, VectorReader)
    assert isinstance(retriever, TurnStore)


async def test_storing_the_same_turns_twice_is_a_no_op(retriever: HybridRetriever) -> None:
    assert await retriever.store_turns(SCOPE, numbered(TURNS)) == 0
    assert await retriever.store.count() == len(TURNS)  # type: ignore[attr-defined]
    edited = numbered(TURNS)[:1] + [(99, user("A brand new message about tennis", name="Ann"))]
    assert await retriever.store_turns(SCOPE, edited) == 1


async def test_tool_chatter_and_empty_messages_are_not_stored(retriever: HybridRetriever) -> None:
    stored = await retriever.store_turns(
        SCOPE, [(50, tool_result("{}", "call-1")), (51, user("   ", name="Ann"))]
    )
    assert stored == 0


async def test_the_relevant_turn_comes_first_with_its_payload(retriever: HybridRetriever) -> None:
    found = await retriever.get_relevant_history(
        "What is the name of Bob's cat?", SCOPE, k=3, similarity_threshold=0.0
    )
    assert 1 <= len(found) <= 3
    assert "Miso" in found[0].message.content
    assert found[0].sequence == 2
    assert found[0].message.name == "Bob"
    assert found[0].message.timestamp == datetime(2024, 3, 1, 12, 0)
    assert [t.score for t in found] == sorted((t.score for t in found), reverse=True)


async def test_lexical_matching_finds_rare_words(retriever: HybridRetriever) -> None:
    found = await retriever.get_relevant_history("Lisbon", SCOPE, k=1, similarity_threshold=0.0)
    assert "Lisbon" in found[0].message.content


async def test_hits_below_the_threshold_are_dropped_and_equal_is_kept(
    retriever: HybridRetriever,
) -> None:
    """With the learned ranker the threshold is on cosine similarity, as in the seed."""
    query = "Where did Bob run a marathon?"
    everything = await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=-1)
    assert len(everything) == len(TURNS)
    similarities = [t.similarity for t in everything]
    assert all(s is not None and -1.0 <= s <= 1.0 for s in similarities)
    marathon = next(t for t in everything if "marathon in Berlin" in t.message.content)
    vectors = retriever.embedder.embed(
        [
            query,
            "Where did run a marathon?",
            "Bob: Yes, I ran my first marathon in Berlin in under four hours.",
        ]
    )
    cosine = max(float(vectors[0] @ vectors[2]), float(vectors[1] @ vectors[2]))
    assert marathon.similarity == pytest.approx(cosine, abs=1e-4)
    cut = sorted(s for s in similarities if s is not None)[-3]
    kept = await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=cut)
    assert [t.sequence for t in kept] == [
        t.sequence for t in everything if t.similarity is not None and t.similarity >= cut
    ]
    assert len(kept) == 3
    assert await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=1.5) == []


async def test_with_hand_set_fusion_the_threshold_is_on_the_score(
    retriever: HybridRetriever,
) -> None:
    weighted = HybridRetriever(
        retriever.store, retriever.embedder, ranking=RankingConfig(fusion="weighted")
    )
    retriever = weighted
    query = "Where did Bob run a marathon?"
    everything = await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=-1)
    assert len(everything) == len(TURNS)
    cut = everything[2].score
    kept = await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=cut)
    assert [t.sequence for t in kept] == [t.sequence for t in everything if t.score >= cut]
    assert everything[2].sequence in {t.sequence for t in kept}
    assert await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=10) == []


async def test_excluded_hashes_and_duplicates_are_dropped(retriever: HybridRetriever) -> None:
    query = "kitten adopted from the shelter"
    first = await retriever.get_relevant_history(query, SCOPE, k=1, similarity_threshold=0)
    again = await retriever.get_relevant_history(
        query,
        SCOPE,
        k=8,
        similarity_threshold=-1,
        exclude_hashes=frozenset({first[0].message.content_hash}),
    )
    assert first[0].sequence not in {t.sequence for t in again}
    assert len({t.message.content_hash for t in again}) == len(again)


async def test_the_reply_next_to_a_hit_rides_along(retriever: HybridRetriever) -> None:
    """The answer to a question is often the next turn, whatever its own similarity."""
    query = "Did Ann finish the training plan?"
    found = await retriever.get_relevant_history(query, SCOPE, k=2, similarity_threshold=-1)
    assert [t.sequence for t in found] == [7, 8]
    everything = await retriever.get_relevant_history(query, SCOPE, k=8, similarity_threshold=-1)
    by_similarity = sorted(everything, key=lambda t: -(t.similarity or 0.0))
    assert [t.sequence for t in by_similarity].index(8) >= 3  # behind turns 5 and 1 on its own


async def test_hand_set_fusion_lifts_the_neighbours_of_hits(retriever: HybridRetriever) -> None:
    query = "Did Ann finish the training plan?"
    weighted = HybridRetriever(
        retriever.store, retriever.embedder, ranking=RankingConfig(fusion="weighted")
    )
    found = await weighted.get_relevant_history(query, SCOPE, k=3, similarity_threshold=0)
    assert found[0].sequence == 7
    assert {t.sequence for t in found} == {6, 7, 8}
    alone = HybridRetriever(
        retriever.store,
        retriever.embedder,
        ranking=RankingConfig(fusion="weighted", neighbour_hits=0),
    )
    plain = await alone.get_relevant_history(query, SCOPE, k=3, similarity_threshold=0)
    assert {t.sequence for t in plain} != {6, 7, 8}


async def test_a_tenant_never_recalls_another_tenants_turns(retriever: HybridRetriever) -> None:
    other = RecallScope(chat_id="chat-1", tenant="globex", user="u1")
    await retriever.store_turns(
        other, [(1, user("Globex secret: the vault code is 4417", name="Eve"))]
    )
    mine = await retriever.get_relevant_history("vault code", SCOPE, k=8, similarity_threshold=-1)
    theirs = await retriever.get_relevant_history("vault code", other, k=8, similarity_threshold=-1)
    assert all("vault" not in t.message.content for t in mine)
    assert [t.message.content for t in theirs] == ["Globex secret: the vault code is 4417"]
    assert point_id(SCOPE, 1) != point_id(other, 1)


async def test_deleting_a_chat_removes_its_vectors(retriever: HybridRetriever) -> None:
    await retriever.delete_chat(SCOPE)
    assert await retriever.get_relevant_history("cat", SCOPE, k=5, similarity_threshold=-1) == []
    assert await retriever.store.count() == 0  # type: ignore[attr-defined]


async def test_a_failing_store_degrades_to_nothing_with_a_warning(
    tmp_path: Path, embedder: MiniLMEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    store = QdrantEdgeStore(tmp_path / "broken")
    retriever = HybridRetriever(store, embedder)
    await retriever.store_turns(SCOPE, numbered(TURNS))
    await store.close()  # every call now raises VectorStoreError
    with caplog.at_level(logging.WARNING, logger="longtalk.recall.retriever"):
        assert await retriever.get_relevant_history("cat", SCOPE, k=3) == []
    assert "recall failed" in caplog.text


async def test_sentence_vectors_store_one_point_per_sentence(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    store = QdrantEdgeStore(tmp_path / "sentences")
    retriever = HybridRetriever(store, embedder, ranking=RankingConfig(sentence_vectors=True))
    long_turn = user(
        "I spent the whole morning fixing the leaking kitchen sink. Then my daughter "
        "told me she got into medical school in Boston!",
        name="Ann",
    )
    assert await retriever.store_turns(SCOPE, [(1, long_turn), (2, TURNS[2])]) == 2
    assert await store.count() == 4  # whole turn + 2 sentences, and a one-sentence turn
    found = await retriever.get_relevant_history(
        "Where will Ann's daughter study medicine?", SCOPE, k=1, similarity_threshold=0
    )
    assert found[0].sequence == 1 and found[0].message.content == long_turn.content
    await retriever.close()


async def test_a_query_naming_a_speaker_embeds_both_queries_in_one_call(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    counting = RecordingEmbedder(embedder)
    store = QdrantEdgeStore(tmp_path / "v")
    retriever = HybridRetriever(store, counting)  # type: ignore[arg-type]
    await retriever.store_turns(SCOPE, numbered(TURNS))  # remembers Ann and Bob
    counting.clear()
    found = await retriever.get_relevant_history("What is Bob's cat called?", SCOPE, k=1)
    assert counting.sizes == [2] and "Miso" in found[0].message.content
    fresh = HybridRetriever(store, counting)  # type: ignore[arg-type]  # knows no speakers
    counting.clear()
    again = await fresh.get_relevant_history("What is Bob's cat called?", SCOPE, k=1)
    assert counting.sizes == [2] and again[0].sequence == found[0].sequence  # guessed "Bob"
    other = HybridRetriever(store, counting)  # type: ignore[arg-type]
    counting.clear()
    await other.get_relevant_history("Does Bob's sister live in Lisbon?", SCOPE, k=1)
    assert counting.sizes == [2, 1]  # "Lisbon" is no speaker: the guess was wrong
    counting.clear()
    await other.get_relevant_history("Does Bob's sister live in Lisbon?", SCOPE, k=1)
    assert counting.sizes == [2]  # the speakers are known now
    await retriever.close()


async def positions(retriever: HybridRetriever, scope: RecallScope) -> dict[int, int | None]:
    points = await retriever.store.fetch(scope, list(range(1, 40)))
    return {p.payload["sequence"]: p.payload["session_position"] for p in points}


async def test_turns_remember_their_position_in_the_session(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    day1, day2 = datetime(2024, 3, 1, 12, 0), datetime(2024, 3, 2, 9, 0)
    scope = RecallScope(chat_id="positions")
    path = tmp_path / "vectors"
    first = HybridRetriever(QdrantEdgeStore(path), embedder)
    turns = [m.model_copy(update={"timestamp": day1}) for m in TURNS[:3]]
    await first.store_turns(scope, [(i + 1, m) for i, m in enumerate(turns)])
    await first.store_turns(scope, [(4, TURNS[3].model_copy(update={"timestamp": day1}))])
    await first.close()
    # A new process knows nothing of the chat: it looks the previous turn up in the store.
    second = HybridRetriever(QdrantEdgeStore(path), embedder)
    later = [(6, TURNS[4].model_copy(update={"timestamp": day1})), (7, TURNS[5])]
    await second.store_turns(scope, [*later, (8, TURNS[6].model_copy(update={"timestamp": day2}))])
    assert await positions(second, scope) == {1: 0, 2: 1, 3: 2, 4: 3, 6: 4, 7: None, 8: 0}
    await second.close()


async def test_the_lexical_search_runs_while_the_query_is_embedded(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    """The query's embedding waits for the lexical search: only overlap lets both finish."""
    lexical_searched = threading.Event()

    class WaitingEmbedder(RecordingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            if self.texts:  # stored turns are embedded first; the query waits
                assert lexical_searched.wait(5), "the lexical search waited for the embedding"
            return super().embed(texts)

    class WatchedStore(QdrantEdgeStore):
        async def search(self, scope, *, dense=None, sparse=None, limit=10):  # type: ignore[no-untyped-def]
            if sparse is not None:
                lexical_searched.set()
            return await super().search(scope, dense=dense, sparse=sparse, limit=limit)

    retriever = HybridRetriever(WatchedStore(tmp_path / "v"), WaitingEmbedder(embedder))  # type: ignore[arg-type]
    await retriever.store_turns(SCOPE, numbered(TURNS))
    found = await asyncio.wait_for(
        retriever.get_relevant_history("marathon in Berlin", SCOPE, k=1), 10
    )
    assert "Berlin" in found[0].message.content
    await retriever.close()
