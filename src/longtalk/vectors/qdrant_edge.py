"""The default vector store: Qdrant's engine in-process (``qdrant-edge-py``), under a path.

Layout of ``path``: ``shard/`` (the Qdrant Edge shard: a named cosine dense vector, a
named sparse vector with the IDF modifier, keyword indexes on the scope fields and an
integer index on ``sequence``) and ``longtalk.json`` (the embedding model's identity).

Payloads hold only flat values: a nested value (a turn's metadata) is stored as JSON text and
decoded on reading, so nothing a caller puts in a payload can nest past what the shard's
write-ahead log reads back. A shard that cannot be loaded (a corrupt or unreadable entry)
raises ``StoreUnreadableError``: the recall index is rebuilt from storage
(``longtalk.recall.outbox.open_for_model``) rather than left off.

One process opens the store at a time: ``setup`` takes an exclusive lock on
``longtalk.lock`` and refuses, naming the holder, when another process has the store open
(several replicas share a Qdrant server or pgvector instead).

Searches and fetches run inline: they take well under a millisecond, far less than a
thread hop. Opening, closing, deleting and large upserts run in a worker thread.

Deleted points stay in the shard's files (segment payload pages, write-ahead log) until
:meth:`QdrantEdgeStore.compact` rebuilds the shard from its live points; the recall layer
compacts after every chat deletion, so deleted text is not readable in the store's files
afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from longtalk import legacy
from longtalk.errors import ConfigError, MissingExtraError, VectorStoreError
from longtalk.vectors._common import (
    DENSE,
    FETCH_PAGE,
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
from longtalk.vectors.base import (
    RecallScope,
    ScoredPoint,
    SparseVector,
    StoreUnreadableError,
    VectorPoint,
)

try:
    import qdrant_edge as qe
except ImportError as exc:  # pragma: no cover - a core dependency
    raise MissingExtraError("qdrant-edge-py", "qdrant-edge") from exc

__all__ = ["QdrantEdgeStore"]

T = TypeVar("T")
META_FILE = "longtalk.json"
LOCK_FILE = "longtalk.lock"
JSON_FIELDS = "_json_fields"
"""The payload key naming the fields stored as JSON text."""
_INLINE_UPSERT = 64
_COPY_PAGE = 1024
_REBUILD_DIRS = ("shard", "shard.compacting", "shard.old")
MIN_FREE_BYTES = 64 * 1024 * 1024
"""Free space every write leaves on the store's file system (the shard's segments grow by
whole memory-mapped pages)."""
BYTES_PER_POINT = 16 * 1024
"""A generous estimate of what one point adds on disk (vector, sparse vector, payload,
indexes)."""


class QdrantEdgeStore(SearchingStore):
    """Vectors in an embedded Qdrant Edge shard at ``path`` (created on ``setup``).

    The shard writes through memory maps: a write that runs out of disk there would kill
    the process (SIGBUS), so every write first checks that ``min_free_bytes`` stay free on
    the store's file system and otherwise fails as a ``VectorStoreError`` (the indexer
    retries later; recall lags, nothing is lost).

    Args:
        path: Directory of the store; one process may open it at a time.
        max_search_threads: Qdrant's search pool size (None: one per CPU).
        min_free_bytes: free space a write must leave on the store's file system.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_search_threads: int | None = None,
        min_free_bytes: int = MIN_FREE_BYTES,
    ) -> None:
        self.path = Path(path)
        self._threads = max_search_threads
        self.min_free_bytes = min_free_bytes
        self._shard: Any = None
        self._identity: tuple[str, int] | None = None
        self._opening = asyncio.Lock()
        self._lock_fd: int | None = None
        self._writing = asyncio.Lock()
        self._littered = True
        """Whether points may have been deleted since the last compaction."""
        self._swapped = asyncio.Event()
        """Clear while a compaction swaps the shard (reads and writes wait for it)."""
        self._swapped.set()

    def __repr__(self) -> str:
        return f"QdrantEdgeStore({str(self.path)!r})"

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Open or create the shard; refuse one made with another model."""
        async with self._opening:  # concurrent first calls open the shard once
            if self._identity is not None:
                check_identity(*self._identity, model_id, dimension, str(self.path))
                return
            self._guard("open", self._lock)
            try:
                await asyncio.to_thread(
                    self._guard, "open", lambda: self._open(dimension, model_id)
                )
            except BaseException:
                self._unlock()
                raise

    def _lock(self) -> None:
        """Hold ``longtalk.lock`` for this process; refuse when another process holds it."""
        if self._lock_fd is not None:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        lock_path = self.path / LOCK_FILE
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise ConfigError(
                f"the embedded Qdrant store at {self.path} is already open (lock held by "
                f"pid {holder}); it serves one process at a time: stop the other, or "
                "share a Qdrant server (qdrant:http://HOST:6333) or pgvector "
                "(pgvector:postgresql://...) between several processes",
                path="vectors.url",
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Delete the shard and its model identity, then create an empty one for this model."""
        async with self._opening:
            self._guard("recreate", self._lock)
            await asyncio.to_thread(
                self._guard, "recreate", lambda: self._recreate(dimension, model_id)
            )

    def _recreate(self, dimension: int, model_id: str) -> None:
        if self._shard is not None:
            _flush_close(self._shard)
            self._shard = None
        self._identity = None
        (self.path / META_FILE).unlink(missing_ok=True)
        for name in _REBUILD_DIRS:
            shutil.rmtree(self.path / name, ignore_errors=True)
        self._open(dimension, model_id)

    def _open(self, dimension: int, model_id: str) -> None:
        meta = self.path / META_FILE
        former = self.path / f"{legacy.FORMER_NAME}.json"
        if not meta.exists() and former.exists():
            legacy.warn_former(f"the vector store {self.path}", f"its {former.name} is renamed")
            former.rename(meta)
        if meta.exists():
            stored = _read_identity(meta)
            check_identity(stored["model_id"], stored["dimension"], model_id, dimension, str(meta))
        shard_dir, fresh_dir, old_dir = (self.path / name for name in _REBUILD_DIRS)
        if not shard_dir.exists() and old_dir.exists():  # a compaction was interrupted
            old_dir.rename(shard_dir)
        shutil.rmtree(fresh_dir, ignore_errors=True)
        shutil.rmtree(old_dir, ignore_errors=True)
        config = self._config(dimension)
        if shard_dir.exists() and any(shard_dir.iterdir()):
            self._shard = self._load(shard_dir, config)
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            self._check_space(0)
            self._shard = qe.EdgeShard.create(str(shard_dir), config)
        _create_indexes(self._shard)  # a shard of an older version may lack a newer index
        if not meta.exists():
            meta.write_text(json.dumps({"model_id": model_id, "dimension": dimension}))
        self._identity = (model_id, dimension)

    def _load(self, shard_dir: Path, config: Any) -> Any:
        """The shard on disk; ``StoreUnreadableError`` when its files cannot be read back."""
        try:
            return qe.EdgeShard.load(str(shard_dir), config)
        except Exception as exc:  # qdrant_edge raises bare Exception
            raise StoreUnreadableError(
                f"qdrant-edge at {self.path} cannot be read back: {exc}"
            ) from exc

    def _config(self, dimension: int) -> Any:
        return qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)},
            sparse_vectors={
                SPARSE: qe.EdgeSparseVectorParams(
                    modifier=qe.Modifier.Idf, full_scan_threshold=SPARSE_FULL_SCAN
                )
            },
            max_search_threads=self._threads,
        )

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id."""
        if not points:
            return
        shard = await self._ready()
        self._check_space(len(points))
        operation = qe.UpdateOperation.upsert_points([_point(p) for p in points])
        if len(points) <= _INLINE_UPSERT and not self._writing.locked():
            self._guard("upsert", lambda: shard.update(operation))
            return
        async with self._writing:
            shard = self._require()
            await asyncio.to_thread(self._guard, "upsert", lambda: shard.update(operation))

    async def check_writable(self) -> None:
        """Raise ``VectorStoreError`` unless a small write would leave enough free space."""
        self._check_space(1)

    def _check_space(self, points: int) -> None:
        """Refuse a write that could fill the disk under the shard's memory maps."""
        needed = self.min_free_bytes + points * BYTES_PER_POINT
        try:
            free = shutil.disk_usage(self.path).free
        except OSError as exc:
            raise VectorStoreError(
                f"qdrant-edge at {self.path}: cannot read free space: {exc}"
            ) from exc
        if free < needed:
            raise VectorStoreError(
                f"qdrant-edge at {self.path}: only {free // 1024} KiB free, a write needs "
                f"{needed // 1024} KiB; free disk space (recall lags until then)"
            )

    async def _search_dense(
        self, scope: RecallScope, vector: list[float], limit: int
    ) -> list[ScoredPoint]:
        return await self._nearest(scope, qe.Query.Nearest(vector, using=DENSE), limit)

    async def _search_sparse(
        self, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        vector = qe.SparseVector(list(query.indices), list(query.values))
        return await self._nearest(scope, qe.Query.Nearest(vector, using=SPARSE), limit)

    async def _nearest(self, scope: RecallScope, query: Any, limit: int) -> list[ScoredPoint]:
        shard = await self._ready()
        request = qe.QueryRequest(
            limit=limit, query=query, filter=_filter(scope), with_payload=True
        )
        hits = self._guard("search", lambda: shard.query(request))
        return [scored(h.score, _decoded(h.payload), str(h.id)) for h in hits]

    async def _fetch(self, scope: RecallScope, wanted: list[int]) -> list[ScoredPoint]:
        shard = await self._ready()
        where = _filter(scope, qe.FieldCondition("sequence", match=qe.MatchAny(wanted)))
        records: list[Any] = []
        offset: Any = None
        while True:  # a turn may have several points (e.g. one per sentence): page through
            request = qe.ScrollRequest(
                offset=offset, limit=FETCH_PAGE, filter=where, with_payload=True
            )
            page, offset = self._guard("fetch", partial(shard.scroll, request))
            records.extend(page)
            if offset is None:
                break
        return [scored(0.0, _decoded(r.payload), str(r.id)) for r in records]

    async def delete(self, scope: RecallScope) -> None:
        """Delete every point of the scope's chat (readable in the files until ``compact``)."""
        operation = qe.UpdateOperation.delete_points_by_filter(_filter(scope))
        counting = qe.CountRequest(filter=_filter(scope), exact=True)
        async with self._writing:
            shard = self._require()
            if not self._guard("delete", lambda: shard.count(counting)):
                return
            self._littered = True
            await asyncio.to_thread(self._guard, "delete", lambda: shard.update(operation))

    async def compact(self) -> None:
        """Rebuild the shard from its live points, so deleted ones leave no trace in the files.

        Qdrant keeps a deleted point's payload in its segment pages and write-ahead log, and
        its vacuum does not reliably rewrite every segment: the live points are copied into
        a new shard, which then replaces the old one (whose files are removed before this
        returns). Writes wait meanwhile; searches go on until the swap, and during the swap
        (closing the old shard, opening the copy) they wait for it rather than fail. The cost
        grows with the store: see ``bench/delete_compaction.py``.
        """
        async with self._writing:
            shard = self._require()
            if not self._littered:
                return
            self._check_space(await self.count())
            config = self._config(self._identity[1] if self._identity else 0)
            await asyncio.to_thread(
                self._guard, "compact", lambda: _copy_shard(shard, config, self.path)
            )
            self._swapped.clear()
            self._shard = None
            try:
                await asyncio.to_thread(self._guard, "compact", lambda: self._swap(shard, config))
            finally:
                self._swapped.set()
            old_dir = self.path / _REBUILD_DIRS[2]
            await asyncio.to_thread(self._guard, "compact", lambda: shutil.rmtree(old_dir))
            self._littered = False

    def _swap(self, shard: Any, config: Any) -> None:
        """Replace the shard by the compacted copy and open it (the old one again on error).

        The old shard's files stay in ``shard.old`` for :meth:`compact` to remove.
        """
        shard_dir, fresh_dir, old_dir = (self.path / name for name in _REBUILD_DIRS)
        try:
            _flush_close(shard)
            shard_dir.rename(old_dir)
            fresh_dir.rename(shard_dir)
        finally:
            if not shard_dir.exists() and old_dir.exists():
                old_dir.rename(shard_dir)
            self._shard = qe.EdgeShard.load(str(shard_dir), config)

    async def close(self) -> None:
        """Flush and close the shard (idempotent)."""
        shard, self._shard, self._identity = self._shard, None, None
        try:
            if shard is not None:
                await asyncio.to_thread(self._guard, "close", lambda: _flush_close(shard))
        finally:
            self._unlock()

    async def count(self) -> int:
        """How many points the shard holds, over every scope."""
        shard = await self._ready()
        return int(self._guard("count", lambda: shard.count(qe.CountRequest(exact=True))))

    async def _ready(self) -> Any:
        """The open shard, once a compaction's swap (if one is under way) has ended."""
        if self._shard is None and not self._swapped.is_set():
            await self._swapped.wait()
        return self._require()

    def _require(self) -> Any:
        if self._shard is None:
            raise VectorStoreError(f"{self!r} is not open: await setup() first")
        return self._shard

    def _guard(self, operation: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except (VectorStoreError, ConfigError):
            raise
        except Exception as exc:  # qdrant_edge raises bare Exception
            raise VectorStoreError(f"qdrant-edge {operation} at {self.path} failed: {exc}") from exc


def _create_indexes(shard: Any) -> None:
    """The payload indexes the shard lacks: keywords on the scope fields, ``sequence``."""
    indexed = set(shard.info().payload_schema)
    for field in SCOPE_KEYWORDS:
        if field not in indexed:
            params = qe.KeywordIndexParams(is_tenant=field in ("tenant", "chat_id"))
            shard.update(qe.UpdateOperation.create_field_index(field, params))
    if "sequence" not in indexed:
        sequence = qe.IntegerIndexParams(lookup=True, range=True)
        shard.update(qe.UpdateOperation.create_field_index("sequence", sequence))


def _copy_shard(source: Any, config: Any, path: Path) -> None:
    """A new shard under ``path`` holding every live point of ``source``, closed."""
    fresh_dir = path / _REBUILD_DIRS[1]
    shutil.rmtree(fresh_dir, ignore_errors=True)
    fresh = qe.EdgeShard.create(str(fresh_dir), config)
    try:
        _create_indexes(fresh)
        _copy_points(source, fresh)
    finally:
        _flush_close(fresh)


def _copy_points(source: Any, target: Any) -> None:
    """Every point of ``source`` (vectors and payload) into ``target``, page by page."""
    offset: Any = None
    while True:
        request = qe.ScrollRequest(
            offset=offset, limit=_COPY_PAGE, with_payload=True, with_vector=True
        )
        page, offset = source.scroll(request)
        if page:
            copies = [qe.Point(r.id, r.vector, r.payload) for r in page]
            target.update(qe.UpdateOperation.upsert_points(copies))
        if offset is None:
            return


def _flush_close(shard: Any) -> None:
    shard.flush()
    shard.close()


def _point(point: VectorPoint) -> Any:
    vector: dict[str, Any] = {DENSE: floats(point.vector)}
    if point.sparse is not None and point.sparse.indices:
        vector[SPARSE] = qe.SparseVector(list(point.sparse.indices), list(point.sparse.values))
    return qe.Point(point_uuid(point.id), vector, _flat(stored_payload(point.id, point.payload)))


def _flat(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with every nested value (a dict or a list) stored as JSON text."""
    nested = sorted(key for key, value in payload.items() if isinstance(value, dict | list))
    if not nested:
        return payload
    flat = {key: json.dumps(value) if key in nested else value for key, value in payload.items()}
    flat[JSON_FIELDS] = ",".join(nested)
    return flat


def _decoded(payload: dict[str, Any] | None) -> dict[str, Any]:
    """A payload as the caller stored it (nested values decoded from their JSON text)."""
    data = dict(payload or {})
    names = data.pop(JSON_FIELDS, None)
    if isinstance(names, str):
        for key in names.split(","):
            if isinstance(data.get(key), str):
                data[key] = json.loads(data[key])
    return data


def _read_identity(meta: Path) -> dict[str, Any]:
    """The model identity recorded beside the shard; unreadable: ``StoreUnreadableError``."""
    try:
        stored = json.loads(meta.read_text())
        return {"model_id": str(stored["model_id"]), "dimension": int(stored["dimension"])}
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreUnreadableError(f"{meta} cannot be read back: {exc!r}") from exc


def _filter(scope: RecallScope, *extra: Any) -> Any:
    must = [
        qe.FieldCondition(key, match=qe.MatchValue(value))
        for key, value in scope_conditions(scope).items()
    ]
    return qe.Filter(must=[*must, *extra])
