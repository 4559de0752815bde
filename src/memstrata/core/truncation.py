"""Truncating one long message: hard | middle | llm | semantic (seed 000, phase 4).

Every strategy returns ``content`` unchanged when it already fits and never returns more
than ``max_chars`` characters (Python code points). The strategies that need a helper
degrade instead of failing: ``llm`` falls back to ``middle`` on any failure, ``semantic``
falls back to ``middle`` without an embedder or a query, and ``middle`` falls back to ``hard``
when ``max_chars`` is too small for its marker.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memstrata.core.cleaning import clean_output
from memstrata.llm.base import LLM, prompt_request

__all__ = [
    "ELLIPSIS",
    "LLM_TRUNCATION_SYSTEM_PROMPT",
    "MIDDLE_MARKER",
    "SEMANTIC_GAP",
    "TextEmbedder",
    "TruncationStrategy",
    "llm_truncation_prompt",
    "split_sentences",
    "truncate_content",
    "truncate_content_async",
    "truncate_hard",
    "truncate_middle",
    "truncate_semantic",
]

logger = logging.getLogger(__name__)

ELLIPSIS = "…"
MIDDLE_MARKER = "…[truncated]…"
SEMANTIC_GAP = " … "

LLM_TRUNCATION_SYSTEM_PROMPT = (
    "You shorten messages for a conversation history. Keep every fact, name, number, "
    "decision and question; drop filler. Answer with the shortened message only."
)

_SENTENCE_END = re.compile(r"(?<=[.!?…。！？])\s+|\n+")


class TruncationStrategy(StrEnum):
    """How a message longer than the limit is shortened."""

    HARD = "hard"
    MIDDLE = "middle"
    LLM = "llm"
    SEMANTIC = "semantic"


@runtime_checkable
class TextEmbedder(Protocol):
    """The one method semantic truncation needs; ``memstrata.embed`` embedders fit it.

    Rows should be L2-normalised float32 vectors, shape ``(len(texts), dimension)``;
    rows that are not normalised are normalised here.
    """

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch of texts."""
        ...


def truncate_hard(content: str, max_chars: int) -> str:
    """``content[:max_chars - 1] + "…"``: exactly ``max_chars`` long when it cuts."""
    _check_limit(max_chars)
    if len(content) <= max_chars:
        return content
    if max_chars == 0:
        return ""
    return content[: max_chars - 1] + ELLIPSIS


def truncate_middle(content: str, max_chars: int) -> str:
    """First 40 % and last 40 % of ``max_chars`` around ``…[truncated]…``.

    Falls back to :func:`truncate_hard` when ``max_chars`` is too small for the marker.
    """
    _check_limit(max_chars)
    if len(content) <= max_chars:
        return content
    keep = max_chars * 2 // 5  # 40 %, in integers
    if keep == 0 or 2 * keep + len(MIDDLE_MARKER) > max_chars:
        return truncate_hard(content, max_chars)
    return content[:keep] + MIDDLE_MARKER + content[-keep:]


def truncate_semantic(
    content: str,
    max_chars: int,
    *,
    query: str | None,
    embedder: TextEmbedder | None,
) -> str:
    """Keep the sentences most relevant to ``query``, in their original order.

    Sentences are ranked by cosine similarity to the query and added greedily, most
    relevant first, while the result (non-adjacent sentences joined by ``" … "``) fits.
    Falls back to :func:`truncate_middle` without an embedder, a query or a second sentence,
    or when the embedder fails; when not even the best sentence fits, it is cut hard.
    """
    _check_limit(max_chars)
    if len(content) <= max_chars:
        return content
    sentences = split_sentences(content)
    if embedder is None or not query or not query.strip() or len(sentences) < 2:
        return truncate_middle(content, max_chars)
    scores = _similarities(embedder, query, sentences)
    if scores is None:
        return truncate_middle(content, max_chars)
    ranking = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    chosen = _select(sentences, ranking, max_chars)
    if not chosen:
        return truncate_hard(sentences[ranking[0]], max_chars)
    return _join(sentences, chosen)


def split_sentences(content: str) -> list[str]:
    """Split on sentence ends and line breaks; empty pieces are dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(content) if piece.strip()]


def truncate_content(
    content: str,
    max_chars: int,
    strategy: TruncationStrategy | str = TruncationStrategy.HARD,
    *,
    query: str | None = None,
    embedder: TextEmbedder | None = None,
) -> str:
    """Shorten ``content`` to at most ``max_chars`` characters with ``strategy``.

    The synchronous form cannot call an LLM: ``llm`` uses ``middle`` here; use
    :func:`truncate_content_async` to ask the model.
    """
    chosen = TruncationStrategy(strategy)
    if chosen is TruncationStrategy.HARD:
        return truncate_hard(content, max_chars)
    if chosen is TruncationStrategy.SEMANTIC:
        return truncate_semantic(content, max_chars, query=query, embedder=embedder)
    return truncate_middle(content, max_chars)


async def truncate_content_async(
    content: str,
    max_chars: int,
    strategy: TruncationStrategy | str = TruncationStrategy.HARD,
    *,
    llm: LLM | None = None,
    query: str | None = None,
    embedder: TextEmbedder | None = None,
) -> str:
    """Like :func:`truncate_content`, but ``llm`` asks the model for a short version.

    The answer is cleaned of special tokens and cut to ``max_chars``; any failure (an
    exception, an empty answer, no ``llm`` given) falls back to ``middle``.
    """
    chosen = TruncationStrategy(strategy)
    if chosen is not TruncationStrategy.LLM:
        return truncate_content(content, max_chars, chosen, query=query, embedder=embedder)
    _check_limit(max_chars)
    if len(content) <= max_chars:
        return content
    if llm is None:
        return truncate_middle(content, max_chars)
    shortened = await _ask_llm(llm, content, max_chars)
    if not shortened:
        return truncate_middle(content, max_chars)
    return truncate_hard(shortened, max_chars)


def llm_truncation_prompt(content: str, max_chars: int) -> str:
    """The user prompt that asks for a version of ``content`` within ``max_chars``."""
    return (
        f"Shorten the message below to at most {max_chars} characters. "
        "Keep its meaning, facts and numbers.\n\nMessage:\n" + content
    )


async def _ask_llm(llm: LLM, content: str, max_chars: int) -> str:
    """The cleaned answer, or ``""`` on any failure (the caller falls back)."""
    request = prompt_request(
        llm_truncation_prompt(content, max_chars),
        system=LLM_TRUNCATION_SYSTEM_PROMPT,
        temperature=0.0,
        max_tokens=max(16, math.ceil(max_chars / 2)),
    )
    try:
        response = await llm.complete(request)
    except Exception as exc:  # any failure degrades to middle, by design
        logger.warning("llm truncation failed, using middle truncation: %r", exc)
        return ""
    return clean_output(response.text or "")


def _similarities(embedder: TextEmbedder, query: str, sentences: list[str]) -> list[float] | None:
    """Cosine similarity of each sentence to the query, or None when embedding fails."""
    try:
        vectors = np.asarray(embedder.embed([query, *sentences]), dtype=np.float32)
    except Exception as exc:  # any failure degrades to middle, by design
        logger.warning("semantic truncation could not embed, using middle: %r", exc)
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(sentences) + 1:
        logger.warning("semantic truncation got vectors of shape %s", vectors.shape)
        return None
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    return [float(score) for score in unit[1:] @ unit[0]]


def _select(sentences: list[str], ranking: list[int], max_chars: int) -> list[int]:
    """Indices chosen greedily by rank while the joined text fits, in original order."""
    chosen: list[int] = []
    for index in ranking:
        candidate = sorted([*chosen, index])
        if len(_join(sentences, candidate)) <= max_chars:
            chosen = candidate
    return chosen


def _join(sentences: list[str], indices: list[int]) -> str:
    """Adjacent sentences joined by a space, gaps marked with ``" … "``."""
    parts: list[str] = []
    previous: int | None = None
    for index in indices:
        if previous is not None:
            parts.append(" " if index == previous + 1 else SEMANTIC_GAP)
        parts.append(sentences[index])
        previous = index
    return "".join(parts)


def _check_limit(max_chars: int) -> None:
    if max_chars < 0:
        raise ValueError(f"max_chars must be zero or positive, got {max_chars}")
