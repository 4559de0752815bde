"""The null vector store: stores nothing, finds nothing; recall degrades to the summary."""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.vectors.base import RecallScope, ScoredPoint, SparseVector, VectorPoint

__all__ = ["NullVectorStore"]


class NullVectorStore:
    """A ``VectorStore`` that keeps nothing (``null:``)."""

    def __repr__(self) -> str:
        return "NullVectorStore()"

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Nothing to create, no identity to check."""

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Nothing is stored."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Drops the points."""

    async def search(
        self,
        scope: RecallScope,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """Always []."""
        return []

    async def fetch(self, scope: RecallScope, sequences: Sequence[int]) -> list[ScoredPoint]:
        """Always []."""
        return []

    async def delete(self, scope: RecallScope) -> None:
        """Nothing to delete."""

    async def close(self) -> None:
        """Nothing to release."""
