"""Context assembly under the context contract: [durable] [recalled] [summary] [recent window].

Pure logic. The contract, in order of claim on the budget:

0. the **durable** parts (the chat's durable facts, what is known about its user from
   earlier chats) come first, already rendered within their own bounded share; recall
   never takes their room;
1. the **recent window** (the last ``summary_recent_turns`` exchanges) is shown whole, in
   order; only when it alone exceeds the budget are its oldest messages cut, and the context
   says so (``window_intact`` False, a note line);
2. the **summary** gets up to ``BudgetDivision.summary`` (at most ``summary_max_tokens``, at
   most ``summary_share`` of what the window leaves): the summary package shapes it to fit;
   a text still too long loses whole oldest rows first, never the newest;
3. **pending** messages (older than the window, not summarized yet) follow, newest first,
   so nothing disappears between leaving the window and reaching the summary;
4. **recall** fills what remains, deduplicated against the shown messages, best relevance
   per token first (measured as the part renders), printed chronologically with a date line
   per day.

The division of the budget (:mod:`longtalk.core.budget_division`) is the stage before this
one: a reader divides, recalls, then assembles here. Its names are re-exported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, overload

from longtalk.core.budget_division import (
    DEFAULT_BUDGET,
    OMITTED_NOTE,
    SUMMARY_HEADER,
    VERBATIM_HEADER,
    BudgetDivision,
    ContextBudget,
    ContextOrder,
    Shown,
    ShownWindow,
    divide_budget,
    divide_quoted,
    fit_window,
    newest_that_fit,
    numbered_shown,
    surely_shown,
)
from longtalk.core.messages import Message, MessageType, Role
from longtalk.core.quoting import QuotedLine, quoted_lines, quoted_summary, quoted_turns
from longtalk.core.tokens import DEFAULT_COUNTER, TokenCounter

__all__ = [
    "AssembledContext",
    "BudgetDivision",
    "Context",
    "ContextBudget",
    "ContextOrder",
    "ContextPart",
    "DEFAULT_BUDGET",
    "DURABLE_KINDS",
    "ELLIPSIS",
    "KnownFactLike",
    "MIN_SUMMARY_WORDS",
    "OMITTED_NOTE",
    "PartKind",
    "QuotedParts",
    "QuotedTurn",
    "RECALL_HEADER",
    "RecalledLike",
    "SUMMARY_HEADER",
    "Shown",
    "SummaryRowLike",
    "TOP_UP_TRIES",
    "VERBATIM_HEADER",
    "assemble_context",
    "assemble_divided",
    "assemble_quoted",
    "divide_budget",
    "divide_quoted",
    "fit_window",
    "surely_shown",
    "verbatim_cost",
    "whole_chat_context",
]

PartKind = Literal["facts", "user", "recalled", "summary", "verbatim"]
DURABLE_KINDS: tuple[PartKind, ...] = ("facts", "user")

RECALL_HEADER = "Relevant earlier conversation, quoted:"
ELLIPSIS = "…"


class RecalledLike(Protocol):
    """A recalled turn (``longtalk.vectors.base.RecalledTurn`` fits)."""

    @property
    def message(self) -> Message:
        """The past message."""
        ...

    @property
    def score(self) -> float:
        """Its relevance to the query; higher is better."""
        ...

    @property
    def sequence(self) -> int:
        """Its position in the chat."""
        ...


class SummaryRowLike(Protocol):
    """A summary row (``longtalk.storage.base.SummaryRow`` fits)."""

    @property
    def summary_text(self) -> str:
        """The row's text."""
        ...

    @property
    def episode_first(self) -> int:
        """First episode covered."""
        ...

    @property
    def episode_last(self) -> int:
        """Last episode covered."""
        ...


@dataclass(frozen=True, slots=True)
class ContextPart:
    """One assembled part and where it came from.

    ``sequences``/``message_ids``/``scores`` describe the messages in the part (recalled and
    verbatim), ``episode_ranges`` the summary rows (first, last) that the summary part holds.
    """

    kind: PartKind
    text: str
    tokens: int
    messages: tuple[Message, ...] = ()
    sequences: tuple[int, ...] = ()
    scores: tuple[float, ...] = ()
    episode_ranges: tuple[tuple[int, int], ...] = ()
    truncated: bool = False

    @property
    def message_ids(self) -> tuple[str | None, ...]:
        """The ids of the part's messages (None where a message has none)."""
        return tuple(message.id for message in self.messages)


class KnownFactLike(Protocol):
    """An item of the user part (``longtalk.storage.user_memory.UserFact`` fits)."""

    @property
    def text(self) -> str:
        """What is known."""
        ...

    @property
    def chat_id(self) -> str | None:
        """The chat it was taken from (None when the application stored it)."""
        ...

    @property
    def messages(self) -> tuple[int, int]:
        """The first and last sequence of that chat's messages it was taken from."""
        ...


@dataclass(frozen=True, slots=True)
class Context:
    """The context for one turn, as ordered parts with provenance.

    ``messages`` is what to send the model (OpenAI-style dicts); ``render()`` (or ``text``)
    the whole context as one string; ``parts`` the parts in contract order, each with its
    kind, text, tokens and provenance. ``dropped_verbatim`` counts window messages cut
    because the window alone exceeded the budget (``window_intact`` is then False);
    ``dropped_pending`` counts pending messages left out, ``dropped_recalled`` recalled
    turns that did not fit and ``dropped_facts`` durable facts the facts share could not
    hold. ``user_facts`` are the items of the user part, each with the chat it came from.
    ``recall_block`` (``cache_friendly``) is the recalled block the next turn may keep (the
    one shown, or the one chosen from this question's recall when none was): pass it back
    as ``kept_recall``.
    """

    parts: tuple[ContextPart, ...]
    budget_tokens: int
    allocation: dict[PartKind, int] = field(default_factory=dict)
    dropped_recalled: int = 0
    dropped_verbatim: int = 0
    dropped_pending: int = 0
    dropped_facts: int = 0
    user_facts: tuple[KnownFactLike, ...] = ()
    recall_block: tuple[RecalledLike, ...] = ()

    def part(self, kind: PartKind) -> ContextPart | None:
        """The part of that kind, if present."""
        return next((part for part in self.parts if part.kind == kind), None)

    @property
    def window_intact(self) -> bool:
        """True when the whole recent window is shown."""
        return self.dropped_verbatim == 0

    @property
    def recalled(self) -> tuple[Message, ...]:
        """The recalled messages, chronologically within each recalled part."""
        return tuple(m for part in self.parts if part.kind == "recalled" for m in part.messages)

    @property
    def verbatim(self) -> tuple[Message, ...]:
        """The recent messages kept verbatim, oldest first (send these as chat messages)."""
        found = self.part("verbatim")
        return found.messages if found else ()

    @property
    def summary_text(self) -> str | None:
        """The summary text that made it in."""
        found = self.part("summary")
        return found.text if found else None

    @property
    def user(self) -> ContextPart | None:
        """The user part: what is known about the chat's user from earlier chats."""
        return self.part("user")

    @property
    def facts(self) -> ContextPart | None:
        """The durable facts part."""
        return self.part("facts")

    @property
    def tokens_used(self) -> int:
        """Sum of the parts' token counts (an upper bound of the rendered string's count)."""
        return sum(part.tokens for part in self.parts) + max(0, len(self.parts) - 1)

    @property
    def tokens(self) -> int:
        """Same as :attr:`tokens_used`."""
        return self.tokens_used

    def preamble(self) -> str:
        """Every part but the recent window: the text to place before the chat messages."""
        return "\n\n".join(part.text for part in self.parts if part.kind != "verbatim")

    def _around_window(self) -> tuple[str, str]:
        """The parts' texts before the recent window, and after it (``cache_friendly``)."""
        kinds = [part.kind for part in self.parts]
        at = kinds.index("verbatim") if "verbatim" in kinds else len(kinds)
        before = "\n\n".join(part.text for part in self.parts[:at])
        return before, "\n\n".join(part.text for part in self.parts[at + 1 :])

    def render(self) -> str:
        """The whole context as one string, parts separated by blank lines."""
        return "\n\n".join(part.text for part in self.parts)

    @property
    def text(self) -> str:
        """Same as :meth:`render`."""
        return self.render()

    @property
    def messages(self) -> list[dict[str, str]]:
        """The messages to send: see :meth:`to_messages`."""
        return self.to_messages()

    def to_messages(self, system: str | None = None) -> list[dict[str, str]]:
        """The context as chat messages, ``system`` (your instructions) leading the preamble.

        Every part but the recent window goes into one system message; the window follows
        with its real roles. Tool calls and tool results become assistant messages marked
        ``[tool call]`` / ``[tool result]``: a bare ``{"role", "content"}`` message cannot
        carry call ids. When the window was cut, its note leads the window. Parts placed
        after the window (``cache_friendly``: the recalled turns) follow it in a last
        system message, so the messages before them stay a cacheable prefix.
        """
        before, after = self._around_window()
        preamble = [text for text in (system, before) if text]
        window = self.part("verbatim")
        if window is not None and window.truncated:
            preamble.append(OMITTED_NOTE.format(count=self.dropped_verbatim))
        shown: list[dict[str, str]] = []
        if preamble:
            shown.append({"role": "system", "content": "\n\n".join(preamble)})
        shown += [_as_chat_message(message) for message in self.verbatim]
        if after:
            shown.append({"role": "system", "content": after})
        return shown


AssembledContext = Context
"""The name the engine and the benchmarks use for :class:`Context`."""


def _as_chat_message(message: Message) -> dict[str, str]:
    if message.type == MessageType.TOOL or message.role == Role.TOOL:
        mark = "[tool result]" if message.role == Role.TOOL else "[tool call]"
        return {"role": "assistant", "content": f"{mark} {message.content}"}
    return {"role": message.role.value, "content": message.content}


def assemble_context(
    *,
    durable: Sequence[ContextPart] = (),
    recalled: Sequence[RecalledLike] = (),
    summary: str | None = None,
    summary_rows: Sequence[SummaryRowLike] = (),
    summary_cut: bool = False,
    verbatim: Sequence[Shown] = (),
    pending: Sequence[Shown] = (),
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
    division: BudgetDivision | None = None,
    kept_recall: Sequence[RecalledLike] = (),
) -> AssembledContext:
    """Assemble [durable] [recalled turns] [summary] [recent window] within ``budget_tokens``.

    Args:
        durable: the durable parts (facts, user), already rendered within their share: they
            lead the context and the rest is assembled in what they leave.
        recalled: recalled turns, best first (as the retriever returns them).
        summary: the summary text; when None, the rows' texts joined (oldest first).
        summary_rows: the rows the summary shows (their episode ranges are the provenance;
            when the text is built from them and too long, the oldest rows go first).
        summary_cut: the summary text was already cut to fit (the part says it is truncated).
        verbatim: the recent window, oldest first (bare or ``(sequence, message)``).
        pending: messages older than the window not summarized yet, oldest first.
        budget_tokens: the ceiling for the whole rendered context.
        counter: counts tokens.
        rules: the contract's numbers.
        division: how the budget left by ``durable`` is divided (:func:`divide_budget`),
            when the caller divided it to shape the summary; the summary is then shown as
            given (already within ``division.summary_text``), never cut a second time.
        kept_recall: ``cache_friendly`` only: the previous context's ``recall_block``. It is
            shown before the window, in the same order and bytes, while its turns are still
            relevant enough to the question (``rules.recall_serves``) and leave the
            question's own turns their room (``rules.recall_spares``); the turns recalled
            afresh follow the window (:func:`_sticky_recall`).

    Every line is quoted first (:mod:`longtalk.core.quoting`), then
    :func:`assemble_quoted` places them.
    """
    return assemble_quoted(
        durable=durable,
        recalled=quoted_turns(recalled),
        summary=quoted_summary(summary, (row.summary_text for row in summary_rows)),
        summary_rows=summary_rows,
        summary_cut=summary_cut,
        verbatim=quoted_lines(numbered_shown(verbatim)),
        pending=quoted_lines(numbered_shown(pending)),
        budget_tokens=budget_tokens,
        counter=counter,
        rules=rules,
        division=division,
        kept_recall=quoted_turns(kept_recall),
    )


QuotedTurn = tuple[RecalledLike, QuotedLine]
"""A recalled turn with its quoted lines (:func:`longtalk.core.quoting.quoted_turns`)."""


@dataclass(frozen=True, slots=True)
class QuotedParts:
    """What a context places, every line quoted: :func:`assemble_quoted`'s arguments.

    ``summary`` is the summary's passages as :func:`~longtalk.core.quoting.quoted_summary`
    gives them, ``summary_cut`` whether they were cut to fit; ``pending`` the messages as
    :func:`~longtalk.core.quoting.quoted_lines` does, ``recalled`` and ``kept_recall`` the
    turns as :func:`~longtalk.core.quoting.quoted_turns` does.
    """

    durable: Sequence[ContextPart] = ()
    recalled: Sequence[QuotedTurn] = ()
    summary: Sequence[str] = ()
    summary_rows: Sequence[SummaryRowLike] = ()
    summary_cut: bool = False
    pending: Sequence[QuotedLine] = ()
    kept_recall: Sequence[QuotedTurn] = ()


def assemble_quoted(
    *,
    durable: Sequence[ContextPart] = (),
    recalled: Sequence[QuotedTurn] = (),
    summary: Sequence[str] = (),
    summary_rows: Sequence[SummaryRowLike] = (),
    summary_cut: bool = False,
    verbatim: Sequence[QuotedLine] = (),
    pending: Sequence[QuotedLine] = (),
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
    division: BudgetDivision | None = None,
    kept_recall: Sequence[QuotedTurn] = (),
) -> AssembledContext:
    """:func:`assemble_context` of lines already quoted: it counts and places them only.

    ``verbatim`` is the window as :func:`~longtalk.core.quoting.quoted_lines` gives it, the
    rest as :class:`QuotedParts` describes it. Without a ``division`` the budget is divided
    here and the summary cut to its share; with one, this is :func:`assemble_divided`.
    """
    quoted = QuotedParts(
        durable, recalled, summary, summary_rows, summary_cut, pending, kept_recall
    )
    if division is None:
        budget = max(0, budget_tokens) - sum(_cost(part) for part in durable)
        division = divide_quoted(budget, verbatim=verbatim, counter=counter, rules=rules)
        quoted = _cut_summary(quoted, division.summary, counter, rules)
    return assemble_divided(
        division, quoted, budget_tokens=budget_tokens, counter=counter, rules=rules
    )


def assemble_divided(
    division: BudgetDivision,
    quoted: QuotedParts,
    *,
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> AssembledContext:
    """The context of ``quoted`` within a budget already divided (:func:`divide_quoted`).

    The stage after the division and recall: ``division`` shows its window, and the caller
    shaped the summary to ``division.summary_text``, so it is shown as given, never cut a
    second time; this places the parts and trims only what would still overflow. A reader
    that quotes the lines as it gathers them hands this the whole context's text in one
    call.
    """
    summary_part = _shaped_summary(list(quoted.summary), quoted.summary_rows, rules)
    summary_part = summary_part and _counted(summary_part, counter)
    total = max(0, budget_tokens)
    budget = total - sum(_cost(part) for part in quoted.durable)
    recent = division.window
    if summary_part is not None and quoted.summary_cut:
        summary_part = replace(summary_part, truncated=True)
    left = budget - _cost(summary_part)
    verbatim_part, cut, skipped = _verbatim_part(recent, quoted.pending, left - 1, counter, rules)
    left -= _cost(verbatim_part)
    shown = verbatim_part.messages if verbatim_part else ()
    shown_sequences = set(verbatim_part.sequences) if verbatim_part else set()
    entries = _entries(_dedup_recalled(quoted.recalled, shown, shown_sequences), counter, rules)
    kept_part: ContextPart | None = None
    block: tuple[_Entry, ...] = ()
    if rules.order == "cache_friendly" and rules.recall_keep > 0:
        kept = _entries(_dedup_recalled(quoted.kept_recall, shown, shown_sequences), counter, rules)
        kept_part, recall_part, dropped_recalled, block = _sticky_recall(
            entries, kept, left - 1, counter, rules, budget
        )
    else:
        recall_part, dropped_recalled = _recall_part(entries, left - 1, counter, rules)
    rest: tuple[ContextPart | None, ...] = (recall_part, summary_part, verbatim_part)
    if rules.order == "cache_friendly":
        rest = (summary_part, kept_part, verbatim_part, recall_part)
    parts = (*quoted.durable, *(p for p in rest if p is not None))
    turns = [turn for turn, _ in (*quoted.recalled, *quoted.kept_recall)]
    return Context(
        parts=parts,
        budget_tokens=total,
        allocation=_allocation(parts),
        dropped_recalled=dropped_recalled,
        dropped_verbatim=cut,
        dropped_pending=skipped,
        recall_block=_turns([entry.turn.sequence for entry in block], turns),
    )


@overload
def whole_chat_context(
    shown: Sequence[Shown],
    *,
    durable: Sequence[ContextPart] = (),
    budget_tokens: None = None,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> AssembledContext: ...


@overload
def whole_chat_context(
    shown: Sequence[Shown],
    *,
    durable: Sequence[ContextPart] = (),
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> AssembledContext | None: ...


def whole_chat_context(
    shown: Sequence[Shown],
    *,
    durable: Sequence[ContextPart] = (),
    budget_tokens: int | None = None,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> AssembledContext | None:
    """The chat itself as the context: ``durable``, then every message of ``shown`` verbatim.

    Under ``budget_tokens`` it is None when the chat does not fit what ``durable`` leaves
    (the caller then assembles the layered context); with no budget the context is as long
    as the chat (a read without memory). The fit is measured and the context assembled in
    this one call.
    """
    cost = verbatim_cost(shown, counter)
    durable_cost = sum(_cost(part) for part in durable)
    if budget_tokens is None:
        budget_tokens = durable_cost + cost
    elif cost > budget_tokens - durable_cost:
        return None
    return assemble_context(
        durable=durable,
        verbatim=shown,
        budget_tokens=budget_tokens,
        counter=counter,
        rules=rules,
    )


def _allocation(parts: Sequence[ContextPart]) -> dict[PartKind, int]:
    """Tokens per kind (``cache_friendly`` may show recalled turns in two parts)."""
    tokens: dict[PartKind, int] = {}
    for part in parts:
        tokens[part.kind] = tokens.get(part.kind, 0) + part.tokens
    return tokens


def verbatim_cost(shown: Sequence[Shown], counter: TokenCounter = DEFAULT_COUNTER) -> int:
    """What ``shown`` costs as the recent window (header, one line each, the separator)."""
    lines = sum(counter.count(item.line) + 1 for item in quoted_lines(numbered_shown(shown)))
    return counter.count(VERBATIM_HEADER) + 2 + lines


def _cost(part: ContextPart | None) -> int:
    """A part's tokens plus its separator from the next part."""
    return part.tokens + 1 if part else 0


# -- verbatim -----------------------------------------------------------------------------------


def _verbatim_part(
    recent: ShownWindow,
    pending: Sequence[QuotedLine],
    room: int,
    counter: TokenCounter,
    rules: ContextBudget,
) -> tuple[ContextPart | None, int, int]:
    """The window, preceded by as many pending messages as fit, newest first.

    Returns the part, the window messages cut and the pending messages left out.
    """
    earlier: list[QuotedLine] = []
    if not recent.cut:
        earlier, _ = newest_that_fit(pending, room - recent.cost, counter)
        if rules.order == "cache_friendly" and len(earlier) < len(pending):
            earlier = _from_step(earlier, rules.window_step)
    shown = [*earlier, *recent.kept]
    if not shown:
        return None, recent.cut, len(pending)
    lines = ([VERBATIM_HEADER] if rules.headers else []) + ([recent.note] if recent.note else [])
    lines += [item.line for item in shown]  # quoted: stored text never speaks as a role
    text = "\n".join(lines)
    part = ContextPart(
        "verbatim",
        text,
        counter.count(text),
        messages=tuple(item.message for item in shown),
        sequences=tuple(item.sequence for item in shown),
        truncated=bool(recent.cut),
    )
    return part, recent.cut, len(pending) - len(earlier)


def _from_step(shown: list[QuotedLine], step: int) -> list[QuotedLine]:
    """``shown`` from its first message at a step boundary (sequence 1, 1 + step, ...).

    The newest messages that fit start one message later each turn; starting at the next
    boundary instead keeps the first shown message until the overflow passes it, then jumps
    a whole step. Unnumbered messages (sequence 0) are shown as they are.
    """
    if not shown or shown[0].sequence <= 0:
        return shown
    first = shown[0].sequence
    boundary = first + (-(first - 1)) % step
    kept = [item for item in shown if item.sequence >= boundary]
    while kept and kept[0].message.role == Role.TOOL:  # never start with a cut call's result
        kept.pop(0)
    return kept


# -- summary ------------------------------------------------------------------------------------


def _cut_summary(
    quoted: QuotedParts, allowance: int, counter: TokenCounter, rules: ContextBudget
) -> QuotedParts:
    """The summary within ``allowance``: oldest rows go first, the newest row never does.

    Returns ``quoted`` with the summary's text (none when nothing fits), the rows it still
    shows and whether it was cut, as a caller that cut it itself would hand it to
    :func:`assemble_divided`.
    """
    texts, rows = list(quoted.summary), quoted.summary_rows
    if not texts or allowance <= 0:
        return replace(quoted, summary=[])
    head = counter.count(SUMMARY_HEADER) + 1 if rules.headers else 0
    by_rows = len(texts) == len(rows) and len(texts) > 1
    truncated = False
    while len(texts) > 1 and head + _lines_cost(texts, counter) > allowance:
        texts = texts[1:]  # the oldest row goes first
        rows = rows[1:] if by_rows else rows
        truncated = True
    body = "\n".join(texts)
    if counter.count(body) > allowance - head:
        body = _truncate(body, allowance - head, counter)
        truncated = True
    cut = quoted.summary_cut or truncated
    return replace(quoted, summary=[body], summary_rows=rows, summary_cut=cut)


def _shaped_summary(
    texts: list[str], rows: Sequence[SummaryRowLike], rules: ContextBudget
) -> ContextPart | None:
    """The summary part as shaped by the caller (uncounted: see :func:`_counted`)."""
    body = "\n".join(texts)
    if not body:
        return None
    text = f"{SUMMARY_HEADER}\n{body}" if rules.headers else body
    ranges = tuple((row.episode_first, row.episode_last) for row in rows)
    return ContextPart("summary", text, 0, episode_ranges=ranges)


def _counted(part: ContextPart, counter: TokenCounter) -> ContextPart:
    return replace(part, tokens=counter.count(part.text))


def _lines_cost(lines: Sequence[str], counter: TokenCounter) -> int:
    return sum(counter.count(line) + 1 for line in lines)


MIN_SUMMARY_WORDS = 5
"""A cut summary shorter than this many words says nothing a reader can use: none is shown."""


def _truncate(text: str, tokens: int, counter: TokenCounter) -> str:
    """The longest word-boundary prefix of ``text`` (plus an ellipsis) within ``tokens``.

    Empty when that prefix is under :data:`MIN_SUMMARY_WORDS` words: a fragment such as
    ``[shares…`` is noise, and its room is better left to recall.
    """
    if tokens <= 1:
        return ""
    low, high = 0, len(text)
    while low < high:  # binary search on the character length
        mid = (low + high + 1) // 2
        if counter.count(text[:mid] + ELLIPSIS) <= tokens:
            low = mid
        else:
            high = mid - 1
    cut = text[:low]
    if low < len(text) and " " in cut:
        cut = cut[: cut.rfind(" ")]
    if len(cut.split()) < MIN_SUMMARY_WORDS:
        return ""
    return f"{cut.rstrip()}{ELLIPSIS}"


# -- recalled turns -----------------------------------------------------------------------------


def _dedup_recalled(
    recalled: Sequence[QuotedTurn], shown: Sequence[Message], sequences: set[int]
) -> list[QuotedTurn]:
    """Recalled turns not already shown verbatim and not repeated.

    A turn is shown when its content is (same role, name and text) or its stored sequence
    is: the window shows messages through the filter pipeline, so a long message truncated
    there would otherwise come back in full beside its truncated copy.
    """
    seen = {_identity(message) for message in shown}
    unique: list[QuotedTurn] = []
    for turn, said in recalled:
        identity = _identity(turn.message)
        if identity in seen or (turn.sequence > 0 and turn.sequence in sequences):
            continue
        seen.add(identity)
        unique.append((turn, said))
    return unique


def _identity(message: Message) -> tuple[str, str, str]:
    """What ``Message.content_hash`` hashes, without hashing it."""
    return (message.role.value, message.name or "", message.content)


def _group_key(message: Message) -> str:
    """The day of a recalled turn: a run of turns never crosses one."""
    return f"{message.timestamp:%Y-%m-%d}" if message.timestamp else ""


def _stamp(message: Message, with_time: bool = True) -> str:
    """``[Mon 8 May 2023 13:56]``: words a reader (and a word match) can use."""
    when = message.timestamp
    if when is None:
        return ""
    return f"[{when:%a} {when.day} {when:%B %Y}{f' {when:%H:%M}' if with_time else ''}]"


def _mark(turn: RecalledLike) -> str:
    """What opens a run of adjacent recalled turns: its first message's sequence, ``#53 ``.

    Turns that were not said one after the other each open a run, so they do not read as
    one exchange; the turns that follow in a run carry no mark. The day's date line above
    gives the date.
    """
    return f"#{turn.sequence} " if turn.sequence > 0 else ""


@dataclass(frozen=True, slots=True)
class _Entry:
    turn: RecalledLike
    key: str
    line: str
    cost: int
    header_cost: int
    mark_cost: int
    rank_cost: int  # the turn's own line: a resolved-date note does not lower its priority


def _entries(
    recalled: Sequence[QuotedTurn], counter: TokenCounter, rules: ContextBudget
) -> list[_Entry]:
    entries = []
    for turn, said in recalled:
        message = turn.message
        stamp = _stamp(message, rules.stamp_time)
        line, noted = said.line, said.noted if rules.resolve_dates else said.line
        if stamp and not rules.date_headers:
            line, noted = f"{stamp} {line}", f"{stamp} {noted}"
        rank_cost = counter.count(line) + 1
        cost = rank_cost if noted == line else counter.count(noted) + 1  # most have no note
        header = counter.count(stamp) + 1 if stamp and rules.date_headers else 0
        mark = _mark(turn) if rules.date_headers else ""
        mark_cost = counter.count(mark + noted) + 1 - cost if mark else 0
        key = _group_key(message)
        entries.append(_Entry(turn, key, noted, cost, header, mark_cost, rank_cost))
    return entries


def _continues(entry: _Entry, previous: _Entry | None) -> bool:
    """True when ``entry`` was said right after ``previous``, the same day (one run)."""
    if previous is None or entry.turn.sequence <= 0:
        return False
    return entry.turn.sequence == previous.turn.sequence + 1 and entry.key == previous.key


def _recall_part(
    entries: Sequence[_Entry], allowance: int, counter: TokenCounter, rules: ContextBudget
) -> tuple[ContextPart | None, int]:
    if not entries:
        return None, 0
    used = counter.count(RECALL_HEADER) + 1 if rules.headers else 0
    chosen: list[_Entry] = []
    groups: set[str] = set()
    by_sequence: dict[int, _Entry] = {}
    if rules.length_penalty:
        alpha = rules.length_penalty
        entries = sorted(entries, key=lambda e: -_positive(e.turn.score) / e.rank_cost**alpha)
    for entry in entries:  # best first; skip what does not fit, keep trying smaller ones
        cost = entry.cost + _run_cost(entry, by_sequence)
        cost += entry.header_cost if entry.key not in groups else 0
        if used + cost <= allowance:
            chosen.append(entry)
            by_sequence[entry.turn.sequence] = entry
            used += cost
            groups.add(entry.key)
    if not chosen:
        return None, len(entries)
    chosen.sort(key=_chronological)
    text = _render_recalled(chosen, rules)
    text = _top_up(chosen, entries, text, allowance, counter, rules)
    return _recalled_part(chosen, text, counter), len(entries) - len(chosen)


TOP_UP_TRIES = 8
"""How many turns the top-up tries that do not fit before it stops."""


def _top_up(
    chosen: list[_Entry],
    ranked: Sequence[_Entry],
    text: str,
    allowance: int,
    counter: TokenCounter,
    rules: ContextBudget,
) -> str:
    """``text`` with the best further turns that fit ``allowance`` as the part renders.

    The fill above adds each turn's own line cost, a bound: one text of many lines counts
    fewer tokens than its lines counted apart, so the measured part leaves room the bound
    said was taken. The best turns not chosen whose bound exceeds that room by at most one
    token a line are tried in ``ranked`` order, each kept when the rendered part still fits.
    """
    room = allowance - counter.count(text)
    taken = {id(entry) for entry in chosen}
    tries = 0
    for entry in ranked:
        if room <= 0 or tries >= TOP_UP_TRIES:
            break
        if id(entry) in taken or entry.cost - 2 > room:
            continue
        trial = sorted([*chosen, entry], key=_chronological)
        rendered = _render_recalled(trial, rules)
        tokens = counter.count(rendered)
        if tokens <= allowance:
            chosen[:] = trial
            taken.add(id(entry))
            text, room = rendered, allowance - tokens
        else:
            tries += 1
    return text


def _run_cost(entry: _Entry, chosen: dict[int, _Entry]) -> int:
    """What marking ``entry``'s run costs, given the turns already chosen.

    Its mark, unless it continues a chosen turn; less the mark of a chosen turn it now leads
    into (that turn no longer opens a run).
    """
    opens = not _continues(entry, chosen.get(entry.turn.sequence - 1))
    after = chosen.get(entry.turn.sequence + 1)
    joined = after.mark_cost if after is not None and _continues(after, entry) else 0
    return (entry.mark_cost if opens else 0) - joined


def _positive(score: float) -> float:
    return max(score, 1e-9)


def _chronological(entry: _Entry) -> tuple[float, int]:
    stamp = entry.turn.message.timestamp
    return (stamp.timestamp() if stamp else math.inf, entry.turn.sequence)


def _render_recalled(chosen: Sequence[_Entry], rules: ContextBudget) -> str:
    lines = [RECALL_HEADER] if rules.headers else []
    previous: _Entry | None = None
    for entry in chosen:
        if rules.date_headers and entry.key and (previous is None or entry.key != previous.key):
            lines.append(_stamp(entry.turn.message, rules.stamp_time))
        opens = rules.date_headers and not _continues(entry, previous)
        lines.append(f"{_mark(entry.turn)}{entry.line}" if opens else entry.line)
        previous = entry
    return "\n".join(lines)


def _sticky_recall(
    entries: Sequence[_Entry],
    kept: Sequence[_Entry],
    allowance: int,
    counter: TokenCounter,
    rules: ContextBudget,
    whole: int,
) -> tuple[ContextPart | None, ContextPart | None, int, tuple[_Entry, ...]]:
    """The recalled turns as a kept block and the turns recalled afresh (``cache_friendly``).

    The previous read's block (``kept``) is shown before the window while it fits the room,
    its turns hold at least ``rules.recall_serves`` of the relevance (scores) of the
    question's own fill or the window holds the question's best match
    (``rules.recall_answered``, :func:`_answered`), and the context still shows
    ``rules.recall_spares`` of that relevance with it (the block's turns and those recalled
    afresh in the room it leaves): a block that serves the question a little must not take
    the room its own turns need. It renders the same bytes every turn it is kept, so it
    stands in the cached prefix; the rest of the room is filled best first after the window.

    Otherwise no block is shown: every recalled turn follows the window, as one part, and the
    block the next read may keep is chosen, best first, from this question's fill within
    ``rules.recall_keep`` of the room. A block is shown only once a second question is served
    by the turns of the first, since a block only pays when the conversation stays on its
    topic; a question that changes topic costs nothing then (two parts would repeat their
    header and dates). Returns the block shown, the rest, the turns dropped and the block
    the next read may keep.
    """
    own, dropped = _recall_part(entries, allowance, counter, rules)
    numbered = all(entry.turn.sequence > 0 for entry in (*entries, *kept))
    if own is None or not numbered:
        return None, own, dropped, ()  # unnumbered turns cannot be told apart by sequence
    relevance = {s: _positive(score) for s, score in zip(own.sequences, own.scores, strict=True)}
    wanted = sum(relevance.values())
    if kept and counter.count(_render_recalled(kept, rules)) < allowance:
        head, tail, left_out = _block_and_rest(kept, entries, allowance, counter, rules)
        serving = sum(relevance.get(sequence, 0.0) for sequence in head.sequences)
        shown = serving + sum(relevance.get(sequence, 0.0) for sequence in _sequences(tail))
        serves = serving >= rules.recall_serves * wanted or _answered(entries, rules)
        if serves and shown >= rules.recall_spares * wanted:
            return head, tail, left_out, tuple(kept)
    if allowance < rules.recall_block_from * whole:
        return None, own, dropped, ()  # a block this small would soon overflow: none
    chosen = set(own.sequences)
    best = [entry for entry in entries if entry.turn.sequence in chosen]
    fresh, _ = _recall_part(best, math.floor(allowance * rules.recall_keep), counter, rules)
    taken = set(_sequences(fresh))
    block = sorted((e for e in best if e.turn.sequence in taken), key=_chronological)
    return None, own, dropped, tuple(block)


def _answered(entries: Sequence[_Entry], rules: ContextBudget) -> bool:
    """True when the question's best match is not among the turns recall may show.

    The learned ranker scores a turn relative to the chat's best match, the messages shown
    verbatim included; when the best turn recall found holds at most
    ``rules.recall_answered`` of that, the recent conversation answers the question, and a
    kept block costs it little.
    """
    best = max((_positive(entry.turn.score) for entry in entries), default=0.0)
    return best <= rules.recall_answered


def _block_and_rest(
    block: Sequence[_Entry],
    entries: Sequence[_Entry],
    allowance: int,
    counter: TokenCounter,
    rules: ContextBudget,
) -> tuple[ContextPart, ContextPart | None, int]:
    """``block`` as a part, the rest of ``entries`` filled after it, and the turns left out."""
    head = _part_of(block, counter, rules)
    taken = set(head.sequences)
    rest = [entry for entry in entries if entry.turn.sequence not in taken]
    tail, _ = _recall_part(rest, allowance - head.tokens - 1, counter, rules)
    return head, tail, len(rest) - len(_sequences(tail))


def _sequences(part: ContextPart | None) -> tuple[int, ...]:
    return part.sequences if part is not None else ()


def _turns(sequences: Sequence[int], turns: Sequence[RecalledLike]) -> tuple[RecalledLike, ...]:
    """The recalled turns of ``sequences``, in their order (the last of ``turns`` per sequence)."""
    by_sequence = {turn.sequence: turn for turn in turns}
    return tuple(by_sequence[sequence] for sequence in sequences)


def _part_of(chosen: Sequence[_Entry], counter: TokenCounter, rules: ContextBudget) -> ContextPart:
    """The recalled part of ``chosen``, in their order."""
    return _recalled_part(chosen, _render_recalled(chosen, rules), counter)


def _recalled_part(chosen: Sequence[_Entry], text: str, counter: TokenCounter) -> ContextPart:
    """A recalled part: ``text``, with the turns it shows and their scores."""
    turns = [entry.turn for entry in chosen]
    return ContextPart(
        "recalled",
        text,
        counter.count(text),
        messages=tuple(turn.message for turn in turns),
        sequences=tuple(turn.sequence for turn in turns),
        scores=tuple(turn.score for turn in turns),
    )
