"""The null vector store: stores nothing, finds nothing; recall degrades to the summary."""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.vectors._common import SearchingStore
from longtalk.vectors.base import RecallScope, ScoredPoint, SparseVector, VectorPoint

__all__ = ["NullVectorStore"]


class NullVectorStore(SearchingStore):
    """A ``VectorStore`` that keeps nothing (``null:``)."""

    def __repr__(self) -> str:
        return "NullVectorStore()"

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Nothing to create, no identity to check."""

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Nothing is stored."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Drops the points."""

    async def _search_dense(
        self, scope: RecallScope, vector: list[float], limit: int
    ) -> list[ScoredPoint]:
        return []

    async def _search_sparse(
        self, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        return []

    async def _fetch(self, scope: RecallScope, wanted: list[int]) -> list[ScoredPoint]:
        return []

    async def delete(self, scope: RecallScope) -> None:
        """Nothing to delete."""

    async def close(self) -> None:
        """Nothing to release."""
