"""The predecessors' ``truncate_content`` functions, over every longtalk backend.

``truncate_content`` / ``truncate_content_async`` take the embedder and the LLM directly,
as the Orchid API does, and shorten with longtalk's own strategies (``semantic`` ranks
sentences with the embedder, ``llm`` asks the model). Orchid's own signatures, with its
enum, are in :mod:`longtalk.compat.orchid.truncation`.
"""

from __future__ import annotations

from longtalk.core.truncation import TruncationStrategy, shorten_content
from longtalk.embed.semantic_shortener import TextEmbedder, truncate_semantic
from longtalk.llm.base import LLM
from longtalk.llm.shortener import shorten_with_llm

__all__ = ["truncate_content", "truncate_content_async"]


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
    if chosen is TruncationStrategy.SEMANTIC:
        return truncate_semantic(content, max_chars, query=query, embedder=embedder)
    return shorten_content(content, max_chars, chosen)


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

    Any failure (an exception, an empty answer, no ``llm`` given) falls back to ``middle``.
    """
    chosen = TruncationStrategy(strategy)
    if chosen is not TruncationStrategy.LLM:
        return truncate_content(content, max_chars, chosen, query=query, embedder=embedder)
    return await shorten_with_llm(llm, content, max_chars)
