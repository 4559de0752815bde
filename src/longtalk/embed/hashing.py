"""A deterministic, dependency-free embedder: signed feature hashing of words and trigrams.

It knows no semantics: texts that share words and spellings land close, others do not.
Use it in tests, and as a degraded fallback when the bundled model cannot load. Vectors
are stable across processes and machines (BLAKE2b, not Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Feature hashing of lower-cased words (weight 1) and character trigrams (weight 0.5).

    Args:
        dimension: Vector size (384 matches MiniLM, so stores can be shared in tests).
    """

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise ValueError("dimension must be at least 8")
        self.dimension = dimension
        self.model_id = f"longtalk/hashing-v1-{dimension}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch: float32 (len(texts), dimension), rows L2-normalised (0 if empty)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                sign = 1.0 if value & 1 else -1.0
                out[row, (value >> 1) % self.dimension] += sign * weight
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _features(text: str) -> Iterator[tuple[str, float]]:
    for word in _WORD.findall(text.lower()):
        yield "w:" + word, 1.0
        padded = f"#{word}#"
        for i in range(len(padded) - 2):
            yield "c:" + padded[i : i + 3], 0.5
