"""Vectors in PostgreSQL with pgvector, through asyncpg (extra ``postgres``).

One table (default ``longtalk_turns``): the scope fields as columns under a B-tree on
(tenant, chat_id, namespace, sequence), the dense vector as ``vector(d)`` searched with
the cosine operator ``<=>`` after the scope filter, the payload as ``jsonb``, and the sparse
vector as parallel ``int[]``/``real[]`` columns with a GIN index on the term ids.

Sparse search: the GIN index finds the scope's turns that share a term with the query;
their scores are ``sum(q_t * idf_t * d_t)`` with the BM25 IDF
``ln(1 + (N - n_t + 0.5) / (n_t + 0.5))`` counted within the chat (Qdrant's IDF modifier
counts over the whole collection; per chat is what recall within a chat needs). pgvector's
``sparsevec`` has no IDF, and PostgreSQL full text would ignore the caller's term weights.

The model's identity is a row of ``longtalk_vector_meta``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from longtalk import legacy
from longtalk.errors import ConfigError, MissingExtraError, VectorStoreError
from longtalk.vectors._common import (
    DEFAULT_COLLECTION,
    FORMER_COLLECTION,
    SearchingStore,
    check_identity,
    floats,
    scope_conditions,
    scored,
    stored_payload,
)
from longtalk.vectors.base import RecallScope, ScoredPoint, SparseVector, VectorPoint

try:
    import asyncpg
except ImportError as exc:
    raise MissingExtraError("asyncpg", "postgres") from exc

__all__ = ["PgVectorStore"]

T = TypeVar("T")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,50}$")
META_TABLE = "longtalk_vector_meta"
FORMER_META_TABLE = f"{legacy.FORMER_NAME}_vector_meta"


class PgVectorStore(SearchingStore):
    """A pgvector table in PostgreSQL.

    Args:
        dsn: ``postgresql://user:pass@host:port/db``.
        table: Table name (lower-case identifier).
        pool_size: Most connections kept open.
    """

    def __init__(self, dsn: str, *, table: str = DEFAULT_COLLECTION, pool_size: int = 4) -> None:
        if not _IDENT.match(table):
            raise ConfigError(f"not a plain table name: {table!r}", path="vectors.table")
        self.dsn = dsn
        self.table = table
        self._pool_size = pool_size
        self._pool: Any = None
        self._dimension = 0

    def __repr__(self) -> str:
        return f"PgVectorStore(table={self.table!r})"

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Create the extension, tables and indexes; refuse a table of another model."""
        if self._pool is None:
            self._pool = await self._guard("connect", self._connect)
        stored = await self._guard("setup", lambda: self._create(dimension, model_id))
        check_identity(stored[0], stored[1], model_id, dimension, f"table {self.table!r}")
        self._dimension = dimension

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Drop the table and its model identity, then create them for this model."""
        if self._pool is None:
            self._pool = await self._guard("connect", self._connect)
        await self._guard("recreate", self._drop)
        await self.setup(dimension=dimension, model_id=model_id)

    async def _drop(self) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('longtalk_vectors'))")
            await conn.execute(f"DROP TABLE IF EXISTS {self.table}")
            if await conn.fetchval("SELECT to_regclass($1)", META_TABLE) is not None:
                await conn.execute(f"DELETE FROM {META_TABLE} WHERE collection = $1", self.table)

    async def _connect(self) -> Any:
        return await asyncpg.create_pool(
            self.dsn, min_size=1, max_size=self._pool_size, init=_init_connection
        )

    async def _create(self, dimension: int, model_id: str) -> tuple[str, int]:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('longtalk_vectors'))")
            await self._adopt_former_names(conn)
            t = self.table
            await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {META_TABLE} (collection text PRIMARY KEY,"
                " model_id text NOT NULL, dimension integer NOT NULL)"
            )
            await conn.execute(
                f"INSERT INTO {META_TABLE} VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                t,
                model_id,
                dimension,
            )
            row = await conn.fetchrow(
                f"SELECT model_id, dimension FROM {META_TABLE} WHERE collection = $1", t
            )
            if (row["model_id"], row["dimension"]) != (model_id, dimension):
                return str(row["model_id"]), int(row["dimension"])
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {t} (id text PRIMARY KEY, namespace text NOT NULL,"
                ' tenant text NOT NULL, "user" text, chat_id text NOT NULL, sequence bigint,'
                f" embedding vector({dimension}) NOT NULL, sparse_indices integer[],"
                " sparse_values real[], payload jsonb NOT NULL)"
            )
            await conn.execute(  # tables made before chat incarnations lack the column
                f"ALTER TABLE {t} ADD COLUMN IF NOT EXISTS incarnation text NOT NULL DEFAULT ''"
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS {t}_scope ON {t}"
                " (tenant, chat_id, namespace, sequence)"
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS {t}_terms ON {t} USING gin (sparse_indices)"
            )
        return model_id, dimension

    async def _adopt_former_names(self, conn: Any) -> None:
        """Keep a database of the former name: its meta table renamed, its default table used."""
        regclass = "SELECT to_regclass($1)"
        if await conn.fetchval(regclass, META_TABLE) is None and (
            await conn.fetchval(regclass, FORMER_META_TABLE) is not None
        ):
            legacy.warn_former(f"the table {FORMER_META_TABLE}", f"it is renamed {META_TABLE}")
            await conn.execute(f"ALTER TABLE {FORMER_META_TABLE} RENAME TO {META_TABLE}")
        if (
            self.table == DEFAULT_COLLECTION
            and await conn.fetchval(regclass, DEFAULT_COLLECTION) is None
            and await conn.fetchval(regclass, FORMER_COLLECTION) is not None
        ):
            legacy.warn_former(
                f"the table {FORMER_COLLECTION}", "set vectors.collection to keep it"
            )
            self.table = FORMER_COLLECTION

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id."""
        if not points:
            return
        pool = self._require()
        rows = [_row(p) for p in points]
        sql = (
            f'INSERT INTO {self.table} (id, namespace, tenant, "user", chat_id, sequence,'
            " embedding, sparse_indices, sparse_values, payload, incarnation)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7::vector, $8, $9, $10, $11)"
            " ON CONFLICT (id) DO UPDATE SET namespace = EXCLUDED.namespace,"
            ' tenant = EXCLUDED.tenant, "user" = EXCLUDED."user", chat_id = EXCLUDED.chat_id,'
            " incarnation = EXCLUDED.incarnation,"
            " sequence = EXCLUDED.sequence, embedding = EXCLUDED.embedding,"
            " sparse_indices = EXCLUDED.sparse_indices, sparse_values = EXCLUDED.sparse_values,"
            " payload = EXCLUDED.payload"
        )
        await self._guard("upsert", lambda: pool.executemany(sql, rows))

    async def _search_dense(
        self, scope: RecallScope, vector: list[float], limit: int
    ) -> list[ScoredPoint]:
        pool = self._require()
        where, args = _where(scope)
        n, typed = len(args), f"vector({self._dimension})"
        sql = (
            f"SELECT id, payload, 1 - (embedding <=> ${n + 1}::{typed}) AS score"
            f" FROM {self.table} WHERE {where} ORDER BY embedding <=> ${n + 1}::{typed}"
            f" LIMIT ${n + 2}"
        )
        rows = await self._guard("search", lambda: pool.fetch(sql, *args, _vec(vector), limit))
        return [scored(r["score"], r["payload"], r["id"]) for r in rows]

    async def _search_sparse(
        self, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        """Sparse BM25 dot over the scope's points that share a term with the query."""
        pool = self._require()
        return await self._guard("search", lambda: self._sparse(pool, scope, query, limit))

    async def _sparse(
        self, pool: Any, scope: RecallScope, query: SparseVector, limit: int
    ) -> list[ScoredPoint]:
        where, args = _where(scope)
        n = len(args)
        terms = list(query.indices)
        async with pool.acquire() as conn:
            total = await conn.fetchval(
                f"SELECT count(*) FROM {self.table} WHERE {where} AND sparse_indices IS NOT NULL",
                *args,
            )
            rows = await conn.fetch(
                f"SELECT id, payload, sparse_indices, sparse_values FROM {self.table}"
                f" WHERE {where} AND sparse_indices && ${n + 1}::integer[]",
                *args,
                terms,
            )
        return _rank_sparse(query, rows, int(total), limit)

    async def _fetch(self, scope: RecallScope, wanted: list[int]) -> list[ScoredPoint]:
        pool = self._require()
        where, args = _where(scope)
        sql = (
            f"SELECT id, payload FROM {self.table} WHERE {where}"
            f" AND sequence = ANY(${len(args) + 1}::bigint[])"
        )
        rows = await self._guard("fetch", lambda: pool.fetch(sql, *args, wanted))
        return [scored(0.0, r["payload"], r["id"]) for r in rows]

    async def delete(self, scope: RecallScope) -> None:
        """Delete every point of the scope's chat."""
        pool = self._require()
        where, args = _where(scope)
        sql = f"DELETE FROM {self.table} WHERE {where}"
        await self._guard("delete", lambda: pool.execute(sql, *args))

    async def close(self) -> None:
        """Close the connection pool (idempotent)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await self._guard("close", pool.close)

    def _require(self) -> Any:
        if self._pool is None:
            raise VectorStoreError(f"{self!r} is not set up: await setup() first")
        return self._pool

    async def _guard(self, operation: str, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await call()
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise VectorStoreError(
                f"pgvector {operation} on table {self.table!r} failed: {exc}"
            ) from exc


async def _init_connection(conn: Any) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


def _vec(vector: Sequence[float] | None) -> str:
    return "[" + ",".join(repr(x) for x in floats(vector)) + "]"


def _row(point: VectorPoint) -> tuple[Any, ...]:
    payload = point.payload
    sparse = point.sparse
    return (
        point.id,
        str(payload["namespace"]),
        str(payload["tenant"]),
        None if payload.get("user") is None else str(payload["user"]),
        str(payload["chat_id"]),
        None if payload.get("sequence") is None else int(payload["sequence"]),
        _vec(point.vector),
        list(sparse.indices) if sparse else None,
        list(sparse.values) if sparse else None,
        stored_payload(point.id, payload),
        str(payload.get("incarnation") or ""),
    )


def _where(scope: RecallScope) -> tuple[str, list[str]]:
    fields = scope_conditions(scope)
    columns = [f'"{key}" = ${i}' for i, key in enumerate(fields, start=1)]
    return " AND ".join(columns), list(fields.values())


def _rank_sparse(query: SparseVector, rows: list[Any], total: int, limit: int) -> list[ScoredPoint]:
    weights = dict(zip(query.indices, query.values, strict=True))
    docs = [dict(zip(r["sparse_indices"], r["sparse_values"], strict=True)) for r in rows]
    idf = {}
    for term in weights:
        n_t = sum(1 for d in docs if term in d)
        idf[term] = math.log(1.0 + (total - n_t + 0.5) / (n_t + 0.5))
    scores = [sum(w * idf[t] * d[t] for t, w in weights.items() if t in d) for d in docs]
    ranked = sorted(zip(scores, rows, strict=True), key=lambda pair: -pair[0])[:limit]
    return [scored(score, row["payload"], row["id"]) for score, row in ranked]
