"""How much a sentence tells of what happens to a person: a small learned model.

A logistic regression over the sentence's MiniLM embedding and a few surface features
(:data:`SURFACE`), fitted by ``bench/fit_salience.py`` on LoCoMo dev conversations: a
sentence is salient when a human-written event or observation of its session was drawn
from it. The fitted weights ship as ``longtalk/data/salience.json``; the script rewrites
them exactly (a test checks it). Scores are log-odds: only their order matters to a caller.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from longtalk.embed.base import Embedder

__all__ = ["SURFACE", "SalienceModel", "load_model", "surface_features"]

WEIGHTS_FILE = "salience.json"

SURFACE = (
    "log_words",
    "content_share",
    "question",
    "exclamation",
    "first_person",
    "second_person",
    "number",
    "proper_names",
    "time_word",
)
"""The surface features, in the order of the weights after the embedding's."""

_WORD = re.compile(r"[A-Za-z0-9']+")
_FIRST = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|we|we're|we've|our|us)\b")
_SECOND = re.compile(r"\b(?:you|you're|you've|your|yours)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")
_TIME = re.compile(
    r"\b(?:yesterday|today|tomorrow|tonight|week|weekend|month|year|last|next|ago|since|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|"
    r"may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_FUNCTION = frozenset(
    """a an the and or but so to of in on at for with from by as is are was were be been am
    it its this that these those i you he she we they me him her us them my your his our
    their do does did have has had will would can could should just really so very too not
    what how why when where who oh wow yeah yes no hey hi thanks thank""".split()
)


def surface_features(text: str) -> list[float]:
    """The :data:`SURFACE` features of one sentence."""
    tokens = _WORD.findall(text)
    count = len(tokens)
    content = [t for t in tokens if t.lower() not in _FUNCTION and len(t) > 1]
    names = [t for t in tokens[1:] if t[:1].isupper() and t not in ("I", "I'm", "I've", "I'll")]
    return [
        math.log1p(count),
        len(content) / count if count else 0.0,
        float(text.rstrip().endswith("?")),
        float(text.rstrip().endswith("!")),
        float(_FIRST.search(text) is not None),
        float(_SECOND.search(text) is not None),
        float(_NUMBER.search(text) is not None),
        math.log1p(len(names)),
        float(_TIME.search(text) is not None),
    ]


@dataclass(frozen=True, slots=True)
class SalienceModel:
    """A fitted linear model: weights over ``[embedding, surface features]`` and a bias."""

    weights: npt.NDArray[np.float64]
    bias: float
    embedding_model: str

    def scores(
        self, texts: Sequence[str], vectors: npt.NDArray[np.float32] | None, embedder: Embedder
    ) -> npt.NDArray[np.float64]:
        """Each sentence's log-odds of being salient; ``vectors`` are its embeddings if known."""
        if not texts:
            return np.zeros(0)
        if vectors is None:
            vectors = embedder.embed(list(texts))
        return design(texts, vectors) @ self.weights + self.bias


def design(texts: Sequence[str], vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """The model's inputs: each sentence's embedding followed by its surface features."""
    surface = np.array([surface_features(t) for t in texts], dtype=np.float64)
    return np.hstack([np.asarray(vectors, dtype=np.float64), surface.reshape(len(texts), -1)])


@cache
def load_model() -> SalienceModel:
    """The shipped model (read once per process)."""
    raw = json.loads(resources.files("longtalk.data").joinpath(WEIGHTS_FILE).read_text("utf-8"))
    return SalienceModel(
        weights=np.array(raw["weights"], dtype=np.float64),
        bias=float(raw["bias"]),
        embedding_model=str(raw["embedding_model"]),
    )
