import asyncio
from pathlib import Path

import pytest

from longtalk.errors import ConfigError, UnknownBackendError, VectorStoreError
from longtalk.vectors.base import RecallScope, SparseVector, VectorPoint, VectorStore
from longtalk.vectors.null import NullVectorStore
from longtalk.vectors.pgvector import PgVectorStore
from longtalk.vectors.qdrant_edge import QdrantEdgeStore
from longtalk.vectors.qdrant_server import QdrantServerStore
from longtalk.vectors.resolve import default_edge_path, resolve_vector_store


async def test_schemes_resolve_to_their_backends(tmp_path: Path) -> None:
    edge = resolve_vector_store(f"qdrant-edge:{tmp_path}/v")
    assert isinstance(edge, QdrantEdgeStore) and edge.path == tmp_path / "v"
    default = resolve_vector_store("qdrant-edge:")
    assert isinstance(default, QdrantEdgeStore) and default.path == default_edge_path()
    server = resolve_vector_store("qdrant:http://127.0.0.1:6333", collection="turns")
    assert isinstance(server, QdrantServerStore) and not server.local
    assert server.collection == "turns"
    memory = resolve_vector_store("qdrant-local::memory:")
    assert isinstance(memory, QdrantServerStore) and memory.local
    on_disk = resolve_vector_store(f"qdrant-local:{tmp_path}/q")
    assert isinstance(on_disk, QdrantServerStore) and on_disk.local
    pg = resolve_vector_store("pgvector:postgresql://u@127.0.0.1/db", collection="vecs")
    assert isinstance(pg, PgVectorStore) and pg.table == "vecs"
    assert isinstance(resolve_vector_store("null:"), NullVectorStore)
    for store in (server, memory, on_disk):
        await store.close()


def test_an_instance_passes_through() -> None:
    store = NullVectorStore()
    assert resolve_vector_store(store) is store


@pytest.mark.parametrize(
    ("spec", "suggestion"),
    [("qdrant-egde:/tmp/x", "qdrant-edge"), ("pgvectr:postgresql://x", "pgvector")],
)
def test_a_typo_suggests_the_nearest_scheme(spec: str, suggestion: str) -> None:
    with pytest.raises(UnknownBackendError, match=f"did you mean '{suggestion}'"):
        resolve_vector_store(spec)


def test_unknown_and_incomplete_specs() -> None:
    with pytest.raises(UnknownBackendError, match="Known"):
        resolve_vector_store("faiss")
    with pytest.raises(ConfigError, match="qdrant:http"):
        resolve_vector_store("qdrant:")
    with pytest.raises(ConfigError, match="table"):
        resolve_vector_store("pgvector:postgresql://x", collection="bad; drop table")


async def test_null_store_keeps_nothing() -> None:
    store = NullVectorStore()
    assert isinstance(store, VectorStore)
    scope = RecallScope(chat_id="c")
    await store.setup(dimension=384, model_id="a")
    await store.setup(dimension=8, model_id="b")  # no identity to conflict with
    await store.upsert([VectorPoint("p", [1.0] * 384, {"chat_id": "c"})])
    assert await store.search(scope, dense=[1.0] * 384) == []
    assert await store.search(scope, sparse=SparseVector((1,), (1.0,))) == []
    assert await store.fetch(scope, [0]) == []
    await store.delete(scope)
    await store.close()


@pytest.mark.parametrize(
    "spec", ["qdrant:http://127.0.0.1:1", "pgvector:postgresql://nobody@127.0.0.1:1/db"]
)
async def test_unreachable_servers_raise_vector_store_errors(spec: str) -> None:
    store = resolve_vector_store(spec)
    with pytest.raises(VectorStoreError, match="127.0.0.1"):
        await store.setup(dimension=384, model_id="m")
    await store.close()


async def test_an_edge_path_open_twice_is_a_vector_store_error(tmp_path: Path) -> None:
    first = QdrantEdgeStore(tmp_path)
    await first.setup(dimension=8, model_id="m")
    second = QdrantEdgeStore(tmp_path)
    try:
        with pytest.raises(ConfigError, match="already open"):
            await second.setup(dimension=8, model_id="m")
    finally:
        await first.close()
    await second.setup(dimension=8, model_id="m")  # free again once the first is closed
    assert await second.count() == 0
    await second.close()


async def test_concurrent_setup_opens_an_edge_store_once(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path)
    await asyncio.gather(*(store.setup(dimension=8, model_id="m") for _ in range(4)))
    assert await store.count() == 0
    await store.close()
