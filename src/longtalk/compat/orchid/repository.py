"""Orchid's vector-store data types, the RAG scope its memory retrieves under, the null reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class OrchidDocument:
    """A stored document: id, text and metadata."""

    id: str
    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class OrchidSearchResult:
    """A retrieved document with its similarity score."""

    document: OrchidDocument
    score: float


@dataclass(frozen=True)
class OrchidRAGScope:
    """Hierarchical tenant isolation for retrieval."""

    tenant_id: str = "default"
    user_id: str = ""
    chat_id: str = ""
    agent_id: str = ""


class NullVectorReader:
    """Orchid's stand-in for a vector store: every retrieval finds nothing.

    With it, ``OrchidRAGConversationMemory`` behaves as the running-summary memory.
    """

    async def retrieve(
        self,
        query: str,
        namespace: str,
        k: int = 5,
        scope: OrchidRAGScope | None = None,
    ) -> list[OrchidSearchResult]:
        """Always []."""
        return []
