"""What a statement means, as the bundled sentence model reads it: for the kind model.

The parser's own clause vector knows grammar more than meaning (``I'm vegan`` and ``I'm
vegetarian`` lie apart); the bundled sentence model (all-MiniLM-L6-v2, the one recall
uses) was trained for meaning, so a kind of fact said in words no labelled example used
still lands near the ones that were. Vectors are cached by text, and each text is embedded
alone: in a batch its vector would shift in the last digits with its neighbours' padding,
and the fitted weights could not be reproduced. Without the model (a failure to load or
run), every vector is zeros: the kind model then decides on its other features.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable
from functools import cache

import numpy as np
import numpy.typing as npt

from longtalk.embed.minilm import DIMENSION, MiniLMEmbedder

__all__ = ["MEANING", "meaning", "remember"]

log = logging.getLogger(__name__)
MEANING = DIMENSION
"""The width of a meaning vector."""
CACHED = 8192
"""Texts whose vectors are kept (the newest)."""
_vectors: OrderedDict[str, npt.NDArray[np.float64]] = OrderedDict()


def meaning(text: str) -> npt.NDArray[np.float64]:
    """The unit meaning vector of ``text`` (zeros without the model)."""
    if text not in _vectors:
        remember([text])
    vector = _vectors.get(text)
    return vector if vector is not None else np.zeros(MEANING)


def remember(texts: Iterable[str]) -> None:
    """Embed the texts not cached yet (each alone: see the module docstring)."""
    missing = [text for text in dict.fromkeys(texts) if text not in _vectors]
    embedder = _embedder()
    if not missing or embedder is None:
        return
    try:
        for text in missing:
            _vectors[text] = np.asarray(embedder.embed([text])[0], dtype=np.float64)
    except Exception as exc:  # noqa: BLE001 - any failure of the model: its other features
        log.warning("the sentence model failed on statements: %r", exc)
    while len(_vectors) > CACHED:
        _vectors.popitem(last=False)


@cache
def _embedder() -> MiniLMEmbedder | None:
    try:
        return MiniLMEmbedder()
    except Exception as exc:  # noqa: BLE001 - not installed or not loadable
        log.warning("no sentence model for the kind of statements: %r", exc)
        return None
