"""Orchid's ``OrchidInMemoryConversationMemory``: a running summary in Orchid's chat storage.

The chat storage is Orchid's (``get_conversation_summary`` / ``save_conversation_summary``);
each extension is one call of longtalk's ``LLMSummaryWriter`` over the chat model. A failed
call keeps the existing summary; a structured answer that is not JSON is stored as it came.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from longtalk.compat.orchid.memory_base import WithoutTurnRecall
from longtalk.compat.orchid.memory_types import OrchidConversationSummary
from longtalk.compat.orchid.writer import extend_summary
from longtalk.errors import LLMError

log = logging.getLogger(__name__)


class OrchidInMemoryConversationMemory(WithoutTurnRecall):
    """Running summaries persisted through an Orchid chat storage (no recall of turns)."""

    def __init__(self, chat_storage: Any, chat_model: Any, *, structured_output: bool = True):
        self._storage = chat_storage
        self._chat_model = chat_model
        self._structured_output = structured_output

    async def get_running_summary(self, chat_id: str) -> str | None:
        """The stored summary of the chat, if any."""
        summary: str | None = await self._storage.get_conversation_summary(chat_id)
        return summary

    async def update_running_summary(
        self,
        chat_id: str,
        new_messages: list[dict[str, str]],
        existing_summary: str | None,
    ) -> str:
        """Extend the summary with ``new_messages``, store and return it."""
        if not new_messages:
            return existing_summary or ""
        structured = self._structured_output
        try:
            summary, raw = await extend_summary(
                self._chat_model,
                existing_summary,
                new_messages,
                structured=structured,
                system_prompt=None if structured else "",  # the narrative call has no system part
            )
        except LLMError as exc:
            log.warning("Conversation memory update failed (%s), keeping existing summary", exc)
            return existing_summary or ""
        if summary is None:
            log.warning("Structured summary JSON parse failed, storing raw response")
            updated = raw
        elif not structured:
            updated = summary.narrative
        else:
            updated = json.dumps(OrchidConversationSummary.from_native(summary).to_dict())
        await self._storage.save_conversation_summary(chat_id, updated, len(new_messages))
        return updated
