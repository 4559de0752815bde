"""The seed's truncation functions over every backend, and the async pipeline runner.

``truncate_content`` / ``truncate_content_async`` take the embedder and the LLM directly,
as the seed's API does; :func:`shortener_for` builds the shortener a strategy needs, and
:func:`apply_pipeline` runs a filter pipeline after awaiting what its LLM shorteners need.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.core.filters import (
    FilterContext,
    MaxCharsFilter,
    MessageFilterPipeline,
    context_for,
)
from longtalk.core.messages import Message
from longtalk.core.truncation import Shortener, TruncationStrategy, shorten_content
from longtalk.embed.truncation import SemanticShortener, TextEmbedder, truncate_semantic
from longtalk.llm.base import LLM
from longtalk.llm.truncation import LLMShortener, shorten_with_llm

__all__ = [
    "apply_pipeline",
    "shortener_for",
    "truncate_content",
    "truncate_content_async",
]


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


def shortener_for(
    strategy: TruncationStrategy | str,
    *,
    llm: LLM | None = None,
    embedder: TextEmbedder | None = None,
) -> Shortener | None:
    """The shortener ``strategy`` needs, or None (``hard``, ``middle``, or no backend)."""
    chosen = TruncationStrategy(strategy)
    if chosen is TruncationStrategy.LLM and llm is not None:
        return LLMShortener(llm)
    if chosen is TruncationStrategy.SEMANTIC and embedder is not None:
        return SemanticShortener(embedder)
    return None


async def apply_pipeline(
    pipeline: MessageFilterPipeline,
    messages: Sequence[Message],
    context: FilterContext | None = None,
) -> list[Message]:
    """Run ``pipeline``, first asking each LLM shortener for the messages it will see."""
    context = context or context_for(messages)
    result = list(messages)
    for message_filter in pipeline.filters:
        if isinstance(message_filter, MessageFilterPipeline):
            result = await apply_pipeline(message_filter, result, context)
            continue
        if isinstance(message_filter, MaxCharsFilter) and isinstance(
            message_filter.shortener, LLMShortener
        ):
            contents = [message.content for message in result]
            await message_filter.shortener.prepare(contents, message_filter.max_chars)
        result = message_filter.apply(result, context)
    return result
