"""Truncating one long message: hard | middle | llm | semantic (Orchid's strategies).

Pure logic. Every strategy returns ``content`` unchanged when it already fits and never
returns more than ``max_chars`` characters (Python code points). ``hard`` and ``middle`` are
computed here; ``llm`` and ``semantic`` ask a :class:`Shortener` (``longtalk.llm.shortener``
and ``longtalk.embed.semantic_shortener`` hold the backed ones) and fall back to ``middle`` without
one, and ``middle`` falls back to ``hard`` when ``max_chars`` is too small for its marker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

__all__ = [
    "ELLIPSIS",
    "MIDDLE_MARKER",
    "SEMANTIC_GAP",
    "Shortener",
    "TruncationStrategy",
    "join_sentences",
    "select_sentences",
    "shorten_content",
    "split_sentences",
    "truncate_hard",
    "truncate_middle",
]

ELLIPSIS = "…"
MIDDLE_MARKER = "…[truncated]…"
SEMANTIC_GAP = " … "

_SENTENCE_END = re.compile(r"(?<=[.!?…。！？])\s+|\n+")


class TruncationStrategy(StrEnum):
    """How a message longer than the limit is shortened."""

    HARD = "hard"
    MIDDLE = "middle"
    LLM = "llm"
    SEMANTIC = "semantic"


@runtime_checkable
class Shortener(Protocol):
    """Shortens one message for the ``llm`` or ``semantic`` strategy (synchronously).

    Returns at most ``max_chars`` characters; it degrades to ``middle`` itself on failure.
    ``query`` is what the current turn is about (semantic ranking uses it).
    """

    def shorten(self, content: str, max_chars: int, query: str | None) -> str:
        """The shortened ``content``."""
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


def split_sentences(content: str) -> list[str]:
    """Split on sentence ends and line breaks; empty pieces are dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(content) if piece.strip()]


def shorten_content(
    content: str,
    max_chars: int,
    strategy: TruncationStrategy | str = TruncationStrategy.HARD,
    *,
    query: str | None = None,
    shortener: Shortener | None = None,
) -> str:
    """Shorten ``content`` to at most ``max_chars`` characters with ``strategy``.

    ``llm`` and ``semantic`` use ``shortener`` when given, else ``middle``.
    """
    chosen = TruncationStrategy(strategy)
    _check_limit(max_chars)
    if len(content) <= max_chars:
        return content
    if chosen is TruncationStrategy.HARD:
        return truncate_hard(content, max_chars)
    if chosen is TruncationStrategy.MIDDLE or shortener is None:
        return truncate_middle(content, max_chars)
    return truncate_hard(shortener.shorten(content, max_chars, query), max_chars)


def select_sentences(sentences: Sequence[str], scores: Sequence[float], max_chars: int) -> str:
    """The best-scored sentences that fit together, in their original order.

    Sentences are added greedily, best first, while the result (non-adjacent sentences
    joined by ``" … "``) fits; when not even the best one fits it is cut hard.
    """
    ranking = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    chosen = _select(list(sentences), ranking, max_chars)
    if not chosen:
        return truncate_hard(sentences[ranking[0]], max_chars)
    return join_sentences(list(sentences), chosen)


def _select(sentences: list[str], ranking: list[int], max_chars: int) -> list[int]:
    """Indices chosen greedily by rank while the joined text fits, in original order."""
    chosen: list[int] = []
    for index in ranking:
        candidate = sorted([*chosen, index])
        if len(join_sentences(sentences, candidate)) <= max_chars:
            chosen = candidate
    return chosen


def join_sentences(sentences: list[str], indices: list[int]) -> str:
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
