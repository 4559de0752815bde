import numpy as np
import pytest

from longtalk.recall.features import (
    FEATURES,
    Candidate,
    feature_matrix,
    fused_scores,
    without_speakers,
)
from longtalk.recall.learned_ranker import DEFAULT_RANKER, LinearRanker
from longtalk.recall.ranking import RankingConfig, rank


def turn(
    seq: int,
    name: str,
    content: str,
    *,
    day: str = "2023-05-08",
    dense: float | None = None,
    lexical: float | None = None,
    position: int | None = None,
) -> Candidate:
    payload = {
        "name": name,
        "content": content,
        "timestamp": f"{day}T13:56:00",
        "session_position": position,
    }
    return Candidate(
        seq,
        payload,
        dense=dense,
        dense_rank=None if dense is None else seq,
        lexical=lexical,
        lexical_rank=None if lexical is None else seq,
        dense2=dense,
    )


def column(rows: np.ndarray, name: str) -> list[float]:
    return [float(v) for v in rows[:, FEATURES.index(name)]]


def test_speaker_names_and_their_possessives_leave_the_query() -> None:
    speakers = {"melanie", "caroline"}
    assert without_speakers("What do Melanie's kids like?", speakers) == "What do kids like?"
    assert without_speakers("Did MELANIE and Caroline meet?", speakers) == "Did and meet?"
    assert without_speakers("What did Jon paint?", speakers) == "What did Jon paint?"


def test_unseen_scores_take_the_floor_cosine_and_zero_bm25() -> None:
    found = [turn(1, "Ann", "a", dense=0.6, lexical=4.0), turn(2, "Bob", "b", dense=0.2)]
    fetched = Candidate(3, {"name": "Ann", "content": "c"})  # a neighbour no search returned
    rows = feature_matrix([*found, fetched], "anything")
    assert column(rows, "dense") == [0.6, 0.2, 0.2]
    assert column(rows, "lexical") == [1.0, 0.0, 0.0]
    assert column(rows, "lexical_rank")[2] == pytest.approx(np.log1p(10_000))
    assert fused_scores([*found, fetched]).tolist() == pytest.approx([1.1, 0.2, 0.2])


def test_speaker_cues_need_exactly_one_named_speaker() -> None:
    found = [turn(1, "Ann Lee", "x", dense=0.5), turn(2, "Bob", "y", dense=0.4)]
    rows = feature_matrix(found, "What did Ann paint?")
    assert column(rows, "speaker_named") == [1.0, 0.0]
    assert column(rows, "other_named") == [0.0, 1.0]
    both = feature_matrix(found, "What do Ann and Bob share?")
    assert column(both, "speaker_named") == column(both, "other_named") == [0.0, 0.0]


def test_neighbour_scores_stay_within_the_day() -> None:
    found = [
        turn(1, "Ann", "hit", dense=0.9),
        turn(2, "Bob", "reply", dense=0.1),
        turn(3, "Ann", "next day", dense=0.1, day="2023-05-09"),
    ]
    rows = feature_matrix(found, "q")
    best = 0.9
    assert column(rows, "previous_gap") == pytest.approx([0 - best, 0.9 - best, 0 - best])
    assert column(rows, "next_gap") == pytest.approx([0.1 - best, 0 - best, 0 - best])
    assert column(rows, "day_rank") == pytest.approx([0.0, 0.0, np.log1p(1)])
    assert column(rows, "day_strength") == pytest.approx([1.0, 1.0, 0.1 / 1.0])


def test_when_questions_mark_turns_that_say_when() -> None:
    found = [turn(1, "Ann", "I moved last year", dense=0.3), turn(2, "Ann", "I moved", dense=0.3)]
    assert column(feature_matrix(found, "When did Ann move?"), "when_and_dated") == [1.0, 0.0]
    assert column(feature_matrix(found, "Where did Ann move?"), "when_and_dated") == [0.0, 0.0]


def test_a_ranker_names_unknown_features() -> None:
    with pytest.raises(ValueError, match="unknown ranker features \\['cosine'\\]"):
        LinearRanker({"cosine": 1.0})


def test_relevance_is_the_softmax_share_relative_to_the_best() -> None:
    ranker = LinearRanker({"dense": 10.0})
    rows = np.zeros((3, len(FEATURES)))
    rows[:, FEATURES.index("dense")] = [0.2, 0.5, 0.8]
    relevance = ranker.relevance(rows)
    assert relevance.tolist() == pytest.approx([np.exp(-6.0), np.exp(-3.0), 1.0])
    assert ranker.relevance(rows + 5.0).tolist() == pytest.approx(relevance.tolist())
    assert ranker.relevance(np.zeros((0, len(FEATURES)))).tolist() == []


def test_session_position_features() -> None:
    found = [
        turn(1, "Ann", "Guess what, I adopted a cat!", dense=0.5, position=0),
        turn(2, "Bob", "Wow", dense=0.5, position=3),
        turn(3, "Ann", "undated or older data", dense=0.5),
    ]
    rows = feature_matrix(found, "q")
    assert column(rows, "session_start") == [1.0, 0.0, 0.0]
    assert column(rows, "session_position") == pytest.approx([0.0, np.log1p(3), np.log1p(8)])


def test_standardised_cosines_are_relative_to_the_query_candidates() -> None:
    found = [turn(1, "Ann", "a", dense=0.3), turn(2, "Ann", "b", dense=0.5)]
    assert column(feature_matrix(found, "q"), "dense_z") == pytest.approx([-1.0, 1.0])
    same = [turn(1, "Ann", "a", dense=0.4), turn(2, "Ann", "b", dense=0.4)]
    assert column(feature_matrix(same, "q"), "dense_z") == [0.0, 0.0]


def test_learned_ranking_orders_by_the_model() -> None:
    found = {
        1: turn(1, "Ann", "low", dense=0.2),
        2: turn(2, "Ann", "high", dense=0.7),
        3: turn(3, "Ann", "mid", dense=0.5, day="2023-06-01"),
    }
    by_dense = RankingConfig(ranker=LinearRanker({"dense": 10.0}))
    assert [s for s, _ in rank(found, by_dense)] == [2, 3, 1]
    by_day = RankingConfig(ranker=LinearRanker({"day_rank": 10.0}))
    assert [s for s, _ in rank(found, by_day)][0] == 3


def test_the_shipped_model_prefers_relevant_turns_of_the_named_speaker() -> None:
    """Sanity of the fitted weights: similarity, BM25 and the named speaker all count up."""
    weights = DEFAULT_RANKER.weights
    assert weights["lexical"] > 0 and weights["session_start"] > 0
    assert weights["speaker_named"] > 0 > weights["other_named"]
    found = {
        1: turn(1, "Ann", "I paint lakes at sunrise", dense=0.55, lexical=3.0),
        2: turn(2, "Bob", "Nice weather today", dense=0.15, day="2023-07-01"),
        3: turn(3, "Bob", "I paint lakes too", dense=0.55, lexical=3.0, day="2023-08-01"),
    }
    ranked = [s for s, _ in rank(found, RankingConfig(), query="What does Ann paint?")]
    assert ranked == [1, 3, 2]
