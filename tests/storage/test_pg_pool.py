"""PostgreSQL's pool pings a connection only after it sat idle, and replaces a closed one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.pool import IDLE_PING_SECONDS

PID = text("SELECT pg_backend_pid()")


async def backend_pid(storage: PostgresStorage) -> int:
    return int(await storage.transaction(lambda conn: conn.scalar(PID)))


async def test_busy_connections_skip_the_ping_idle_ones_are_checked_and_replaced(
    make_backend,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = await make_backend("postgres")
    storage, admin = backend.open(), backend.open()
    assert isinstance(storage, PostgresStorage) and isinstance(admin, PostgresStorage)
    dialect = storage.engine.sync_engine.dialect
    pings: list[Any] = []
    ping = dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        return bool(ping(dbapi_connection))

    monkeypatch.setattr(dialect, "do_ping", counted)
    chat = await storage.create_chat()
    first = await backend_pid(storage)
    for _ in range(20):  # one request after another reuses the same, busy connection
        assert await storage.get_chat(chat.id) is not None
    assert await backend_pid(storage) == first and pings == []

    await asyncio.sleep(IDLE_PING_SECONDS + 0.2)  # idle now: the next use pings it first
    assert await storage.get_chat(chat.id) is not None
    assert len(pings) == 1 and await backend_pid(storage) == first  # alive: kept

    kill = text("SELECT pg_terminate_backend(:pid)").bindparams(pid=first)
    assert await admin.transaction(lambda conn: conn.scalar(kill))
    await asyncio.sleep(0.2)  # the server's goodbye reaches the idle connection
    found = await storage.get_chat(chat.id)  # the dead connection is replaced, not an error
    assert found is not None and found.id == chat.id
    assert len(pings) == 1 and await backend_pid(storage) != first  # known dead: no ping
