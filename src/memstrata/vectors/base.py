"""The recall seam: read relevant past turns, and store new ones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memstrata.core.messages import Message

MEMORY_NAMESPACE = "__memory__"


@dataclass(frozen=True, slots=True)
class RecallScope:
    """Who may see a turn: every query is filtered by all of these that are set."""

    chat_id: str
    tenant: str = "default"
    user: str | None = None
    namespace: str = MEMORY_NAMESPACE


@dataclass(frozen=True, slots=True)
class RecalledTurn:
    """A past message brought back for the current query, with its similarity score."""

    message: Message
    score: float
    sequence: int = 0


@runtime_checkable
class VectorReader(Protocol):
    """Reads the past turns most relevant to a query."""

    async def get_relevant_history(
        self,
        query: str,
        scope: RecallScope,
        *,
        k: int = 5,
        similarity_threshold: float = 0.5,
        exclude_hashes: frozenset[str] = frozenset(),
    ) -> list[RecalledTurn]:
        """At most ``k`` turns scoring at least the threshold; [] on any failure."""
        ...


@runtime_checkable
class TurnStore(Protocol):
    """Stores turns for later recall; storing the same turn twice is a no-op."""

    async def store_turns(self, scope: RecallScope, messages: Sequence[tuple[int, Message]]) -> int:
        """Store (sequence, message) pairs; returns how many were new."""
        ...

    async def delete_chat(self, scope: RecallScope) -> None:
        """Remove every stored turn of the chat."""
        ...


class NullVectorReader:
    """No vector store: recall returns nothing and the engine behaves as running_summary."""

    async def get_relevant_history(
        self,
        query: str,
        scope: RecallScope,
        *,
        k: int = 5,
        similarity_threshold: float = 0.5,
        exclude_hashes: frozenset[str] = frozenset(),
    ) -> list[RecalledTurn]:
        """Always []."""
        return []

    async def store_turns(self, scope: RecallScope, messages: Sequence[tuple[int, Message]]) -> int:
        """Stores nothing."""
        return 0

    async def delete_chat(self, scope: RecallScope) -> None:
        """Nothing to delete."""
