"""Pooled PostgreSQL connections are checked when they sat idle, not at every checkout.

SQLAlchemy's ``pool_pre_ping`` pings at every checkout, and on asyncpg a ping is three round
trips (``BEGIN``, an empty query, ``ROLLBACK``): with one short transaction per storage call
that was about a quarter of all statements. Connections die while they sit in the pool (a
database restart, an idle timeout of the server or of a proxy), not while they are in use:
so only a connection idle for ``after_seconds`` or more is pinged before use, and a dead one
is replaced at once (the pool retries the checkout with a new connection). A connection
that breaks in use is still caught as before: the error invalidates the whole pool, so the
connections opened before a restart are all replaced.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

IDLE_PING_SECONDS = 2.0
"""A pooled connection unused for this long is pinged before its next use."""
_RETURNED = "longtalk_returned_at"


def ping_when_idle(engine: AsyncEngine, *, after_seconds: float = IDLE_PING_SECONDS) -> None:
    """Ping ``engine``'s pooled connections before use when idle ``after_seconds`` or more."""
    pool = engine.sync_engine.pool
    dialect = engine.sync_engine.dialect

    @event.listens_for(pool, "checkin")
    def returned(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def taken(
        dbapi_connection: Any, record: ConnectionPoolEntry, proxy: PoolProxiedConnection
    ) -> None:
        returned_at = record.info.pop(_RETURNED, None)
        if returned_at is None or time.monotonic() - returned_at < after_seconds:
            return  # new, or in use a moment ago
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as exc:  # noqa: BLE001 - whatever the driver says, it is dead
            raise DisconnectionError(f"a pooled connection is dead: {exc}") from exc
