"""Vector-store fixtures: every backend for real (Qdrant Edge, qdrant-client local, pgvector)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from vector_helpers import STORES, opener

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.testing.vector_suite import turn_point
from longtalk.vectors.base import RecallScope, VectorPoint, VectorStore


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="session")
def embed(embedder: MiniLMEmbedder) -> Callable[[str], np.ndarray]:
    cache: dict[str, np.ndarray] = {}

    def one(text: str) -> np.ndarray:
        if text not in cache:
            cache[text] = embedder.embed([text])[0]
        return cache[text]

    return one


@pytest.fixture
def make_point(embed: Callable[[str], np.ndarray]) -> Callable[..., VectorPoint]:
    def make(scope: RecallScope, sequence: int, text: str, role: str = "user") -> VectorPoint:
        return turn_point(scope, sequence, text, embed(text), role=role)

    return make


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / uuid.uuid4().hex[:8]


@pytest.fixture(params=STORES)
def open_store(request: pytest.FixtureRequest, store_path: Path) -> Callable[[], VectorStore]:
    """Every store kind, each at a new place (pgvector: a new table)."""
    dsn = request.getfixturevalue("postgres_dsn") if request.param == "pgvector" else ""
    return opener(request.param, store_path, dsn)
