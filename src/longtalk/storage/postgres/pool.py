"""Pooled PostgreSQL connections are checked cheaply at checkout, pinged only after idling.

SQLAlchemy's ``pool_pre_ping`` pings at every checkout, and on asyncpg a ping is three round
trips (``BEGIN``, an empty query, ``ROLLBACK``): with one short statement per storage call
that would double the round trips. Connections die while they sit in the pool (a database
restart, an idle timeout of the server or of a proxy), not while they are in use; and a
connection the server or a proxy closed is known closed to the driver at once. So every
checkout asks the driver whether the connection is closed (no round trip), and only a
connection idle for ``after_seconds`` or more is pinged before use, with one empty query;
a dead one is replaced at once (the pool retries the checkout with a new connection). A
connection that breaks in use is still caught as before: the error invalidates the whole
pool, so the connections opened before a restart are all replaced.
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
    """Check ``engine``'s pooled connections at checkout; ping those idle ``after_seconds``."""
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
        if _closed(dbapi_connection):
            raise DisconnectionError("a pooled connection was closed by the server")
        if returned_at is None or time.monotonic() - returned_at < after_seconds:
            return  # new, or in use a moment ago
        try:
            _ping(dialect, dbapi_connection)
        except Exception as exc:  # noqa: BLE001 - whatever the driver says, it is dead
            raise DisconnectionError(f"a pooled connection is dead: {exc}") from exc


def _closed(dbapi_connection: Any) -> bool:
    """True when the driver knows the connection is closed (no round trip)."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    is_closed = getattr(driver, "is_closed", None)
    return bool(is_closed()) if callable(is_closed) else False


def _ping(dialect: Any, dbapi_connection: Any) -> None:
    """One empty query, outside a transaction (the driver's ping wraps it in one)."""
    autocommit = getattr(dbapi_connection, "autocommit", None)
    if autocommit is None:
        dialect.do_ping(dbapi_connection)
        return
    dbapi_connection.autocommit = True
    try:
        dialect.do_ping(dbapi_connection)
    finally:
        dbapi_connection.autocommit = autocommit
