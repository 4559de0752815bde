"""One resolver for vector stores: an instance, or a ``"scheme:target"`` string.

==========================  ===========================================================
``qdrant-edge:PATH``         :class:`QdrantEdgeStore` at PATH (empty: the user data dir)
``qdrant:URL``               :class:`QdrantServerStore` on a server (``http://host:6333``)
``qdrant-local::memory:``    qdrant-client local mode in memory (``qdrant-local:PATH`` on disk)
``pgvector:DSN``             :class:`PgVectorStore` (``pgvector:postgresql://...``)
``null:``                    :class:`NullVectorStore`: recall off
==========================  ===========================================================
"""

from __future__ import annotations

import difflib
from pathlib import Path

from longtalk.core.redact import redact
from longtalk.errors import ConfigError, UnknownBackendError
from longtalk.paths import data_dir
from longtalk.vectors._common import DEFAULT_COLLECTION
from longtalk.vectors.base import VectorStore

__all__ = ["SCHEMES", "default_edge_path", "resolve_vector_store"]

SCHEMES = ("qdrant-edge", "qdrant", "qdrant-local", "pgvector", "null")


def default_edge_path() -> Path:
    """Where ``qdrant-edge:`` keeps vectors when no path is given (under the data directory)."""
    return data_dir() / "vectors"


def resolve_vector_store(spec: VectorStore | str, *, collection: str | None = None) -> VectorStore:
    """The store an instance or a ``"scheme:target"`` string names.

    Args:
        spec: A ``VectorStore`` (returned as is) or a string from the table above.
        collection: Collection (Qdrant) or table (pgvector) name; the default when None.

    Raises:
        UnknownBackendError: An unknown scheme; the message suggests the nearest one.
        ConfigError: A known scheme without the target it needs.
    """
    if not isinstance(spec, str):
        return spec
    scheme, sep, target = spec.partition(":")
    scheme = scheme.strip().lower()
    if not sep or scheme not in SCHEMES:
        raise UnknownBackendError(_unknown(spec, scheme))
    return _build(scheme, target.strip(), collection)


def _build(scheme: str, target: str, collection: str | None) -> VectorStore:
    name = collection or DEFAULT_COLLECTION
    if scheme == "null":
        from longtalk.vectors.null import NullVectorStore

        return NullVectorStore()
    if scheme == "qdrant-edge":
        from longtalk.vectors.qdrant_edge import QdrantEdgeStore

        return QdrantEdgeStore(Path(target).expanduser() if target else default_edge_path())
    if not target:
        raise ConfigError(f"{scheme}: needs a target, e.g. {_EXAMPLES[scheme]}", path="vectors")
    if scheme == "pgvector":
        from longtalk.vectors.pgvector import PgVectorStore

        return PgVectorStore(target, table=name)
    from longtalk.vectors.qdrant_server import QdrantServerStore

    if scheme == "qdrant":
        return QdrantServerStore(target, collection=name)
    if target == ":memory:":
        return QdrantServerStore(location=target, collection=name)
    return QdrantServerStore(path=str(Path(target).expanduser()), collection=name)


_EXAMPLES = {
    "qdrant": "qdrant:http://localhost:6333",
    "qdrant-local": "qdrant-local::memory:",
    "pgvector": "pgvector:postgresql://user@localhost/db",
}


def _unknown(spec: str, scheme: str) -> str:
    nearest = difflib.get_close_matches(scheme, SCHEMES, n=1, cutoff=0.5)
    hint = f" - did you mean {nearest[0]!r}?" if nearest else ""
    known = ", ".join(f"'{s}:'" for s in SCHEMES)
    return f"unknown vector store {redact(spec)!r}{hint} Known: {known}"
