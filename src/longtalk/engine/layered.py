"""The layered context of a chat too long to show whole, from its filtered window on.

A read decides, before the filter pipeline runs, what a layered context shows verbatim and
by which numbers it is assembled (:class:`Layers`); :func:`layered_context` takes the window
as the pipeline showed it and goes on in one direction: the window is quoted and the budget
divided; recall (the query's embedding) runs while the durable facts are chosen and the
summary is cut to its room; the recalled turns and the summary are quoted; then the pure
assembly places the lines, in one call, under the contract:
[durable facts] [user] [recalled] [summary] [recent window].
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from longtalk.config import MemoryConfig
from longtalk.core.budget_division import ContextBudget, divide_quoted
from longtalk.core.context import AssembledContext, ContextPart, QuotedParts, assemble_divided
from longtalk.core.history import Numbered
from longtalk.core.quoting import quoted_lines, quoted_summary, quoted_turns
from longtalk.core.tokens import TokenCounter
from longtalk.engine.durable import DurablePart, FactsDraft
from longtalk.engine.recall_blocks import RecallBlocks
from longtalk.recall.defaults import recall_for_read
from longtalk.storage.base import ChatRecord, ChatState
from longtalk.summary.chain import ShownSummaries
from longtalk.vectors.base import RecallScope, VectorReader


class ScopeOf(Protocol):
    """The recall scope of a chat."""

    def __call__(self, chat: ChatRecord) -> RecallScope:
        """The scope."""
        ...


@dataclass(frozen=True, slots=True)
class LayerSources:
    """What a layered context is assembled with: the reader's counter, recall and parts."""

    config: MemoryConfig
    counter: TokenCounter
    recall: VectorReader
    scope: ScopeOf
    durable: DurablePart
    shown_summaries: ShownSummaries
    recall_blocks: RecallBlocks
    uses_recall: bool
    """True when the read recalls past turns for its query."""


@dataclass(frozen=True, slots=True)
class Layers:
    """What a layered read decided before its window went through the filter pipeline.

    ``window`` is the messages it shows verbatim (older ones, when nothing is recalled, then
    the pending and the recent ones), before filtering; ``first_recent`` the sequence the
    recent window starts at (infinity without one); ``room`` what the durable facts' reserve
    and the user part leave of ``budget``.
    """

    state: ChatState
    budget: int
    user: ContextPart | None
    rules: ContextBudget
    stable: bool
    draft: FactsDraft
    room: int
    window: list[Numbered]
    first_recent: float


async def layered_context(
    sources: LayerSources, layers: Layers, shown_window: Sequence[Numbered], query: str | None
) -> AssembledContext:
    """[durable facts] [user] [recalled] [summary] [recent window] from the filtered window."""
    state, rules, stable, room = layers.state, layers.rules, layers.stable, layers.room
    counter, config = sources.counter, sources.config
    window = quoted_lines(shown_window)  # each line as the context counts and shows it
    pending = [line for line in window if line.sequence < layers.first_recent]
    recent = [line for line in window if line.sequence >= layers.first_recent]
    layout = divide_quoted(room, verbatim=recent, counter=counter, rules=rules, stable=stable)
    recall = (
        asyncio.ensure_future(
            recall_for_read(
                sources.recall,
                query,
                sources.scope(state.chat),
                k=config.rag_k,
                budget_tokens=room,
                threshold=config.rag_similarity_threshold,
                floor=config.rag_relevance_floor,
                shown=layout.shown,
            )
        )
        if sources.uses_recall and query
        else None
    )
    try:
        if recall is not None:
            await asyncio.sleep(0)  # recall hands the query to the embedder, then...
        # ...the facts the question needs are found and the summary cut while it embeds
        # cache_friendly: the facts part must not change with the question (it leads the
        # cached prefix), so durability alone chooses when not all fit
        facts, dropped_facts = await sources.durable.part(layers.draft, None if stable else query)
        if facts is not None and recall is not None:
            # recall needs the room for the answer, and the summary would repeat what the
            # facts say of people; without a question it is the only view of the past
            layout = layout.yielding(facts.tokens)
        shown = sources.shown_summaries(state.summaries, max_tokens=layout.summary_text)
        recalled = await recall if recall is not None else []
    finally:
        if recall is not None and not recall.done():
            recall.cancel()
    key = (state.chat.id, layers.budget)
    sticky = stable and recall is not None  # the last block may be shown again
    kept = sources.recall_blocks.kept(key, state) if sticky else ()
    summary = quoted_summary(shown.text or None, (row.summary_text for row in shown.rows))
    quoted = QuotedParts(
        durable=tuple(part for part in (facts, layers.user) if part is not None),
        recalled=quoted_turns(recalled),
        summary=summary,
        summary_rows=shown.rows,
        summary_cut=shown.truncated,
        pending=pending,
        kept_recall=quoted_turns(kept),
    )
    assembled = assemble_divided(
        layout, quoted, budget_tokens=layers.budget, counter=counter, rules=rules
    )
    if sticky:
        sources.recall_blocks.keep(key, state.chat, assembled.recall_block)
    return replace(assembled, dropped_facts=dropped_facts)
