"""Recall defaults, each chosen by the LoCoMo bench (see ``docs/recall.md``).

And the two rules a read applies them by: how many turns to ask for, which of them to keep;
:func:`recall_for_read` is a context read's recall under them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Literal

from longtalk.core.context import ContextBudget
from longtalk.core.messages import Message
from longtalk.vectors.base import RecalledTurn, RecallScope, VectorReader

log = logging.getLogger(__name__)

RAG_SIMILARITY_THRESHOLD = 0.0
"""Cosine-similarity floor for recalled turns (Orchid's 0.5 would drop evidence whose wording
is far from the question's; the ranker decides instead: see docs/recall.md)."""

CONTEXT_BUDGET = ContextBudget()
"""How the context budget is split (recall gets what the other parts leave)."""

TURN_TOKENS = 15
"""The short-turn size ``auto_k`` plans for, so the recall share can always be filled."""


def auto_k(budget_tokens: int, rules: ContextBudget = CONTEXT_BUDGET) -> int:
    """``rag_k: auto``: enough turns to fill the whole budget with short turns.

    The whole budget, not the recall share: shares the other parts leave unused flow to
    recall (``rules`` is accepted for callers that want to plan by share).
    """
    del rules
    return max(1, math.ceil(budget_tokens / TURN_TOKENS))


def above_floor(found: Sequence[RecalledTurn], floor: float) -> list[RecalledTurn]:
    """The recalled turns at least ``floor`` as relevant as the best one, and their neighbours.

    A turn equal to the floor is kept; so is a turn said right before or after one that
    reaches it (not a neighbour's neighbour).
    Relevance is relative within one recall: a turn far below the best is noise that would
    only fill leftover room. A turn beside a relevant one is not: it is the question that
    turn answers or the reply it got, shown with it as one exchange (no gap mark, no date
    line of its own), and it may carry more of what was asked. The fill still chooses among
    them by relevance per token.
    """
    best = max((turn.score for turn in found), default=0.0)
    if floor <= 0 or best <= 0:
        return list(found)
    relevant = {turn.sequence for turn in found if turn.score >= floor * best}
    beside = {sequence + step for sequence in relevant if sequence > 0 for step in (-1, 1)}
    return [
        turn
        for turn in found
        if turn.score >= floor * best or (turn.sequence > 0 and turn.sequence in beside)
    ]


async def recall_for_read(
    reader: VectorReader,
    query: str,
    scope: RecallScope,
    *,
    k: int | Literal["auto"],
    budget_tokens: int,
    threshold: float,
    floor: float,
    shown: Sequence[Message],
) -> list[RecalledTurn]:
    """The turns a context read recalls for ``query``, past the window messages ``shown``.

    ``k`` (``auto``: :func:`auto_k` of ``budget_tokens``) turns at least ``threshold``
    similar, then those :func:`above_floor`; a reader's failure leaves recall empty.
    """
    if not query:
        return []
    try:
        found = await reader.get_relevant_history(
            query,
            scope,
            k=auto_k(budget_tokens) if k == "auto" else k,
            similarity_threshold=threshold,
            exclude_hashes=frozenset(message.content_hash for message in shown),
        )
    except Exception as exc:  # noqa: BLE001 - a custom reader's failure leaves recall empty
        log.warning("recall failed for chat %s, continuing without: %r", scope.chat_id, exc)
        return []
    return above_floor(found, floor)
