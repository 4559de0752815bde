from longtalk.recall.lexical import (
    document_vector,
    query_vector,
    split_sentences,
    stem,
    term_index,
    tokenize,
)
from longtalk.recall.ranking import (
    Candidate,
    RankingConfig,
    asks_when,
    named_speaker,
    rank,
    says_when,
)


def test_tokenize_drops_stopwords_and_stems() -> None:
    assert tokenize("When did Caroline go painting with her kids?") == ["caroline", "paint", "kid"]
    assert stem("running") == "run" and stem("studies") == "study" and stem("2023") == "2023"


def test_term_indices_are_stable_across_processes() -> None:
    assert term_index("caroline") == term_index("caroline") == 996088029


def test_document_weights_saturate_with_repetition() -> None:
    once = document_vector("pottery")
    thrice = document_vector("pottery pottery pottery")
    assert len(once.indices) == 1 and once.indices == thrice.indices
    assert thrice.values[0] > once.values[0]
    assert thrice.values[0] < 3 * once.values[0]


def test_query_terms_weigh_one_each() -> None:
    vector = query_vector("Which city did Jon visit in Rome?")
    assert set(vector.values) == {1.0} and len(vector.indices) == 4  # city jon visit rome


def test_split_sentences_merges_short_fragments() -> None:
    text = "Wow! I lost my job at Door Dash this month. What business are you thinking of?"
    assert split_sentences(text) == [
        "Wow! I lost my job at Door Dash this month.",
        "What business are you thinking of?",
    ]


def candidate(seq: int, name: str, dense: float | None, lexical: float | None = None) -> Candidate:
    return Candidate(
        seq,
        {"name": name},
        dense=dense,
        dense_rank=None if dense is None else seq,
        lexical=lexical,
        lexical_rank=None if lexical is None else seq,
    )


def test_named_speaker_needs_exactly_one_name() -> None:
    cands = [candidate(1, "Caroline Smith", 0.5), candidate(2, "Melanie", 0.4)]
    assert named_speaker("What did Caroline paint?", cands) == "caroline"
    assert named_speaker("What do Caroline and Melanie share?", cands) is None
    assert named_speaker("What is the weather?", cands) is None


def test_weighted_fusion_adds_normalised_bm25_and_the_speaker_boost() -> None:
    cands = {1: candidate(1, "Ann", 0.5), 2: candidate(2, "Bob", 0.45, lexical=8.0)}
    config = RankingConfig(fusion="weighted", neighbour_hits=0, speaker_boost=0.0)
    assert [s for s, _ in rank(cands, config)] == [2, 1]
    boosted = RankingConfig(fusion="weighted", neighbour_hits=0, speaker_boost=1.0)
    assert [s for s, _ in rank(cands, boosted, query="What did Ann say?")] == [1, 2]


def test_neighbours_inherit_a_decayed_score() -> None:
    cands = {
        10: candidate(10, "Ann", 0.8),
        11: Candidate(11, {"name": "Bob"}),  # fetched as a neighbour
        30: candidate(30, "Bob", 0.5),
    }
    config = RankingConfig(fusion="weighted", neighbour_decay=0.7, speaker_boost=0.0)
    scores = dict(rank(cands, config))
    assert scores[11] == 0.8 * 0.7
    assert [s for s, _ in rank(cands, config)] == [10, 11, 30]
    assert 11 not in dict(rank(cands, RankingConfig(fusion="weighted", neighbour_hits=0)))


def test_rrf_rewards_turns_both_searches_found() -> None:
    cands = {1: candidate(1, "A", 0.9), 2: candidate(2, "B", 0.1, lexical=1.0)}
    ranked = rank(cands, RankingConfig(fusion="rrf", neighbour_hits=0, speaker_boost=0.0))
    assert [s for s, _ in ranked] == [2, 1]
    assert ranked[1][1] == 1.0 / (60 + 1 + 1)


def dated(seq: int, day: str, dense: float, content: str = "") -> Candidate:
    payload = {"name": "Ann", "timestamp": f"{day}T10:00:00", "content": content}
    return Candidate(seq, payload, dense=dense, dense_rank=seq)


def test_when_questions_favour_turns_that_say_when() -> None:
    assert asks_when("When did Ann paint the lake?") and asks_when("How long ago did she move?")
    assert not asks_when("What did Ann paint?")
    assert says_when("I painted it last week") and says_when("back in 2019")
    assert not says_when("I painted a lake")
    cands = {
        1: dated(1, "2023-05-01", 0.50, "I painted a lake"),
        2: dated(2, "2023-06-01", 0.45, "I painted it yesterday"),
    }
    config = RankingConfig(
        fusion="weighted", neighbour_hits=0, speaker_boost=0, session_boost=0, temporal_boost=0.2
    )
    assert [s for s, _ in rank(cands, config, query="When did Ann paint?")] == [2, 1]
    assert [s for s, _ in rank(cands, config, query="What did Ann paint?")] == [1, 2]


def test_turns_of_a_strong_day_rise_together() -> None:
    cands = {
        1: dated(1, "2023-05-01", 0.70),
        2: dated(2, "2023-05-01", 0.65),
        3: dated(3, "2023-05-01", 0.30),
        9: dated(9, "2023-07-09", 0.35),
    }
    off = {"neighbour_hits": 0, "speaker_boost": 0.0, "temporal_boost": 0.0}
    plain = RankingConfig(fusion="weighted", session_boost=0, **off)
    assert [s for s, _ in rank(cands, plain)][2:] == [9, 3]
    grouped = RankingConfig(fusion="weighted", session_boost=0.15, **off)
    scores = dict(rank(cands, grouped))
    assert [s for s, _ in rank(cands, grouped)][2:] == [3, 9]
    assert scores[1] == 0.70 + 0.15  # the strongest day gets the whole boost


def test_auto_k_fills_the_budget_with_short_turns() -> None:
    from longtalk.config import MemoryConfig
    from longtalk.recall.defaults import auto_k

    assert auto_k(2000) == 134 and auto_k(1000) == 67 and auto_k(1) == 1
    config = MemoryConfig()  # the defaults are what the LoCoMo bench measures
    assert config.strategy == "rag_augmented" and config.rag_k == "auto"
    assert config.rag_similarity_threshold == 0.0
