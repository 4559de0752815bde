"""Summary chains: rows read as summaries, and the chain rendered within a token cap.

A chain is shown oldest first: the digest (older rows consolidated) and the rows after it.
:func:`shown_summary` renders it within ``max_tokens``; when it must be cut, the oldest
detail goes first (older rows' narratives, then list items and entities by age), never the
newest row's narrative, and the rows it reports are exactly those still shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from memstrata.core.tokens import TokenCounter
from memstrata.core.truncation import split_sentences
from memstrata.storage.base import SummaryFormat, SummaryRow
from memstrata.summary.model import LIST_FIELDS, ConversationSummary

_LISTS = ("topics", *LIST_FIELDS[1:])


def row_summary(row: SummaryRow) -> ConversationSummary:
    """The summary a row stores: parsed JSON, or narrative-only for plain text."""
    if row.format == "json":
        return ConversationSummary.parse(row.summary_text)
    return ConversationSummary(narrative=row.summary_text)


def stored_form(summary: ConversationSummary, *, structured: bool) -> tuple[str, SummaryFormat]:
    """The text and format a row stores for ``summary``."""
    if structured:
        return summary.to_json(), "json"
    return summary.narrative, "text"


def render_chain(rows: Sequence[SummaryRow]) -> str:
    """One text for a whole chain (no cap): see :func:`render_summaries`."""
    return render_summaries(list(rows), [row_summary(row) for row in rows])


def render_summaries(rows: Sequence[SummaryRow], summaries: Sequence[ConversationSummary]) -> str:
    """Each row's narrative with its episode range, then the sections merged across rows."""
    if not rows:
        return ""
    if len(rows) == 1:
        return summaries[0].to_context_string()
    narratives = [
        f"Episodes {row.episode_range}{_period(summary)}: {summary.narrative}"
        for row, summary in zip(rows, summaries, strict=True)
        if summary.narrative
    ]
    combined = reduce(lambda a, b: a.merge(b), summaries)
    sections = combined.model_copy(
        update={"narrative": "", "since": None, "until": None}
    ).to_context_string()
    return "\n".join([*narratives, sections] if sections else narratives)


@dataclass(frozen=True, slots=True)
class ShownSummary:
    """The summary as shown: its text, the rows it draws on, whether detail was cut."""

    text: str
    rows: tuple[SummaryRow, ...] = ()
    truncated: bool = False


def shown_summary(
    rows: Sequence[SummaryRow], *, max_tokens: int, counter: TokenCounter
) -> ShownSummary:
    """The chain within ``max_tokens``: the oldest detail is cut first, never the newest row."""
    summaries = [row_summary(row) for row in rows]
    text = render_summaries(rows, summaries)
    if counter.count(text) <= max_tokens:
        return ShownSummary(text, tuple(rows))
    units = _detail_units(summaries)
    low, high = 0, len(units)  # the fewest oldest units to cut so that the text fits
    while low < high:
        middle = (low + high) // 2
        if counter.count(_render_without(rows, summaries, units[:middle])) <= max_tokens:
            high = middle
        else:
            low = middle + 1
    kept_rows, kept = _without(rows, summaries, units[:low])
    return ShownSummary(render_summaries(kept_rows, kept), tuple(kept_rows), truncated=True)


_Unit = tuple[int, str, int]
"""A piece of detail: (row index, field, position in the field; a sentence for narratives)."""


def _detail_units(summaries: Sequence[ConversationSummary]) -> list[_Unit]:
    """Every cuttable piece, oldest first.

    Older rows go before newer ones; within a row, every field loses its oldest part first
    (items by relative position). The newest row's last narrative sentence is never listed.
    """
    ranked: list[tuple[int, float, _Unit]] = []
    last = len(summaries) - 1
    for index, summary in enumerate(summaries):
        sizes = {name: len(getattr(summary, name)) for name in (*_LISTS, "entities")}
        sizes["narrative"] = len(split_sentences(summary.narrative))
        if index == last:
            sizes["narrative"] -= 1  # the newest thing the summary says stays
        for name, size in sizes.items():
            total = size + (1 if index == last and name == "narrative" else 0)
            ranked += [(index, pos / max(1, total), (index, name, pos)) for pos in range(size)]
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [unit for _, _, unit in ranked]


def _without(
    rows: Sequence[SummaryRow], summaries: Sequence[ConversationSummary], cut: Sequence[_Unit]
) -> tuple[list[SummaryRow], list[ConversationSummary]]:
    drop: dict[int, dict[str, set[int]]] = {}
    for index, name, pos in cut:
        drop.setdefault(index, {}).setdefault(name, set()).add(pos)
    kept_rows: list[SummaryRow] = []
    kept: list[ConversationSummary] = []
    for index, (row, summary) in enumerate(zip(rows, summaries, strict=True)):
        trimmed = _trim(summary, drop.get(index, {}))
        if not trimmed.is_empty or index == len(rows) - 1:
            kept_rows.append(row)
            kept.append(trimmed)
    return kept_rows, kept


def _trim(summary: ConversationSummary, drop: dict[str, set[int]]) -> ConversationSummary:
    if not drop:
        return summary
    updates: dict[str, object] = {}
    for name, positions in drop.items():
        if name == "narrative":
            sentences = split_sentences(summary.narrative)
            kept = [s for pos, s in enumerate(sentences) if pos not in positions]
            updates["narrative"] = " ".join(kept)
            continue
        values = getattr(summary, name)
        updates[name] = tuple(v for pos, v in enumerate(values) if pos not in positions)
    return summary.model_copy(update=updates)


def _render_without(
    rows: Sequence[SummaryRow], summaries: Sequence[ConversationSummary], cut: Sequence[_Unit]
) -> str:
    kept_rows, kept = _without(rows, summaries, cut)
    return render_summaries(kept_rows, kept)


def _period(summary: ConversationSummary) -> str:
    return f" ({summary.period})" if summary.period else ""
