"""The shipped vector-store suite, run against Qdrant Edge, qdrant-client local and pgvector."""

from __future__ import annotations

from longtalk.testing import VectorStoreConformance


class TestVectorStores(VectorStoreConformance):
    """Every store of ``STORES`` (the ``open_store`` fixture of this folder's conftest)."""
