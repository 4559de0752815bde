"""The learned ranker: logistic regression over :data:`memstrata.recall.features.FEATURES`.

A turn's score is the model's probability that the question needs it. The weights are fitted
on the LoCoMo dev split by ``bench/fit_ranker.py`` (which writes
:mod:`memstrata.recall.ranker_weights`); the held-out (leave-one-conversation-out) numbers
are in ``docs/recall.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memstrata.recall.features import FEATURES
from memstrata.recall.ranker_weights import BIAS, WEIGHTS


@dataclass(frozen=True, slots=True)
class LinearRanker:
    """``sigmoid(bias + Σ weight × feature)`` over raw (unstandardised) features."""

    weights: Mapping[str, float]
    bias: float

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown ranker features {sorted(unknown)}; known: {FEATURES}")

    def vector(self) -> npt.NDArray[np.float64]:
        """The weights in :data:`FEATURES` order (0 for a feature the model does not use)."""
        return np.array([self.weights.get(name, 0.0) for name in FEATURES])

    def probabilities(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """One probability per row of a feature matrix."""
        logits = rows @ self.vector() + self.bias
        result: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(logits, -50.0, 50.0)))
        return result


DEFAULT_RANKER = LinearRanker(WEIGHTS, BIAS)
"""The fitted model memstrata ships."""

__all__ = ["DEFAULT_RANKER", "LinearRanker"]
