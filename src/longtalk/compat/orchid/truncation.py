"""Orchid's ``core/truncation.py``: the strategy enum and the two truncation functions.

``hard`` and ``middle`` are longtalk's own (identical output); ``llm`` asks the chat model
through :class:`ChatModelLLM` and longtalk's LLM shortener, falling back to ``middle`` on
any failure; ``semantic`` is ``middle`` as in Orchid.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from longtalk.compat.orchid.chat_model import ChatModelLLM
from longtalk.core.truncation import MIDDLE_MARKER, truncate_hard, truncate_middle
from longtalk.llm.shortener import shorten_with_llm

__all__ = ["OrchidTruncationStrategy", "truncate_content", "truncate_content_async"]

_TRUNCATION_MARKER = MIDDLE_MARKER


class OrchidTruncationStrategy(str, Enum):  # noqa: UP042 - str() as in Orchid
    """How to handle messages that exceed max_chars."""

    HARD = "hard"
    MIDDLE = "middle"
    LLM = "llm"
    SEMANTIC = "semantic"


def truncate_content(
    content: str,
    max_chars: int,
    strategy: OrchidTruncationStrategy = OrchidTruncationStrategy.HARD,
) -> str:
    """Truncate ``content``; ``llm`` and ``semantic`` use ``middle`` synchronously."""
    if len(content) <= max_chars:
        return content
    if OrchidTruncationStrategy(strategy) is OrchidTruncationStrategy.HARD:
        return truncate_hard(content, max_chars)
    return truncate_middle(content, max_chars)


async def truncate_content_async(
    content: str,
    max_chars: int,
    strategy: OrchidTruncationStrategy = OrchidTruncationStrategy.HARD,
    chat_model: Any = None,
    query: str | None = None,
) -> str:
    """Async version: ``llm`` asks ``chat_model`` (``middle`` without one or on failure)."""
    if len(content) <= max_chars:
        return content
    chosen = OrchidTruncationStrategy(strategy)
    if chosen is OrchidTruncationStrategy.LLM and chat_model:
        return await shorten_with_llm(ChatModelLLM(chat_model), content, max_chars)
    return truncate_content(content, max_chars, chosen)
