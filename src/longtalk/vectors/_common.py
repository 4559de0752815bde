"""What every vector-store backend shares: ids, scope fields, names, identity checks.

And the checked search and fetch (``SearchingStore``) over each backend's own queries.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from longtalk import legacy
from longtalk.vectors.base import ModelChangedError, RecallScope, ScoredPoint, SparseVector

DENSE = "dense"
SPARSE = "sparse"
ID_KEY = "_point_id"
SCOPE_KEYWORDS = ("namespace", "tenant", "user", "chat_id", "incarnation")
DEFAULT_COLLECTION = "longtalk_turns"
FORMER_COLLECTION = f"{legacy.FORMER_NAME}_turns"  # the former default, read for one release
FETCH_PAGE = 256
# Below this many points after the scope filter, a sparse search scores the filtered points
# directly instead of walking the inverted index: a chat's turns are few, while the posting
# lists of common words span the whole collection (100k turns: p95 3.5 -> 0.6 ms).
SPARSE_FULL_SCAN = 20_000

_ID_NAMESPACE = uuid.UUID("6f1b1f0e-7a52-4a8e-9c1e-6d656d737472")


def point_uuid(point_id: str) -> str:
    """A stable UUID for any string id (Qdrant accepts only UUIDs and integers)."""
    try:
        return str(uuid.UUID(point_id))
    except ValueError:
        return str(uuid.uuid5(_ID_NAMESPACE, point_id))


def floats(vector: Sequence[float] | None) -> list[float]:
    """A vector (list, tuple or numpy array) as a plain list of Python floats."""
    if vector is None:
        return []
    values: list[float] = np.asarray(vector, dtype=np.float64).reshape(-1).tolist()
    return values


def scope_conditions(scope: RecallScope) -> dict[str, str]:
    """The payload equalities a point must meet to belong to ``scope``.

    ``user`` and ``incarnation`` only when set (chats older than incarnations have none,
    and neither have their stored turns).
    """
    fields = {"namespace": scope.namespace, "tenant": scope.tenant, "chat_id": scope.chat_id}
    if scope.user is not None:
        fields["user"] = scope.user
    if scope.incarnation:
        fields["incarnation"] = scope.incarnation
    return fields


def stored_payload(point_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload as stored: the caller's fields plus the original point id."""
    return {**payload, ID_KEY: point_id}


def scored(score: float, payload: Mapping[str, Any] | None, fallback_id: str) -> ScoredPoint:
    """A ``ScoredPoint`` from a stored payload, with the original id restored."""
    data = dict(payload or {})
    point_id = str(data.pop(ID_KEY, fallback_id))
    return ScoredPoint(id=point_id, score=float(score), payload=data)


def one_query(dense: object | None, sparse: SparseVector | None) -> None:
    """Reject a search with neither or both of dense and sparse queries."""
    if (dense is None) == (sparse is None):
        raise ValueError("search takes exactly one of dense= or sparse=")


def check_identity(
    stored_model: str, stored_dimension: int, model_id: str, dimension: int, where: str
) -> None:
    """Raise ``ModelChangedError`` if the vectors at ``where`` are another model's."""
    if stored_model != model_id or stored_dimension != dimension:
        raise ModelChangedError(
            f"{where} holds vectors of {stored_model!r} ({stored_dimension} dimensions), "
            f"not of the configured {model_id!r} ({dimension} dimensions): mixing them "
            "would make recall meaningless. Use another path/collection, or delete the old "
            "vectors and re-embed."
        )


def in_order(points: list[ScoredPoint]) -> list[ScoredPoint]:
    """Points sorted by turn sequence, then piece (several points may share a turn)."""
    return sorted(
        points,
        key=lambda p: (int(p.payload.get("sequence") or 0), int(p.payload.get("piece") or 0)),
    )


class SearchingStore(ABC):
    """A vector store's ``search`` and ``fetch``, checked and ordered once for every backend.

    ``search`` takes exactly one query (``ValueError`` otherwise) and hands it to the
    backend's dense or sparse search; ``fetch`` asks for each sequence once and returns
    the points in turn order. A backend writes only its own queries.
    """

    async def search(
        self,
        scope: RecallScope,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """The ``limit`` nearest points of the scope, by cosine (dense) or sparse dot."""
        one_query(dense, sparse)
        if sparse is not None:
            return await self._search_sparse(scope, sparse, limit)
        return await self._search_dense(scope, floats(dense), limit)

    async def fetch(self, scope: RecallScope, sequences: Sequence[int]) -> list[ScoredPoint]:
        """The scope's points with these sequences, in sequence order (score 0)."""
        wanted = sorted({int(s) for s in sequences})
        if not wanted:
            return []
        return in_order(await self._fetch(scope, wanted))

    @abstractmethod
    async def _search_dense(
        self, scope: RecallScope, vector: list[float], limit: int
    ) -> list[ScoredPoint]:
        """The nearest points of the scope by cosine."""

    @abstractmethod
    async def _search_sparse(
        self, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        """The nearest points of the scope by sparse dot."""

    @abstractmethod
    async def _fetch(self, scope: RecallScope, wanted: list[int]) -> list[ScoredPoint]:
        """The scope's points with these sequences (sorted, distinct, not empty), any order."""
