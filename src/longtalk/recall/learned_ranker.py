"""The learned ranker: a listwise linear model over :data:`longtalk.recall.features.FEATURES`.

Within one query, a candidate's share of the evidence is ``softmax(Σ weight × feature)``
over all candidates: the model is fitted to put the probability mass on the turns the
question needs (a listwise loss, which only has to order turns within a question, ranks
better than a per-turn logistic regression: LoCoMo dev, held out, see ``docs/recall.md``).
A turn's score is that share relative to the best candidate's (1.0 for the best), so a
context can be filled by score per token. The weights are fitted on the LoCoMo dev split by
``bench/fit_ranker.py`` (which writes :mod:`longtalk.recall.learned_ranker_weights`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from longtalk.recall.features import FEATURES
from longtalk.recall.learned_ranker_weights import WEIGHTS


@dataclass(frozen=True, slots=True)
class LinearRanker:
    """``exp(Σ weight × feature)`` over raw (unstandardised) features, relative to the best."""

    weights: Mapping[str, float]

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown ranker features {sorted(unknown)}; known: {FEATURES}")

    def vector(self) -> npt.NDArray[np.float64]:
        """The weights in :data:`FEATURES` order (0 for a feature the model does not use)."""
        return np.array([self.weights.get(name, 0.0) for name in FEATURES])

    def relevance(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Each row's share of the query's evidence relative to the best row's (in (0, 1])."""
        if not len(rows):
            return np.zeros(0)
        logits = rows @ self.vector()
        result: npt.NDArray[np.float64] = np.exp(logits - logits.max())
        return result


DEFAULT_RANKER = LinearRanker(WEIGHTS)
"""The fitted model longtalk ships."""

__all__ = ["DEFAULT_RANKER", "LinearRanker"]
