"""Recall defaults, each chosen by the LoCoMo bench (see ``docs/recall.md``).

And the two rules a read applies them by: how many turns to ask for, which of them to keep.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from longtalk.core.context import ContextBudget
from longtalk.vectors.base import RecalledTurn

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
    """The recalled turns at least ``floor`` as relevant as the best one (equal kept).

    Relevance is relative within one recall: a turn far below the best is noise that would
    only fill leftover room.
    """
    best = max((turn.score for turn in found), default=0.0)
    if floor <= 0 or best <= 0:
        return list(found)
    return [turn for turn in found if turn.score >= floor * best]
