"""PostgreSQL chat storage (the ``postgres`` extra: asyncpg).

Reads run in ``REPEATABLE READ`` transactions so a smart load sees one snapshot; writes lock
the chat row with ``SELECT ... FOR UPDATE``; migrations hold a transaction-scoped advisory
lock so that two processes starting on an empty database do not both create the schema.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import URL, Connection, make_url, text
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from longtalk.errors import ConfigError, MissingExtraError
from longtalk.storage.base import DEFAULT_SMART_LOAD_TAIL
from longtalk.storage.config import DEFAULT_CONNECT_TIMEOUT_SECONDS
from longtalk.storage.pg_pool import ping_when_idle
from longtalk.storage.sql import AsyncEngineStorage

# pg_advisory_xact_lock key: the bytes of "memstrat" as a signed 64-bit integer.
_SCHEMA_LOCK_KEY = int.from_bytes(b"memstrat", "big", signed=True)
_SCHEMES = ("postgresql", "postgres", "postgresql+asyncpg")


def postgres_url(dsn: str) -> URL:
    """The SQLAlchemy URL (asyncpg driver) for a ``postgresql://`` or ``postgres://`` DSN."""
    try:
        url = make_url(dsn)
    except ArgumentError as exc:
        raise ConfigError(f"not a PostgreSQL DSN: {exc}", path="storage.postgres_dsn") from exc
    if url.drivername not in _SCHEMES:
        raise ConfigError(
            f"a PostgreSQL DSN starts with postgresql://, got {url.drivername}://",
            path="storage.postgres_dsn",
        )
    return url.set(drivername="postgresql+asyncpg")


class PostgresStorage(AsyncEngineStorage):
    """``ChatStorage`` on a PostgreSQL server, given a DSN."""

    backend_name = "PostgreSQL"
    unavailable_hint = (
        "check that the server is running and that the DSN "
        "(storage.url or LONGTALK_STORAGE__URL) is right"
    )
    read_options = {"isolation_level": "REPEATABLE READ"}

    def __init__(
        self,
        dsn: str,
        *,
        pool_size: int = 5,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_SECONDS,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        try:
            import asyncpg  # noqa: F401
        except ImportError as exc:  # pragma: no cover - installed with the dev extra
            raise MissingExtraError("asyncpg", "postgres") from exc
        url = postgres_url(dsn)
        connect_args: dict[str, Any] = {"timeout": connect_timeout}
        engine = create_async_engine(
            url, pool_size=pool_size, pool_use_lifo=True, connect_args=connect_args
        )
        ping_when_idle(engine)
        location = url.set(drivername="postgresql").render_as_string(hide_password=True)
        super().__init__(engine, location=location, smart_load_tail=smart_load_tail)

    @asynccontextmanager
    async def job_transaction(self, operation: str) -> AsyncIterator[AsyncConnection]:
        """One short transaction for the job queue (``pg_jobs``); errors as ``StorageError``."""
        await self.setup()
        async with self.async_transaction(operation, write=True) as (conn, _):
            yield conn

    def _lock_schema(self, conn: Connection) -> None:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK_KEY})
