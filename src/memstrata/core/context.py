"""Context assembly under a token budget: [recalled turns] [summary] [recent verbatim].

Pure logic: it takes what recall, the summary chain and the verbatim window produced, splits
the budget between them by :class:`ContextBudget` rules, and returns an
:class:`AssembledContext` whose parts say exactly what went in (message ids and sequences,
summary episode ranges, recall scores).

The split, in short: each part first gets ``share * budget`` (the newest
``min_verbatim_messages`` are always kept), a part that needs less than its share hands the
rest on, in ``reflow_order``. Recalled turns are chosen best-score first, then printed in
chronological order with their date once per group (``[YYYY-MM-DD HH:MM]``) rather than on
every line, which fits more turns into the same budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from memstrata.core.messages import Message, Role, format_line
from memstrata.core.tokens import DEFAULT_COUNTER, TokenCounter

PartKind = Literal["recalled", "summary", "verbatim"]

RECALL_HEADER = "Relevant earlier conversation:"
SUMMARY_HEADER = "Summary of the conversation so far:"
VERBATIM_HEADER = "Recent conversation:"
ELLIPSIS = "…"


SEQUENCE_KEY = "memstrata_sequence"
"""Metadata key of a verbatim message's stored sequence (set by the engine; provenance)."""


class RecalledLike(Protocol):
    """A recalled turn (``memstrata.vectors.base.RecalledTurn`` fits)."""

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
    """A summary row (``memstrata.storage.base.SummaryRow`` fits)."""

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
class ContextBudget:
    """How the token budget is split between recalled turns, the summary and recent turns.

    Shares are fractions of the budget (normalised if they do not sum to 1). A part that
    needs less than its share passes the rest to the parts in ``reflow_order``.
    ``min_verbatim_messages`` newest messages are kept even beyond the verbatim share (as
    long as they fit the whole budget). ``headers`` prints a one-line title before each part;
    ``date_headers`` prints each recalled turn's date once per group instead of per line.
    ``length_penalty`` (α) fills the recall share by ``score / tokens**α`` rather than by
    score alone (0 = by score); 1.0, score per token, suits the learned ranker's relevance
    shares (more needed turns per token; LoCoMo dev, held out: +0.008 over α = 0.5 at
    1,000 tokens, ±0 at 2,000). The hand-set fusion's scores want 0.
    ``stamp_time`` prints the time of day in date headers.
    """

    recall_share: float = 0.9
    summary_share: float = 0.05
    verbatim_share: float = 0.05
    min_verbatim_messages: int = 2
    reflow_order: tuple[PartKind, ...] = ("recalled", "verbatim", "summary")
    headers: bool = True
    date_headers: bool = True
    length_penalty: float = 1.0
    stamp_time: bool = True

    def __post_init__(self) -> None:
        shares = (self.recall_share, self.summary_share, self.verbatim_share)
        if any(share < 0 for share in shares) or sum(shares) <= 0:
            raise ValueError(f"budget shares must be >= 0 and not all 0, got {shares}")
        if self.min_verbatim_messages < 0:
            raise ValueError("min_verbatim_messages must be >= 0")

    def shares(self) -> dict[PartKind, float]:
        """The normalised shares by part."""
        total = self.recall_share + self.summary_share + self.verbatim_share
        return {
            "recalled": self.recall_share / total,
            "summary": self.summary_share / total,
            "verbatim": self.verbatim_share / total,
        }


DEFAULT_BUDGET = ContextBudget()


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


@dataclass(frozen=True, slots=True)
class AssembledContext:
    """The context, as ordered parts with provenance; ``render()`` gives the final string."""

    parts: tuple[ContextPart, ...]
    budget_tokens: int
    allocation: dict[PartKind, int] = field(default_factory=dict)
    dropped_recalled: int = 0
    dropped_verbatim: int = 0

    def part(self, kind: PartKind) -> ContextPart | None:
        """The part of that kind, if present."""
        return next((part for part in self.parts if part.kind == kind), None)

    @property
    def recalled(self) -> tuple[Message, ...]:
        """The recalled messages, chronologically."""
        found = self.part("recalled")
        return found.messages if found else ()

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
    def tokens_used(self) -> int:
        """Sum of the parts' token counts (an upper bound of the rendered string's count)."""
        return sum(part.tokens for part in self.parts) + max(0, len(self.parts) - 1)

    def preamble(self) -> str:
        """Recalled turns and summary only: the text to place before the chat messages."""
        return "\n\n".join(part.text for part in self.parts if part.kind != "verbatim")

    def render(self) -> str:
        """The whole context as one string, parts separated by blank lines."""
        return "\n\n".join(part.text for part in self.parts)

    @property
    def text(self) -> str:
        """Same as :meth:`render`."""
        return self.render()


def assemble_context(
    *,
    recalled: Sequence[RecalledLike] = (),
    summary: str | None = None,
    summary_rows: Sequence[SummaryRowLike] = (),
    verbatim: Sequence[Message] = (),
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> AssembledContext:
    """Assemble [recalled turns] [summary] [recent verbatim] within ``budget_tokens``.

    Args:
        recalled: recalled turns, best first (as the retriever returns them).
        summary: the summary text; when None, the rows' texts joined (oldest first).
        summary_rows: the summary rows the text comes from (their episode ranges are
            recorded; when the summary is too long the oldest rows are dropped first).
        verbatim: the recent window, oldest first.
        budget_tokens: the ceiling for the whole rendered context.
        counter: counts tokens.
        rules: how to split the budget.
    """
    budget = max(0, budget_tokens)
    # The allocation plans with recall deduplicated against the whole window; the recall part
    # itself only against the verbatim messages that are shown, so a window message the
    # budget cuts can still come back as a recalled turn.
    planned = _entries(_dedup_recalled(recalled, verbatim), counter, rules)
    texts = _summary_texts(summary, summary_rows)
    needs: dict[PartKind, int] = {
        "recalled": _recall_need(planned, counter, rules),
        "summary": _block_cost(texts, SUMMARY_HEADER, counter, rules) if texts else 0,
        "verbatim": _block_cost(
            [format_line(m) for m in verbatim], VERBATIM_HEADER, counter, rules
        ),
    }
    floor = _verbatim_floor(verbatim, counter, rules)
    allocation = _allocate(budget, needs, rules, verbatim_floor=min(floor, budget))
    verbatim_part, dropped_verbatim = _verbatim_part(
        verbatim, allocation["verbatim"], counter, rules
    )
    summary_part = _summary_part(texts, summary_rows, allocation["summary"], counter, rules)
    spare = allocation["recalled"] + _unused(allocation, verbatim_part, summary_part)
    shown = verbatim_part.messages if verbatim_part else ()
    entries = (
        planned
        if len(shown) == len(verbatim)
        else _entries(_dedup_recalled(recalled, shown), counter, rules)
    )
    recall_part, dropped_recalled = _recall_part(entries, spare, counter, rules)
    parts = tuple(p for p in (recall_part, summary_part, verbatim_part) if p is not None)
    return AssembledContext(
        parts=parts,
        budget_tokens=budget,
        allocation=allocation,
        dropped_recalled=dropped_recalled,
        dropped_verbatim=dropped_verbatim,
    )


def surely_shown(
    verbatim: Sequence[Message],
    *,
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> list[Message]:
    """The newest verbatim messages that every assembly under this budget shows.

    The verbatim part always gets at least its share of the budget (or the floor of the
    newest ``min_verbatim_messages``), so these messages need not be recalled.
    """
    share = math.floor(max(0, budget_tokens) * rules.shares()["verbatim"])
    allowance = max(share, min(_verbatim_floor(verbatim, counter, rules), budget_tokens))
    part, _ = _verbatim_part(verbatim, allowance, counter, rules)
    return list(part.messages) if part else []


# -- allocation ---------------------------------------------------------------------------------


def _allocate(
    budget: int, needs: dict[PartKind, int], rules: ContextBudget, *, verbatim_floor: int
) -> dict[PartKind, int]:
    shares = rules.shares()
    caps = {kind: math.floor(budget * share) for kind, share in shares.items()}
    if caps["verbatim"] < verbatim_floor:
        taken = verbatim_floor - caps["verbatim"]
        caps["verbatim"] = verbatim_floor
        for kind in ("summary", "recalled"):
            cut = min(taken, caps[kind])
            caps[kind] -= cut
            taken -= cut
    allocation = {kind: min(caps[kind], needs[kind]) for kind in caps}
    left = budget - sum(allocation.values())
    for kind in rules.reflow_order:
        extra = min(left, needs[kind] - allocation[kind])
        if extra > 0:
            allocation[kind] += extra
            left -= extra
    return allocation


def _unused(
    allocation: dict[PartKind, int], verbatim: ContextPart | None, summary: ContextPart | None
) -> int:
    used_v = verbatim.tokens + 1 if verbatim else 0
    used_s = summary.tokens + 1 if summary else 0
    return max(0, allocation["verbatim"] - used_v) + max(0, allocation["summary"] - used_s)


def _block_cost(
    lines: Sequence[str], header: str, counter: TokenCounter, rules: ContextBudget
) -> int:
    if not lines:
        return 0
    head = counter.count(header) + 1 if rules.headers else 0
    return head + sum(counter.count(line) + 1 for line in lines)


# -- verbatim -----------------------------------------------------------------------------------


def _verbatim_floor(
    verbatim: Sequence[Message], counter: TokenCounter, rules: ContextBudget
) -> int:
    newest = list(verbatim[len(verbatim) - rules.min_verbatim_messages :])
    if not newest or rules.min_verbatim_messages == 0:
        return 0
    return _block_cost([format_line(m) for m in newest], VERBATIM_HEADER, counter, rules)


def _verbatim_part(
    verbatim: Sequence[Message], allowance: int, counter: TokenCounter, rules: ContextBudget
) -> tuple[ContextPart | None, int]:
    head = counter.count(VERBATIM_HEADER) + 1 if rules.headers else 0
    used = head
    kept: list[Message] = []
    for message in reversed(verbatim):
        cost = counter.count(format_line(message)) + 1
        if used + cost > allowance:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    while kept and kept[0].role == Role.TOOL:  # never start with a result whose call was cut
        used -= counter.count(format_line(kept.pop(0))) + 1
    if not kept:
        return None, len(verbatim)
    lines = [format_line(m) for m in kept]
    text = "\n".join([VERBATIM_HEADER, *lines] if rules.headers else lines)
    part = ContextPart("verbatim", text, counter.count(text), messages=tuple(kept))
    return part, len(verbatim) - len(kept)


# -- summary ------------------------------------------------------------------------------------


def _summary_texts(summary: str | None, rows: Sequence[SummaryRowLike]) -> list[str]:
    if summary is not None:
        return [summary] if summary.strip() else []
    return [row.summary_text for row in rows if row.summary_text.strip()]


def _summary_part(
    texts: list[str],
    rows: Sequence[SummaryRowLike],
    allowance: int,
    counter: TokenCounter,
    rules: ContextBudget,
) -> ContextPart | None:
    if not texts:
        return None
    head = counter.count(SUMMARY_HEADER) + 1 if rules.headers else 0
    ranges = [(row.episode_first, row.episode_last) for row in rows]
    truncated = False
    while len(texts) > 1 and _block_cost(texts, SUMMARY_HEADER, counter, rules) > allowance:
        texts = texts[1:]  # the oldest row goes first
        ranges = ranges[1:] if len(ranges) > len(texts) else ranges
        truncated = True
    body = "\n".join(texts)
    room = allowance - head
    if counter.count(body) > room:
        body = _truncate(body, room, counter)
        truncated = True
    if not body:
        return None
    text = f"{SUMMARY_HEADER}\n{body}" if rules.headers else body
    return ContextPart(
        "summary", text, counter.count(text), episode_ranges=tuple(ranges), truncated=truncated
    )


def _truncate(text: str, tokens: int, counter: TokenCounter) -> str:
    """The longest word-boundary prefix of ``text`` (plus an ellipsis) within ``tokens``."""
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
    return f"{cut.rstrip()}{ELLIPSIS}" if cut.strip() else ""


# -- recalled turns -----------------------------------------------------------------------------


def _dedup_recalled(
    recalled: Sequence[RecalledLike], verbatim: Sequence[Message]
) -> list[RecalledLike]:
    """Recalled turns not already in the window and not repeated.

    A window message tagged with its stored sequence (``SEQUENCE_KEY``) also hides the recalled
    turn of that sequence: the window shows messages through the filter pipeline, so a long
    message truncated there would otherwise come back in full beside its truncated copy.
    """
    seen = {_identity(message) for message in verbatim}
    shown = {_tagged_sequence(message) for message in verbatim} - {None}
    unique: list[RecalledLike] = []
    for turn in recalled:
        identity = _identity(turn.message)
        if identity in seen or (turn.sequence > 0 and turn.sequence in shown):
            continue
        seen.add(identity)
        unique.append(turn)
    return unique


def _tagged_sequence(message: Message) -> int | None:
    value = message.metadata.get(SEQUENCE_KEY)
    return value if isinstance(value, int) and value > 0 else None


def _identity(message: Message) -> tuple[str, str, str]:
    """What ``Message.content_hash`` hashes, without hashing it."""
    return (message.role.value, message.name or "", message.content)


def _group_key(message: Message) -> str:
    """Recalled turns are grouped by day; the group's header shows its first turn's time."""
    return f"{message.timestamp:%Y-%m-%d}" if message.timestamp else ""


def _stamp(message: Message, with_time: bool = True) -> str:
    """``[Mon 8 May 2023 13:56]``: words a reader (and a word match) can use."""
    when = message.timestamp
    if when is None:
        return ""
    return f"[{when:%a} {when.day} {when:%B %Y}{f' {when:%H:%M}' if with_time else ''}]"


@dataclass(frozen=True, slots=True)
class _Entry:
    turn: RecalledLike
    key: str
    line: str
    cost: int
    header_cost: int


def _entries(
    recalled: Sequence[RecalledLike], counter: TokenCounter, rules: ContextBudget
) -> list[_Entry]:
    entries = []
    for turn in recalled:
        message = turn.message
        stamp = _stamp(message, rules.stamp_time)
        line = format_line(message)
        if stamp and not rules.date_headers:
            line = f"{stamp} {line}"
        header = counter.count(stamp) + 1 if stamp and rules.date_headers else 0
        key = _group_key(message)
        entries.append(_Entry(turn, key, line, counter.count(line) + 1, header))
    return entries


def _recall_need(entries: Sequence[_Entry], counter: TokenCounter, rules: ContextBudget) -> int:
    if not entries:
        return 0
    head = counter.count(RECALL_HEADER) + 1 if rules.headers else 0
    headers = {entry.key: entry.header_cost for entry in entries}
    return head + sum(headers.values()) + sum(entry.cost for entry in entries)


def _recall_part(
    entries: Sequence[_Entry], allowance: int, counter: TokenCounter, rules: ContextBudget
) -> tuple[ContextPart | None, int]:
    if not entries:
        return None, 0
    used = counter.count(RECALL_HEADER) + 1 if rules.headers else 0
    chosen: list[_Entry] = []
    groups: set[str] = set()
    if rules.length_penalty:
        alpha = rules.length_penalty
        entries = sorted(entries, key=lambda e: -_positive(e.turn.score) / e.cost**alpha)
    for entry in entries:  # best first; skip what does not fit, keep trying smaller ones
        cost = entry.cost + (entry.header_cost if entry.key not in groups else 0)
        if used + cost <= allowance:
            chosen.append(entry)
            used += cost
            groups.add(entry.key)
    if not chosen:
        return None, len(entries)
    chosen.sort(key=_chronological)
    text = _render_recalled(chosen, rules)
    turns = [entry.turn for entry in chosen]
    part = ContextPart(
        "recalled",
        text,
        counter.count(text),
        messages=tuple(turn.message for turn in turns),
        sequences=tuple(turn.sequence for turn in turns),
        scores=tuple(turn.score for turn in turns),
    )
    return part, len(entries) - len(chosen)


def _positive(score: float) -> float:
    return max(score, 1e-9)


def _chronological(entry: _Entry) -> tuple[float, int]:
    stamp = entry.turn.message.timestamp
    return (stamp.timestamp() if stamp else math.inf, entry.turn.sequence)


def _render_recalled(chosen: Sequence[_Entry], rules: ContextBudget) -> str:
    lines = [RECALL_HEADER] if rules.headers else []
    last_key: str | None = None
    for entry in chosen:
        if rules.date_headers and entry.key and entry.key != last_key:
            lines.append(_stamp(entry.turn.message, rules.stamp_time))
            last_key = entry.key
        lines.append(entry.line)
    return "\n".join(lines)
