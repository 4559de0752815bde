"""Helpers shared by the vector-store tests (plain functions; fixtures live in conftest)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from longtalk.testing.vector_suite import MODEL, sparse_terms
from longtalk.vectors.base import VectorStore
from longtalk.vectors.pgvector import PgVectorStore
from longtalk.vectors.qdrant_edge import QdrantEdgeStore
from longtalk.vectors.qdrant_server import QdrantServerStore

__all__ = ["MODEL", "STORES", "opener", "sparse_terms"]

STORES = ["qdrant-edge", "qdrant-local", "pgvector"]


def opener(kind: str, where: Path, dsn: str = "") -> Callable[[], VectorStore]:
    """Opens a store of ``kind`` at ``where`` (pgvector: a table named after it in ``dsn``)."""
    if kind == "qdrant-edge":
        return lambda: QdrantEdgeStore(where / "edge")
    if kind == "qdrant-local":
        return lambda: QdrantServerStore(path=str(where / "local"))
    table = "t_" + hashlib.sha1(str(where).encode()).hexdigest()[:12]
    return lambda: PgVectorStore(dsn, table=table)
