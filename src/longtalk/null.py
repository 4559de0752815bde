"""``NullConversationMemory``: the memory used when no storage is configured (seed 000).

It accepts every call and remembers nothing, so an application without storage behaves
exactly as it would without memory and never crashes.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.core.context import AssembledContext
from longtalk.core.messages import Message
from longtalk.engine import SummarizeOutcome
from longtalk.storage.base import ChatRecord, StoredMessage


class NullConversationMemory:
    """A no-op memory with the engine's methods."""

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """A chat record that is not stored."""
        return ChatRecord(id=chat_id or "null", tenant=tenant, user=user, title=title)

    async def add_messages(
        self, chat_id: str, messages: Sequence[Message], *, index: bool = True
    ) -> list[StoredMessage]:
        """Stores nothing."""
        return []

    async def summarize(self, chat_id: str, *, force: bool = False) -> SummarizeOutcome:
        """Nothing to summarize."""
        return SummarizeOutcome()

    async def get_context(
        self, chat_id: str, query: str | None = None, *, budget_tokens: int | None = None
    ) -> AssembledContext:
        """An empty context."""
        return AssembledContext(parts=(), budget_tokens=budget_tokens or 0)

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Nothing to delete."""
        return False

    async def delete_user(self, user: str, *, tenant: str) -> list[ChatRecord]:
        """Nothing to delete."""
        return []

    async def delete_tenant(self, tenant: str) -> list[ChatRecord]:
        """Nothing to delete."""
        return []
