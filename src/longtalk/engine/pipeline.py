"""The engine's filter step: the shortener a truncation strategy needs, and the pipeline run.

:func:`shortener_for` builds the shortener a strategy needs (an LLM or the embedder),
:func:`apply_pipeline` runs a filter pipeline after awaiting what its LLM shorteners need,
and :func:`show_numbered` runs it over stored messages, each kept with its sequence.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.core.filters import (
    FilterContext,
    MaxCharsFilter,
    MessageFilterPipeline,
    context_for,
)
from longtalk.core.history import Numbered
from longtalk.core.messages import Message
from longtalk.core.truncation import Shortener, TruncationStrategy
from longtalk.embed.semantic_shortener import SemanticShortener, TextEmbedder
from longtalk.llm.base import LLM
from longtalk.llm.shortener import LLMShortener

__all__ = ["apply_pipeline", "shortener_for", "show_numbered"]


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


async def show_numbered(
    pipeline: MessageFilterPipeline, numbered: Sequence[Numbered], query: str | None = None
) -> list[Numbered]:
    """Messages through ``pipeline``, each still numbered with its sequence.

    ``query`` is what semantic truncation ranks sentences against (default: the last user
    message). Messages are matched back to their sequences by identity: each goes through
    the pipeline with its stored id (or a stand-in) and comes back with the id it had.
    """
    if not numbered:
        return []
    keys = [message.id or f"longtalk:{sequence}" for sequence, message in numbered]
    by_key = {key: (seq, msg.id) for key, (seq, msg) in zip(keys, numbered, strict=True)}
    keyed = [
        msg.model_copy(update={"id": key}) for key, (_, msg) in zip(keys, numbered, strict=True)
    ]
    shown = await apply_pipeline(pipeline, keyed, context_for(keyed, query))
    result: list[Numbered] = []
    for message in shown:
        sequence, original = by_key.get(message.id or "", (0, message.id))
        result.append((sequence, message.model_copy(update={"id": original})))
    return result
