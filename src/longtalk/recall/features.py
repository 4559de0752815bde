"""Per-turn relevance features for the learned ranker (pure; numpy only).

Each candidate turn of one query gets a row of :data:`FEATURES`. Scores are the dense cosine
and the max-normalised BM25 of the query, and the cosine of the query with the chat's speaker
names taken out (``dense2``: "What does Melanie paint?" matches every turn that greets
Melanie, while what she paints says "I", not "Melanie"). A score a search did not return is
the lowest cosine seen, or a BM25 of 0. Around them: ranks, cosines standardised over the
query's candidates, the strength of the turn's day (sessions as units), its neighbours'
scores, the turn's position in its session, speaker and time cues, and the turn's shape
(length, question or not). :mod:`longtalk.recall.learned_ranker` turns the rows into each turn's
relevance; ``bench/fit_ranker.py`` fits it on LoCoMo.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from longtalk.recall.cues import asks_when, first_name, named_speaker, says_when

FEATURES: tuple[str, ...] = (
    "dense",  # cosine of the query
    "lexical",  # BM25 / the best BM25 of this query
    "fused_gap",  # (cosine + 0.5 BM25) minus the best such score
    "dense_rank",  # log(1 + rank) among dense hits
    "lexical_rank",  # log(1 + rank) among lexical hits (no match: log 10001)
    "day_strength",  # sum of the day's 3 best fused scores / the strongest day's
    "day_rank",  # log(1 + rank of the turn's day by strength)
    "near1_gap",  # best fused score one turn away (same day) minus the best overall
    "near2_gap",  # the same, two turns away
    "speaker_named",  # the query names exactly this turn's speaker
    "other_named",  # the query names exactly one speaker, not this one
    "when_and_dated",  # a "when" question and a turn that places something in time
    "log_tokens",  # log of the turn's tokens (ceil(chars / 4))
    "short",  # at most 8 words
    "is_question",  # ends with "?"
    "previous_gap",  # fused score of the turn before (same day) minus the best
    "next_gap",  # fused score of the turn after (same day) minus the best
    "dense2",  # cosine of the query without speaker names
    "dense2_gap",  # dense2 minus the best dense2
    "session_start",  # the first stored turn of its day (news comes first: "Guess what...")
    "session_position",  # log(1 + the turn's position in its day; unknown counts as 8)
    "dense_z",  # the cosine standardised over this query's candidates
    "dense2_z",  # the same for dense2
)

SESSION_POSITION = "session_position"
"""Payload key of a turn's position in its session (its day), set by ``store_turns``."""
UNKNOWN_POSITION = 8  # about a LoCoMo session's middle: undated turns rank as mid-session
LEXICAL_WEIGHT = 0.5
DAY_HITS = 3
NO_MATCH_RANK = 10_000
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@dataclass(slots=True)
class Candidate:
    """A turn found by a search or fetched as a neighbour, with what the searches said."""

    sequence: int
    payload: Mapping[str, Any]
    dense: float | None = None
    dense_rank: int | None = None
    dense_whole: float | None = None
    lexical: float | None = None
    lexical_rank: int | None = None
    dense2: float | None = None

    @property
    def content(self) -> str:
        """The turn's text."""
        return str(self.payload.get("content", ""))

    @property
    def position(self) -> int | None:
        """The turn's position in its session, when stored with it."""
        value = self.payload.get(SESSION_POSITION)
        return None if value is None else int(value)

    @property
    def day(self) -> str:
        """The calendar day of the turn's timestamp ('' without one): its session."""
        return str(self.payload.get("timestamp") or "")[:10]


def without_speakers(query: str, speakers: Iterable[str]) -> str:
    """The query with the given (lowercased first) names and their possessives removed."""
    names = set(speakers)
    kept = [
        word
        for word in query.split()
        if (match := WORD.search(word)) is None or match.group(0).lower().split("'")[0] not in names
    ]
    return " ".join(kept)


def likely_names(query: str) -> set[str]:
    """Capitalised words after the first (lowercased): a guess at the speakers a query names."""
    words = [m.group(0) for m in WORD.finditer(query)]
    return {w.split("'")[0].lower() for w in words[1:] if w[:1].isupper()}


def speakers_of(candidates: Iterable[Candidate]) -> set[str]:
    """The first names (lowercased) of the speakers among the candidates."""
    return {name for c in candidates if (name := first_name(c.payload.get("name")))}


def fused_scores(
    candidates: Sequence[Candidate], *, speaker_free: bool = False
) -> npt.NDArray[np.float64]:
    """Cosine + 0.5 × max-normalised BM25 per candidate (``speaker_free``: dense2's cosine)."""
    dense = _scores([c.dense2 if speaker_free else c.dense for c in candidates])
    lexical = _normalised(_lexical([c.lexical for c in candidates]))
    return _fuse(dense, lexical)


def _fuse(
    dense: npt.NDArray[np.float64], lexical: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Cosine + 0.5 × normalised BM25."""
    return dense + LEXICAL_WEIGHT * lexical


def feature_matrix(candidates: Sequence[Candidate], query: str) -> npt.NDArray[np.float64]:
    """One row of :data:`FEATURES` per candidate (all candidates of one query)."""
    count = len(candidates)
    if not count:
        return np.zeros((0, len(FEATURES)))
    dense = _scores([c.dense for c in candidates])
    lexical = _normalised(_lexical([c.lexical for c in candidates]))
    fused = _fuse(dense, lexical)
    dense2 = _scores([c.dense2 for c in candidates])
    best = float(fused.max())
    days = [c.day for c in candidates]
    strength, day_rank = _days(days, fused)
    before, after, near2 = _neighbours(candidates, days, fused)
    names = [first_name(c.payload.get("name")) for c in candidates]
    speaker = named_speaker(query, names)
    when = asks_when(query)
    dated = np.array([when and says_when(c.content) for c in candidates], dtype=float)
    tokens = np.array([_tokens(c) for c in candidates], dtype=float)
    words = np.array([len(c.content.split()) for c in candidates], dtype=float)
    columns = {
        "dense": dense,
        "lexical": lexical,
        "fused_gap": fused - best,
        "dense_rank": np.log1p(_ranks([c.dense_rank for c in candidates], len(candidates))),
        "lexical_rank": np.log1p(_ranks([c.lexical_rank for c in candidates], NO_MATCH_RANK)),
        "day_strength": strength,
        "day_rank": np.log1p(day_rank),
        "near1_gap": np.maximum(before, after) - best,
        "near2_gap": near2 - best,
        "speaker_named": np.array([speaker is not None and n == speaker for n in names], float),
        "other_named": np.array([speaker is not None and n != speaker for n in names], float),
        "when_and_dated": dated,
        "log_tokens": np.log(tokens),
        "short": (words <= 8).astype(float),
        "is_question": np.array([c.content.rstrip().endswith("?") for c in candidates], float),
        "previous_gap": before - best,
        "next_gap": after - best,
        "dense2": dense2,
        "dense2_gap": dense2 - float(dense2.max()),
        "session_start": np.array([c.position == 0 for c in candidates], dtype=float),
        "session_position": np.log1p([_position(c) for c in candidates]),
        "dense_z": _standardised(dense),
        "dense2_z": _standardised(dense2),
    }
    return np.stack([columns[name] for name in FEATURES], axis=1)


def _scores(values: Sequence[float | None]) -> npt.NDArray[np.float64]:
    """Cosines, with the lowest seen one standing in for a turn the search did not return."""
    seen = [v for v in values if v is not None]
    floor = min(seen, default=0.0)
    return np.array([floor if v is None else v for v in values], dtype=float)


def _lexical(values: Sequence[float | None]) -> npt.NDArray[np.float64]:
    """BM25 scores; a turn the search did not return matched nothing (0)."""
    return np.array([0.0 if v is None else v for v in values], dtype=float)


def _normalised(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    top = float(values.max(initial=0.0))
    return values / top if top > 0 else np.zeros_like(values)


def _standardised(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(value - mean) / std over the query's candidates (0 when they are all equal)."""
    spread = float(values.std())
    return (values - values.mean()) / spread if spread > 1e-9 else np.zeros_like(values)


def _ranks(ranks: Sequence[int | None], missing: int) -> npt.NDArray[np.float64]:
    return np.array([missing if r is None else r for r in ranks], dtype=float)


def _position(candidate: Candidate) -> int:
    position = candidate.position
    return UNKNOWN_POSITION if position is None else position


def _tokens(candidate: Candidate) -> int:
    name = str(candidate.payload.get("name") or "")
    return max(1, math.ceil((len(candidate.content) + len(name) + 2) / 4))


def day_strengths(days: Iterable[str], scores: Iterable[float], hits: int) -> dict[str, float]:
    """Each day's strength: the sum of its ``hits`` best scores over the strongest day's.

    Sessions as units: turns around a strong hit share its topic. Undated turns ('') have
    no day.
    """
    by_day: dict[str, list[float]] = {}
    for day, score in zip(days, scores, strict=True):
        by_day.setdefault(day, []).append(float(score))
    strength = {d: sum(sorted(v)[-hits:]) for d, v in by_day.items() if d}
    top = max(strength.values(), default=0.0) or 1.0
    return {d: v / top for d, v in strength.items()}


def _days(
    days: Sequence[str], fused: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each turn's day strength (relative to the strongest day) and the day's rank."""
    strength = day_strengths(days, fused, DAY_HITS)
    order = {d: r for r, d in enumerate(sorted(strength, key=lambda d: -strength[d]))}
    undated = len(order)
    return (
        np.array([strength.get(day, 0.0) for day in days]),
        np.array([order.get(day, undated) for day in days], dtype=float),
    )


def _neighbours(
    candidates: Sequence[Candidate], days: Sequence[str], fused: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Fused score of the same-day turn before, after, and best two away (0 if unknown)."""
    sequences = [c.sequence for c in candidates]
    where = dict(zip(sequences, zip(days, fused.tolist(), strict=True), strict=True))

    def near(offset: int) -> npt.NDArray[np.float64]:
        found = [where.get(seq + offset) for seq in sequences]
        pairs = zip(found, days, strict=True)
        return np.array([f[1] if f is not None and f[0] == day else 0.0 for f, day in pairs])

    return near(-1), near(1), np.maximum(near(-2), near(2))


__all__ = [
    "FEATURES",
    "SESSION_POSITION",
    "Candidate",
    "day_strengths",
    "feature_matrix",
    "fused_scores",
    "likely_names",
    "speakers_of",
    "without_speakers",
]
