"""The summary-writer seam: extend a summary with new messages.

An LLM-backed writer (``longtalk.summary.llm_writer.LLMSummaryWriter``) and the offline extractive
writer (``longtalk.summary.offline.OfflineSummaryWriter``) sit behind it, so the engine never
cares whether a model is configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from longtalk.core.messages import Message
from longtalk.core.tokens import TokenUsage
from longtalk.summary.model import ConversationSummary


@dataclass(frozen=True, slots=True)
class SummaryDraft:
    """A writer's answer: the updated summary, what producing it cost, the reply's kind.

    ``kind`` is the kind of the model's reply (``json``, or ``prose`` merged as a narrative;
    see ``summary.replies``), or empty for a writer without a model.
    """

    summary: ConversationSummary
    usage: TokenUsage = field(default_factory=TokenUsage)
    kind: str = ""


@runtime_checkable
class SummaryWriter(Protocol):
    """Produces the updated summary from the existing one plus only the new messages.

    ``existing`` is None for a first summary. With ``structured`` False only the narrative
    is used. Raises ``LLMError`` subclasses on failure; the engine degrades.
    """

    async def extend(
        self,
        existing: ConversationSummary | None,
        new_messages: Sequence[Message],
        *,
        structured: bool,
    ) -> SummaryDraft:
        """The summary that covers ``existing`` and ``new_messages``."""
        ...
