"""Orchid's memory base classes (``orchid_ai.core.memory``): the seam and its no-op.

An Orchid deployment injects an ``OrchidConversationMemory`` into its supervisor and agents,
or subclasses it for its own strategy. ``NullConversationMemory`` is the one used when no
chat storage is configured (``strategy: "none"``): it accepts every call and remembers
nothing, so the application behaves as it would without memory and never fails.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["NullConversationMemory", "OrchidConversationMemory"]


class OrchidConversationMemory(ABC):
    """A conversation memory strategy: a running summary and recall of past turns."""

    @abstractmethod
    async def get_running_summary(self, chat_id: str) -> str | None:
        """The chat's running summary, or None when it has none yet."""

    @abstractmethod
    async def update_running_summary(
        self,
        chat_id: str,
        new_messages: list[dict[str, str]],
        existing_summary: str | None,
    ) -> str:
        """Extend ``existing_summary`` (None: start one) with ``new_messages``; the result."""

    @abstractmethod
    async def get_relevant_history(
        self, query: str, chat_id: str, k: int = 5
    ) -> list[dict[str, str]]:
        """The ``k`` past turns most relevant to ``query`` ([] without semantic recall)."""

    @abstractmethod
    async def store_conversation_turn(
        self,
        chat_id: str,
        tenant_id: str,
        user_id: str,
        turn: dict[str, str],
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Keep one ``{"role", "content"}`` turn for later recall (a no-op without it)."""


class WithoutTurnRecall(OrchidConversationMemory):
    """A strategy without recall of past turns: nothing is recalled, no turn is stored."""

    async def get_relevant_history(
        self, query: str, chat_id: str, k: int = 5
    ) -> list[dict[str, str]]:
        """Always [] (no recall of past turns)."""
        return []

    async def store_conversation_turn(
        self,
        chat_id: str,
        tenant_id: str,
        user_id: str,
        turn: dict[str, str],
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Stores nothing."""


class NullConversationMemory(WithoutTurnRecall):
    """No memory: no summary, nothing recalled, nothing stored."""

    async def get_running_summary(self, chat_id: str) -> str | None:
        """Always None."""
        return None

    async def update_running_summary(
        self,
        chat_id: str,
        new_messages: list[dict[str, str]],
        existing_summary: str | None,
    ) -> str:
        """The existing summary unchanged ('' when there is none)."""
        return existing_summary or ""
