"""Recall defaults, each chosen by the LoCoMo bench (see ``docs/recall.md``)."""

from __future__ import annotations

import math

from longtalk.core.context import ContextBudget

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
