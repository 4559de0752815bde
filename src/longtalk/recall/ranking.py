"""Pure ranking for recall: a learned model over per-turn features, or hand-set fusion.

Every knob here was measured on the LoCoMo dev split (``bench/locomo_recall.py``); the
ablation table in ``docs/recall.md`` gives what each one contributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from longtalk.recall import cues
from longtalk.recall.cues import asks_when, says_when
from longtalk.recall.features import Candidate, day_strengths, feature_matrix
from longtalk.recall.learned_ranker import DEFAULT_RANKER, LinearRanker
from longtalk.recall.lexical import BM25Params

Fusion = Literal["learned", "weighted", "rrf", "dense", "lexical"]


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """How recall ranks turns.

    Attributes:
        fusion: ``learned`` (the default: ``ranker``'s probability over the features of
            :mod:`longtalk.recall.features`; the boosts below are then features, not
            knobs), ``weighted`` (cosine plus max-normalised BM25, plus the boosts),
            ``rrf`` (reciprocal rank fusion), or one side alone.
        ranker: the learned model (default: the one fitted on LoCoMo dev).
        dense_weight: weight of the cosine similarity.
        lexical_weight: weight of the normalised BM25 score.
        rrf_k: the constant of reciprocal rank fusion.
        candidates: how many hits each search returns.
        neighbour_hits: how many of the best hits pass credit to adjacent turns.
        neighbour_radius: how far (in sequences) that credit reaches.
        neighbour_decay: the fraction of a hit's score its neighbour gets.
        speaker_boost: added to the turns of the one speaker the query names (a question
            about Caroline is answered by what Caroline said).
        temporal_boost: added, for a question about when something happened, to the turns
            that say when (``yesterday``, ``last week``, a month, a year...).
        session_boost: added, scaled by how strong the turn's day is (the sum of its
            ``session_hits`` best scores, relative to the strongest day): sessions as units.
        session_hits: how many of a day's best hits make its strength.
        sentence_vectors: also embed each sentence of a multi-sentence turn (a turn scores
            by its best piece), so one relevant sentence is not drowned by the rest.
        bm25: BM25 parameters for stored turns.
    """

    fusion: Fusion = "learned"
    dense_weight: float = 1.0
    lexical_weight: float = 0.5
    rrf_k: float = 60.0
    candidates: int = 200
    neighbour_hits: int = 20
    neighbour_radius: int = 2
    neighbour_decay: float = 0.7
    speaker_boost: float = 0.1
    temporal_boost: float = 0.2
    session_boost: float = 0.8
    session_hits: int = 3
    sentence_vectors: bool = False
    sentence_weight: float = 0.5
    bm25: BM25Params = field(default_factory=BM25Params)
    ranker: LinearRanker = DEFAULT_RANKER


def rank(
    candidates: Mapping[int, Candidate], config: RankingConfig, *, query: str = ""
) -> list[tuple[int, float]]:
    """(sequence, score) pairs, best first."""
    if config.fusion == "learned":
        return _learned(candidates, config.ranker, query)
    base = _fused(candidates, config)
    speaker = named_speaker(query, candidates.values()) if config.speaker_boost else None
    if speaker is not None:
        for seq in base:
            if cues.first_name(candidates[seq].payload.get("name")) == speaker:
                base[seq] += config.speaker_boost
    if config.temporal_boost and asks_when(query):
        for seq in base:
            if says_when(candidates[seq].content):
                base[seq] += config.temporal_boost
    if config.session_boost:
        _boost_sessions(base, candidates, config)
    scores = dict(base)
    direct = sorted(base.items(), key=lambda item: -item[1])[: config.neighbour_hits]
    for seq, score in direct:
        for offset in range(1, config.neighbour_radius + 1):
            for other in (seq - offset, seq + offset):
                if other in candidates:
                    lifted = score * config.neighbour_decay**offset
                    if lifted > scores.get(other, float("-inf")):
                        scores[other] = lifted
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def _learned(
    candidates: Mapping[int, Candidate], ranker: LinearRanker, query: str
) -> list[tuple[int, float]]:
    sequences = list(candidates)
    rows = feature_matrix([candidates[s] for s in sequences], query)
    scores = ranker.relevance(rows)
    return sorted(
        ((s, float(p)) for s, p in zip(sequences, scores, strict=True)),
        key=lambda item: (-item[1], item[0]),
    )


def _boost_sessions(
    base: dict[int, float], candidates: Mapping[int, Candidate], config: RankingConfig
) -> None:
    """Add to every turn a share of its day's strongest hits (sessions as units)."""
    days = {seq: candidates[seq].day for seq in base}
    strength = day_strengths(days.values(), base.values(), config.session_hits)
    for seq in base:
        base[seq] += config.session_boost * strength.get(days[seq], 0.0)


def named_speaker(query: str, candidates: Iterable[Candidate]) -> str | None:
    """The one speaker (by first name, lowercased) the query mentions, if exactly one."""
    return cues.named_speaker(query, (c.payload.get("name") for c in candidates))


def _fused(candidates: Mapping[int, Candidate], config: RankingConfig) -> dict[int, float]:
    found = {s: c for s, c in candidates.items() if c.dense is not None or c.lexical is not None}
    if config.fusion == "rrf":
        return {s: _rrf(c, config) for s, c in found.items()}
    dense_floor = min((c.dense for c in found.values() if c.dense is not None), default=0.0)
    wholes = [c.dense_whole for c in found.values() if c.dense_whole is not None]
    whole_floor = min(wholes, default=dense_floor)
    mix = config.sentence_weight if config.sentence_vectors else 1.0
    top_lexical = max((c.lexical or 0.0 for c in found.values()), default=0.0) or 1.0
    dense_w = 0.0 if config.fusion == "lexical" else config.dense_weight
    lexical_w = 0.0 if config.fusion == "dense" else config.lexical_weight
    fused: dict[int, float] = {}
    for seq, c in found.items():
        best = c.dense if c.dense is not None else dense_floor
        whole = c.dense_whole if c.dense_whole is not None else min(best, whole_floor)
        cosine = mix * best + (1.0 - mix) * whole
        lexical = (c.lexical or 0.0) / top_lexical
        fused[seq] = dense_w * cosine + lexical_w * lexical
    return fused


def _rrf(c: Candidate, config: RankingConfig) -> float:
    score = 0.0
    if c.dense_rank is not None and config.fusion != "lexical":
        score += config.dense_weight / (config.rrf_k + c.dense_rank + 1)
    if c.lexical_rank is not None and config.fusion != "dense":
        score += config.lexical_weight / (config.rrf_k + c.lexical_rank + 1)
    return score
