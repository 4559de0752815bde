"""Vectors in a Qdrant server through ``qdrant-client`` (extra ``qdrant``).

One collection (default ``longtalk_turns``) with a named cosine dense vector, a named
sparse vector with the IDF modifier, keyword payload indexes on the scope fields (tenant
and chat as tenant keys) and an integer index on ``sequence``. The embedding model's
identity lives in the collection's metadata.

``qdrant-client``'s local mode (``location=":memory:"`` or ``path=...``) speaks the same
API without a server; it is what the tests use. It has no payload indexes (they are
skipped) and searches by brute force, so it is for tests and small data only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from longtalk import legacy
from longtalk.core.redact import redact
from longtalk.errors import MissingExtraError, VectorStoreError
from longtalk.vectors._common import (
    DEFAULT_COLLECTION,
    DENSE,
    FETCH_PAGE,
    FORMER_COLLECTION,
    SCOPE_KEYWORDS,
    SPARSE,
    SPARSE_FULL_SCAN,
    SearchingStore,
    check_identity,
    floats,
    point_uuid,
    scope_conditions,
    scored,
    stored_payload,
)
from longtalk.vectors.base import RecallScope, ScoredPoint, SparseVector, VectorPoint

try:
    from qdrant_client import AsyncQdrantClient, models
except ImportError as exc:
    raise MissingExtraError("qdrant-client", "qdrant") from exc

__all__ = ["QdrantServerStore"]

T = TypeVar("T")


class QdrantServerStore(SearchingStore):
    """A Qdrant collection reached by URL, or qdrant-client's local mode.

    Args:
        url: Server URL such as ``http://localhost:6333``.
        location: ``":memory:"`` for qdrant-client's in-memory local mode.
        path: A directory for qdrant-client's on-disk local mode.
        collection: Collection name.
        api_key: Server API key.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        location: str | None = None,
        path: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        api_key: str | None = None,
        timeout: int = 10,
    ) -> None:
        if sum(x is not None for x in (url, location, path)) != 1:
            raise ValueError("give exactly one of url=, location=, path=")
        self.collection = collection
        self.local = url is None
        self._target = redact(url or location or path or "")
        self._options: dict[str, Any] = {
            "url": url,
            "location": location,
            "path": path,
            "api_key": api_key,
            "timeout": timeout,
            "check_compatibility": False,
        }
        self._client_instance: AsyncQdrantClient | None = None
        self._ready = False

    def __repr__(self) -> str:
        return f"QdrantServerStore({self._target!r}, collection={self.collection!r})"

    @property
    def _client(self) -> AsyncQdrantClient:
        """The client, made on first use (no connection or thread before ``setup``)."""
        if self._client_instance is None:
            try:
                self._client_instance = AsyncQdrantClient(**self._options)
            except Exception as exc:  # local mode opens files; server mode parses the URL
                raise VectorStoreError(f"cannot open Qdrant at {self._target}: {exc}") from exc
        return self._client_instance

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Create the collection and its indexes; refuse one made with another model.

        Replicas starting together may both try to create it: the one that loses the race
        checks the collection the other made.
        """
        client = self._client
        await self._former_collection()
        if not await self._guard("setup", client.collection_exists(self.collection)):
            try:
                await self._guard("setup", self._create(dimension, model_id))
                self._ready = True
                return
            except VectorStoreError:
                if not await self._guard("setup", client.collection_exists(self.collection)):
                    raise
        info = await self._guard("setup", client.get_collection(self.collection))
        meta = info.config.metadata or {}
        check_identity(
            str(meta.get("model_id", "<unknown model>")),
            int(meta.get("dimension", -1)),
            model_id,
            dimension,
            f"Qdrant collection {self.collection!r} at {self._target}",
        )
        self._ready = True

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Drop the collection and create it empty for this model."""
        await self._guard("recreate", self._client.delete_collection(self.collection))
        await self._guard("recreate", self._create(dimension, model_id))
        self._ready = True

    async def _former_collection(self) -> None:
        """Use the former default collection when it exists and the default does not."""
        if self.collection != DEFAULT_COLLECTION:
            return
        exists = self._client.collection_exists
        if await self._guard("setup", exists(self.collection)) or not await self._guard(
            "setup", exists(FORMER_COLLECTION)
        ):
            return
        legacy.warn_former(
            f"the Qdrant collection {FORMER_COLLECTION!r}", "set vectors.collection to keep it"
        )
        self.collection = FORMER_COLLECTION

    async def _create(self, dimension: int, model_id: str) -> None:
        await self._client.create_collection(
            self.collection,
            vectors_config={
                DENSE: models.VectorParams(size=dimension, distance=models.Distance.COSINE)
            },
            sparse_vectors_config={
                SPARSE: models.SparseVectorParams(
                    modifier=models.Modifier.IDF,
                    index=models.SparseIndexParams(full_scan_threshold=SPARSE_FULL_SCAN),
                )
            },
            metadata={"model_id": model_id, "dimension": dimension},
        )
        if self.local:
            return  # local mode ignores payload indexes (and warns about them)
        for field in SCOPE_KEYWORDS:
            keyword = models.KeywordIndexParams(
                type=models.KeywordIndexType.KEYWORD, is_tenant=field in ("tenant", "chat_id")
            )
            await self._client.create_payload_index(self.collection, field, field_schema=keyword)
        integer = models.IntegerIndexParams(
            type=models.IntegerIndexType.INTEGER, lookup=True, range=True
        )
        await self._client.create_payload_index(self.collection, "sequence", field_schema=integer)

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id."""
        if not points:
            return
        self._require()
        structs = [_struct(p) for p in points]
        await self._guard("upsert", self._client.upsert(self.collection, structs, wait=True))

    async def _search_dense(
        self, scope: RecallScope, vector: list[float], limit: int
    ) -> list[ScoredPoint]:
        return await self._nearest(scope, vector, DENSE, limit)

    async def _search_sparse(
        self, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        vector = models.SparseVector(indices=list(query.indices), values=list(query.values))
        return await self._nearest(scope, vector, SPARSE, limit)

    async def _nearest(
        self, scope: RecallScope, query: Any, using: str, limit: int
    ) -> list[ScoredPoint]:
        self._require()
        response = await self._guard(
            "search",
            self._client.query_points(
                self.collection,
                query=query,
                using=using,
                query_filter=_filter(scope),
                limit=limit,
                with_payload=True,
            ),
        )
        return [scored(p.score, p.payload, str(p.id)) for p in response.points]

    async def _fetch(self, scope: RecallScope, wanted: list[int]) -> list[ScoredPoint]:
        self._require()
        match = models.FieldCondition(key="sequence", match=models.MatchAny(any=wanted))
        where = _filter(scope, match)
        records: list[Any] = []
        offset: Any = None
        while True:  # a turn may have several points (e.g. one per sentence): page through
            page, offset = await self._guard(
                "fetch",
                self._client.scroll(
                    self.collection,
                    scroll_filter=where,
                    limit=FETCH_PAGE,
                    offset=offset,
                    with_payload=True,
                ),
            )
            records.extend(page)
            if offset is None:
                break
        return [scored(0.0, r.payload, str(r.id)) for r in records]

    async def delete(self, scope: RecallScope) -> None:
        """Delete every point of the scope's chat."""
        self._require()
        selector = models.FilterSelector(filter=_filter(scope))
        await self._guard("delete", self._client.delete(self.collection, selector, wait=True))

    async def close(self) -> None:
        """Close the client (idempotent)."""
        client, self._client_instance, self._ready = self._client_instance, None, False
        if client is not None:
            await self._guard("close", client.close())

    def _require(self) -> None:
        if not self._ready:
            raise VectorStoreError(f"{self!r} is not set up: await setup() first")

    async def _guard(self, operation: str, call: Awaitable[T]) -> T:
        try:
            return await call
        except VectorStoreError:
            raise
        except Exception as exc:  # qdrant-client raises many unrelated types
            raise VectorStoreError(
                f"Qdrant {operation} on {self.collection!r} at {self._target} failed: {exc}"
            ) from exc


def _struct(point: VectorPoint) -> Any:
    vector: dict[str, Any] = {DENSE: floats(point.vector)}
    if point.sparse is not None and point.sparse.indices:
        vector[SPARSE] = models.SparseVector(
            indices=list(point.sparse.indices), values=list(point.sparse.values)
        )
    payload = stored_payload(point.id, point.payload)
    return models.PointStruct(id=point_uuid(point.id), vector=vector, payload=payload)


def _filter(scope: RecallScope, *extra: Any) -> Any:
    must: list[Any] = [
        models.FieldCondition(key=key, match=models.MatchValue(value=value))
        for key, value in scope_conditions(scope).items()
    ]
    return models.Filter(must=[*must, *extra])
