"""Embedder doubles: a recording wrapper around a real embedder, and a bag of words.

``RecordingEmbedder`` records what each call embedded; ``BagOfWordsEmbedder`` is a small
deterministic embedder (one dimension per word seen, L2-normalised counts) for tests of
semantic truncation and ranking that need no model. Neither is collected by pytest.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from longtalk.embed.base import Embedder

__all__ = ["BagOfWordsEmbedder", "RecordingEmbedder"]


class RecordingEmbedder:
    """A real embedder that records the texts of every call (calls may come from threads)."""

    __test__ = False

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls: list[tuple[str, ...]] = []
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The wrapped embedder's model id."""
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        """The wrapped embedder's dimension."""
        return self.inner.dimension

    @property
    def texts(self) -> list[str]:
        """Every text embedded, in call order."""
        with self._lock:
            return [text for call in self.calls for text in call]

    @property
    def sizes(self) -> list[int]:
        """How many texts each call embedded."""
        with self._lock:
            return [len(call) for call in self.calls]

    def clear(self) -> None:
        """Forget the calls recorded so far."""
        with self._lock:
            self.calls.clear()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Record ``texts``, then embed them with the wrapped embedder."""
        with self._lock:
            self.calls.append(tuple(texts))
        return self.inner.embed(texts)


class BagOfWordsEmbedder:
    """Deterministic: one dimension per word seen so far, L2-normalised counts.

    The vocabulary grows across calls (vectors of one call share a dimension); ``calls``
    counts the calls.
    """

    __test__ = False

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One row per text."""
        self.calls += 1
        rows = [re.findall(r"[a-z]+", text.lower()) for text in texts]
        for words in rows:
            for word in words:
                self.vocabulary.setdefault(word, len(self.vocabulary))
        matrix = np.zeros((len(texts), max(1, len(self.vocabulary))), dtype=np.float32)
        for row, words in enumerate(rows):
            for word in words:
                matrix[row, self.vocabulary[word]] += 1
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
