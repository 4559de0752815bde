"""What a statement means, as the bundled sentence model reads it: for the kind model.

The parser's own clause vector knows grammar more than meaning (``I'm vegan`` and ``I'm
vegetarian`` lie apart); the bundled sentence model (all-MiniLM-L6-v2, the one recall
uses) was trained for meaning, so a kind of fact said in words no labelled example used
still lands near the ones that were. Vectors are cached by text; each text is embedded
alone when first asked for: in a batch its vector would shift in the last digits with its
neighbours' padding, and the fitted weights could not be reproduced. Without the model (a
failure to load or run), every vector is zeros: the kind model then decides on its other
features.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from functools import cache

import numpy as np
import numpy.typing as npt

from longtalk.embed.minilm import DIMENSION, MiniLMEmbedder

__all__ = ["MEANING", "meaning"]

log = logging.getLogger(__name__)
MEANING = DIMENSION
"""The width of a meaning vector."""
CACHED = 8192
"""Texts whose vectors are kept (the newest)."""
_vectors: OrderedDict[str, npt.NDArray[np.float64]] = OrderedDict()


def meaning(text: str) -> npt.NDArray[np.float64]:
    """The unit meaning vector of ``text`` (zeros without the model)."""
    vector = _vectors.get(text)
    if vector is not None:
        return vector
    embedder = _embedder()
    if embedder is None:
        return np.zeros(MEANING)
    try:
        vector = np.asarray(embedder.embed([text])[0], dtype=np.float64)
    except Exception as exc:  # noqa: BLE001 - any failure of the model: its other features
        log.warning("the sentence model failed on a statement: %r", exc)
        return np.zeros(MEANING)
    _vectors[text] = vector
    while len(_vectors) > CACHED:
        _vectors.popitem(last=False)
    return vector


@cache
def _embedder() -> MiniLMEmbedder | None:
    try:
        return MiniLMEmbedder()
    except Exception as exc:  # noqa: BLE001 - not installed or not loadable
        log.warning("no sentence model for the kind of statements: %r", exc)
        return None
