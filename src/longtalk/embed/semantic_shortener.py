"""Semantic truncation: keep the sentences of a long message most relevant to the query."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from longtalk.core.truncation import (
    select_sentences,
    split_sentences,
    truncate_middle,
)
from longtalk.errors import BackendError

log = logging.getLogger(__name__)


@runtime_checkable
class TextEmbedder(Protocol):
    """The one method semantic truncation needs; ``longtalk.embed`` embedders fit it.

    Rows should be L2-normalised float32 vectors, shape ``(len(texts), dimension)``;
    rows that are not normalised are normalised here.
    """

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch of texts."""
        ...


def truncate_semantic(
    content: str,
    max_chars: int,
    *,
    query: str | None,
    embedder: TextEmbedder | None,
) -> str:
    """Keep the sentences most relevant to ``query``, in their original order.

    Falls back to ``middle`` without an embedder, a query or a second sentence, or when the
    embedder fails; when not even the best sentence fits, it is cut hard.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be zero or positive, got {max_chars}")
    if len(content) <= max_chars:
        return content
    sentences = split_sentences(content)
    if embedder is None or not query or not query.strip() or len(sentences) < 2:
        return truncate_middle(content, max_chars)
    scores = _similarities(embedder, query, sentences)
    if scores is None:
        return truncate_middle(content, max_chars)
    return select_sentences(sentences, scores, max_chars)


class SemanticShortener:
    """The ``semantic`` strategy's shortener over an embedder."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder

    def shorten(self, content: str, max_chars: int, query: str | None) -> str:
        """The sentences of ``content`` closest to ``query`` that fit."""
        return truncate_semantic(content, max_chars, query=query, embedder=self.embedder)


def _similarities(embedder: TextEmbedder, query: str, sentences: list[str]) -> list[float] | None:
    """Cosine similarity of each sentence to the query, or None when embedding fails."""
    try:
        vectors = np.asarray(embedder.embed([query, *sentences]), dtype=np.float32)
    except (BackendError, ValueError, RuntimeError, MemoryError) as exc:
        log.warning("semantic truncation could not embed, using middle: %r", exc)
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(sentences) + 1:
        log.warning("semantic truncation got vectors of shape %s", vectors.shape)
        return None
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    return [float(score) for score in unit[1:] @ unit[0]]
