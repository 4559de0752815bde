"""Recall defaults, each chosen by the LoCoMo bench (see ``docs/readme/recall.md``)."""

from __future__ import annotations

import math

from memstrata.core.context import ContextBudget

RAG_SIMILARITY_THRESHOLD = 0.0
"""Relevance floor for recalled turns (the seed's 0.5 drops most evidence: see the README)."""

RECENT_MESSAGES = 20
"""The verbatim window the bench assumes: ``summary_recent_turns`` = 10 exchanges."""

CONTEXT_BUDGET = ContextBudget()
"""How the context budget is split (recall gets what the other parts leave)."""

TURN_TOKENS = 20
"""The short-turn size ``auto_k`` plans for, so the recall share can always be filled."""


def auto_k(budget_tokens: int, rules: ContextBudget = CONTEXT_BUDGET) -> int:
    """``rag_k: auto``: enough turns to fill the recall share of ``budget_tokens``."""
    share = rules.shares()["recalled"]
    return max(1, math.ceil(budget_tokens * share / TURN_TOKENS))
