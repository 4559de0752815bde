"""What every vector-store backend shares: ids, scope fields, names, identity checks."""

from __future__ import annotations

import uuid
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
