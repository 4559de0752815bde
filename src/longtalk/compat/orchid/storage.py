"""Orchid's chat-storage summary calls over a longtalk ``ChatStorage`` (SQLite, PostgreSQL).

Orchid keeps one summary per chat (``conversation_summaries``: ``chat_id``, ``summary_text``,
``turn_number``); here it is the chat's latest summary row, created on the first save and
updated afterwards, stored as ``json`` when it parses as a structured summary.
"""

from __future__ import annotations

from longtalk.compat.orchid.memory_types import OrchidConversationSummary
from longtalk.core.tokens import DEFAULT_COUNTER, TokenCounter
from longtalk.storage.base import ChatStorage, SummaryFormat, SummaryPatch, SummaryRow


class LongtalkChatStorage:
    """``get_conversation_summary`` / ``save_conversation_summary`` over longtalk storage."""

    def __init__(
        self, storage: ChatStorage, *, tenant: str = "default", counter: TokenCounter | None = None
    ) -> None:
        self.storage = storage
        self.tenant = tenant
        self.counter = counter or DEFAULT_COUNTER

    async def get_conversation_summary(self, chat_id: str) -> str | None:
        """The chat's latest summary text; None when the chat or its summary does not exist."""
        if await self.storage.get_chat(chat_id, tenant=self.tenant) is None:
            return None
        rows = await self.storage.list_summaries(chat_id)
        return rows[-1].summary_text if rows else None

    async def save_conversation_summary(
        self, chat_id: str, summary_text: str, turn_number: int
    ) -> None:
        """Store the chat's summary (creating the chat when it does not exist yet)."""
        if await self.storage.get_chat(chat_id, tenant=self.tenant) is None:
            await self.storage.create_chat(chat_id, tenant=self.tenant)
        structured = OrchidConversationSummary.from_json(summary_text) is not None
        fmt: SummaryFormat = "json" if structured else "text"
        tokens = self.counter.count(summary_text)
        rows = await self.storage.list_summaries(chat_id)
        if rows and rows[-1].id is not None:
            patch = SummaryPatch(
                summary_text=summary_text, format=fmt, turn_number=turn_number, token_count=tokens
            )
            await self.storage.update_summary(rows[-1].id, patch)
            return
        row = SummaryRow(
            chat_id=chat_id,
            summary_text=summary_text,
            format=fmt,
            turn_number=turn_number,
            token_count=tokens,
        )
        await self.storage.create_summary(row)
