"""Helpers shared by the vector-store tests (plain functions; fixtures live in conftest)."""

from __future__ import annotations

import hashlib
import re
import zlib
from collections import Counter
from pathlib import Path

import pytest

from longtalk.vectors.base import SparseVector, VectorStore
from longtalk.vectors.pgvector import PgVectorStore
from longtalk.vectors.qdrant_edge import QdrantEdgeStore
from longtalk.vectors.qdrant_server import QdrantServerStore

STORES = ["qdrant-edge", "qdrant-local", "pgvector"]
MODEL = "test-model@1"


def sparse_terms(text: str) -> SparseVector:
    counts = Counter(re.findall(r"\w+", text.lower()))
    pairs = sorted((zlib.crc32(w.encode()) % (2**31 - 1), float(c)) for w, c in counts.items())
    return SparseVector(tuple(i for i, _ in pairs), tuple(v for _, v in pairs))


def open_store(kind: str, where: Path, request: pytest.FixtureRequest) -> VectorStore:
    if kind == "qdrant-edge":
        return QdrantEdgeStore(where / "edge")
    if kind == "qdrant-local":
        return QdrantServerStore(path=str(where / "local"))
    dsn = request.getfixturevalue("postgres_dsn")
    table = "t_" + hashlib.sha1(str(where).encode()).hexdigest()[:12]
    return PgVectorStore(dsn, table=table)
