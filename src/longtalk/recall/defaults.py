"""Recall defaults, each chosen by the LoCoMo bench (see ``docs/recall.md``).

And :func:`recall_for_read`, a context read's recall under them: how many turns to ask for
(:func:`auto_k`), then which of them to keep (``vectors.base.above_floor``, beside the turns
it judges).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Literal

from longtalk.core.context import ContextBudget
from longtalk.core.messages import Message
from longtalk.vectors.base import RecalledTurn, RecallScope, VectorReader, above_floor

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
