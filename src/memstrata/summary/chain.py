"""Summary chains: reading rows as summaries and rendering a chain for the context."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

from memstrata.storage.base import SummaryRow
from memstrata.summary.model import ConversationSummary


def row_summary(row: SummaryRow) -> ConversationSummary:
    """The summary a row stores: parsed JSON, or narrative-only for plain text."""
    if row.format == "json":
        return ConversationSummary.parse(row.summary_text)
    return ConversationSummary(narrative=row.summary_text)


def render_chain(rows: Sequence[SummaryRow]) -> str:
    """One text for a chain.

    Each row's narrative with its episode range, then the structured sections merged across
    rows (entities deduplicated).
    """
    if not rows:
        return ""
    summaries = [row_summary(row) for row in rows]
    if len(rows) == 1:
        return summaries[0].to_context_string()
    narratives = [
        f"Episodes {row.episode_range}: {summary.narrative}"
        for row, summary in zip(rows, summaries, strict=True)
        if summary.narrative
    ]
    merged = reduce(lambda a, b: a.merge(b), summaries)
    sections = merged.model_copy(update={"narrative": ""}).to_context_string()
    return "\n".join([*narratives, sections] if sections else narratives)
