"""The budget's division: how the budget a context may take is divided among its parts.

The one pure function that divides it (:func:`divide_quoted`) runs before recall, because
recall leaves out the window messages the division shows and the summary is cut to the room
it gives; the assembly (:mod:`longtalk.core.context`) then places the parts within that
division. The rules of the division and of the printing (:class:`ContextBudget`) and what
the headers cost are read by both stages, so they stand here, below the assembly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypedDict, Unpack

from longtalk.core.messages import Message, Role
from longtalk.core.quoting import QuotedLine, quoted_lines
from longtalk.core.tokens import DEFAULT_COUNTER, TokenCounter

ContextOrder = Literal["contract", "cache_friendly"]
"""``contract``: [durable] [recalled] [summary] [window]. ``cache_friendly``: [durable]
[summary] [kept recalled block] [window] [recalled afresh]: the parts that change only when
memory changes first, then the recalled block a turn on the same topic keeps, then the
window (which only grows until the summary takes its oldest messages), and last the turns
recalled for this question; a provider's prompt cache then reuses the longest prefix from
one turn to the next."""

SUMMARY_HEADER = "Summary of the conversation so far, quoted:"
VERBATIM_HEADER = "Recent conversation:"
OMITTED_NOTE = "[{count} older messages of the recent conversation did not fit and are left out]"


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """The context contract's numbers and how parts are printed.

    ``summary_max_tokens`` caps the summary part, and ``summary_share`` caps it as a share of
    the budget (so small budgets keep room for the window and recall). The window and
    pending messages take what they need after the summary; recall gets the rest.
    ``headers`` prints a one-line title before each part; ``date_headers`` prints each
    recalled turn's date once per group instead of per line. ``length_penalty`` (α) fills
    the recall part by ``score / tokens**α`` (0 = by score): 1.0, relevance per token,
    suits the learned ranker's relevance shares. ``stamp_time`` prints the time of day in
    date headers. ``resolve_dates`` follows a recalled turn that says ``yesterday``, ``last
    year``... with the date it means (:mod:`longtalk.core.relative_dates`). ``order`` places
    the parts (:data:`ContextOrder`); it changes where they stand, and with ``cache_friendly``
    where the shown pending messages start: when not every pending message fits, the first
    one shown moves in steps of ``window_step`` messages (sequences), not one message a turn,
    so the recent conversation keeps its first line, and the context its prefix, for most
    turns. ``recall_keep`` (``cache_friendly``): the most share of the recall room the
    previous turn's recalled block may keep, byte for byte, while it still serves the
    question (:func:`assemble_context`'s ``kept_recall``); the rest is recalled afresh. A
    block is chosen from one question's recall and shown from the next question it serves.
    ``recall_serves``: the least share of the relevance of the question's own recall fill
    that the block's turns must hold for the block to be kept (0 keeps it while it fits).
    ``recall_spares``: the least share of that relevance the context must still show with the
    block kept (its turns and those recalled afresh after it), so a kept block never takes
    the room the question's own turns need (0, the default: no such test; 0.9 measured a
    little more recall at small budgets and kept far fewer blocks).
    ``recall_answered``: a block is kept while it fits, whatever share it serves, when the
    best turn recall found scores at most this (the learned ranker scores a turn relative to
    the chat's best match, so the best match is then shown verbatim: the recent conversation
    answers the question, and a turn on the current topic does not drop the block; 0 turns
    this off, as scores of another ranker mean something else).
    ``recall_block_from``: no block is chosen while recall has less than this share of the
    budget (a small block soon overflows, and a replaced block costs the cached window after
    it); the recalled turns then all follow the window.
    """

    summary_max_tokens: int = 200
    summary_share: float = 0.3
    headers: bool = True
    date_headers: bool = True
    length_penalty: float = 1.0
    stamp_time: bool = True
    resolve_dates: bool = True
    order: ContextOrder = "contract"
    window_step: int = 10
    recall_keep: float = 0.8
    recall_serves: float = 0.4
    recall_spares: float = 0.0
    recall_block_from: float = 0.25
    recall_answered: float = 0.2

    def __post_init__(self) -> None:
        if self.summary_max_tokens < 0:
            raise ValueError(f"summary_max_tokens must be >= 0, got {self.summary_max_tokens}")
        if not 0.0 <= self.summary_share <= 1.0:
            raise ValueError(f"summary_share must be within [0, 1], got {self.summary_share}")
        if self.window_step < 1:
            raise ValueError(f"window_step must be >= 1, got {self.window_step}")
        if not 0.0 <= self.recall_keep <= 1.0:
            raise ValueError(f"recall_keep must be within [0, 1], got {self.recall_keep}")
        if not 0.0 <= self.recall_serves <= 1.0:
            raise ValueError(f"recall_serves must be within [0, 1], got {self.recall_serves}")
        if not 0.0 <= self.recall_spares <= 1.0:
            raise ValueError(f"recall_spares must be within [0, 1], got {self.recall_spares}")
        if not 0.0 <= self.recall_answered <= 1.0:
            raise ValueError(f"recall_answered must be within [0, 1], got {self.recall_answered}")
        if not 0.0 <= self.recall_block_from <= 1.0:
            raise ValueError(
                f"recall_block_from must be within [0, 1], got {self.recall_block_from}"
            )

    def summary_allowance(self, room_tokens: int) -> int:
        """The most tokens the summary part may take of ``room_tokens`` (what the window left)."""
        share = math.floor(max(0, room_tokens) * self.summary_share)
        return max(0, min(self.summary_max_tokens, share))


DEFAULT_BUDGET = ContextBudget()


Shown = Message | tuple[int, Message]
"""A verbatim message, bare or numbered with its stored sequence (for provenance)."""


@dataclass(frozen=True, slots=True)
class BudgetDivision:
    """How one budget is divided among the parts: the one place that does the arithmetic.

    The recent window claims the budget first (``window``, with its cost); the summary may
    take ``summary`` tokens of what the window leaves (its header included; ``summary_text``
    is the room for its text alone); pending messages and recall share what is left.
    """

    budget: int
    window: ShownWindow
    summary: int
    summary_text: int

    @property
    def shown(self) -> list[Message]:
        """The window messages every assembly under this division shows (recall skips them)."""
        return [line.message for line in self.window.kept]

    def yielding(self, tokens: int) -> BudgetDivision:
        """The division with ``tokens`` of the summary's text room given up to the others.

        A reader that shows durable facts beside recall takes their size off the summary,
        which would repeat them; the window, counted once, stays as it is.
        """
        return replace(self, summary_text=max(0, self.summary_text - max(0, tokens)))


class DivisionOptions(TypedDict, total=False):
    """How :func:`divide_quoted` divides, as :func:`divide_budget` hands it on."""

    counter: TokenCounter
    rules: ContextBudget
    stable: bool


def divide_budget(
    budget_tokens: int, *, verbatim: Sequence[Shown], **options: Unpack[DivisionOptions]
) -> BudgetDivision:
    """Divide ``budget_tokens`` (what the durable parts left) among the window and summary.

    The window is quoted first (``quoting.quoted_lines``), then :func:`divide_quoted`
    divides, by the same ``counter``, ``rules`` and ``stable``.
    """
    window = quoted_lines(numbered_shown(verbatim))
    return divide_quoted(budget_tokens, verbatim=window, **options)


def divide_quoted(
    budget_tokens: int,
    *,
    verbatim: Sequence[QuotedLine],
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
    stable: bool = False,
) -> BudgetDivision:
    """Divide ``budget_tokens`` (what the durable parts left) among the window and summary.

    The window is already quoted (``quoting.quoted_lines``): each line as it is shown.

    Pure; :meth:`BudgetDivision.yielding` gives summary room up to the durable facts.
    ``stable`` (``cache_friendly``): the summary's share is of the whole budget, not of what
    this turn's window leaves, so it is cut the same way turn after turn (the window changes
    with every message); it still never takes room the window needs.
    """
    budget = max(0, budget_tokens)
    recent = _window(verbatim, budget - 1, counter, rules)
    left = budget - recent.cost - 1
    allowance = min(rules.summary_allowance(budget - 1 if stable else left), max(0, left))
    head = counter.count(SUMMARY_HEADER) + 1 if rules.headers else 0
    return BudgetDivision(budget, recent, allowance, max(0, allowance - head))


def fit_window(
    verbatim: Sequence[Shown],
    *,
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> BudgetDivision:
    """How ``verbatim`` fits ``budget_tokens``: :func:`divide_budget` without durable facts."""
    return divide_budget(budget_tokens, verbatim=verbatim, counter=counter, rules=rules)


def surely_shown(
    verbatim: Sequence[Shown],
    *,
    budget_tokens: int,
    counter: TokenCounter = DEFAULT_COUNTER,
    rules: ContextBudget = DEFAULT_BUDGET,
) -> list[Message]:
    """The window messages every assembly under this budget shows (recall can skip them).

    The window claims the budget first, so this is the whole window unless it alone is over.
    """
    return fit_window(verbatim, budget_tokens=budget_tokens, counter=counter, rules=rules).shown


def numbered_shown(items: Sequence[Shown]) -> list[tuple[int, Message]]:
    """Each message with its sequence (0 for a bare one), as the quoting numbers it."""
    return [item if isinstance(item, tuple) else (0, item) for item in items]


@dataclass(frozen=True, slots=True)
class ShownWindow:
    """The recent window as shown: its messages, the cut note, what it costs in all."""

    kept: list[QuotedLine]
    cut: int
    note: str
    cost: int


def _window(
    window: Sequence[QuotedLine], room: int, counter: TokenCounter, rules: ContextBudget
) -> ShownWindow:
    """The whole window, or (when it alone exceeds ``room``) its newest messages and a note."""
    head = counter.count(VERBATIM_HEADER) + 1 if rules.headers else 0
    kept, used = newest_that_fit(window, room - head, counter)
    if len(kept) == len(window):
        return ShownWindow(kept, 0, "", head + used if kept else 0)
    note = OMITTED_NOTE.format(count=len(window) - len(kept))
    kept, used = newest_that_fit(window, room - head - counter.count(note) - 1, counter)
    note = OMITTED_NOTE.format(count=len(window) - len(kept))
    return ShownWindow(kept, len(window) - len(kept), note, head + counter.count(note) + 1 + used)


def newest_that_fit(
    items: Sequence[QuotedLine], room: int, counter: TokenCounter
) -> tuple[list[QuotedLine], int]:
    """The newest contiguous messages within ``room`` tokens (never starting with a result)."""
    kept: list[QuotedLine] = []
    used = 0
    for item in reversed(items):
        cost = counter.count(item.line) + 1
        if used + cost > room:
            break
        kept.append(item)
        used += cost
    kept.reverse()
    while kept and kept[0].message.role == Role.TOOL:  # never start with a cut call's result
        used -= counter.count(kept.pop(0).line) + 1
    return kept, used
