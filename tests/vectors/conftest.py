"""Vector-store fixtures: every backend for real (Qdrant Edge, qdrant-client local, pgvector)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import numpy as np
import pytest
from vector_helpers import MODEL, STORES, open_store, sparse_terms

from longtalk.embed.minilm import MiniLMEmbedder
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
        payload = {
            "namespace": scope.namespace,
            "tenant": scope.tenant,
            "user": scope.user,
            "chat_id": scope.chat_id,
            "role": role,
            "sequence": sequence,
            "timestamp": f"2026-01-01T00:00:{sequence:02d}+00:00",
            "content": text,
            "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        }
        point_id = f"{scope.tenant}:{scope.user}:{scope.chat_id}:{sequence}"
        return VectorPoint(point_id, embed(text), payload, sparse_terms(text))

    return make


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / uuid.uuid4().hex[:8]


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, store_path: Path) -> AsyncIterator[VectorStore]:
    opened = open_store(request.param, store_path, request)
    await opened.setup(dimension=384, model_id=MODEL)
    yield opened
    await opened.close()
