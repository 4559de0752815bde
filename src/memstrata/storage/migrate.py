"""Schema migrations as an explicit step: ``memstrata migrate`` and ``serve --no-migrate``.

``SqlStorage.setup()`` migrates on first use, each migration in its own transaction under
the schema lock (a PostgreSQL advisory lock), so processes starting together never race on
DDL. A deployment with several replicas runs the migrations once, as a step of its own
(:func:`migrate`), and starts the replicas with :func:`require_current`, which refuses a
database that still needs migrations instead of changing the schema under running peers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, func, inspect, select

from memstrata.errors import SchemaVersionError, UsageError
from memstrata.storage import schema
from memstrata.storage.base import ChatStorage
from memstrata.storage.migrations import LATEST_VERSION, MIGRATIONS, check_version
from memstrata.storage.sql import SqlStorage


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """A database's schema: the newest applied version and the migrations still pending."""

    location: str
    version: int
    pending: tuple[int, ...]


def _version(connection: Connection) -> int:
    """The newest applied migration (0 for an empty database); changes nothing."""
    if not inspect(connection).has_table(schema.schema_versions.name):
        return 0
    found = connection.scalar(select(func.max(schema.schema_versions.c.version)))
    return int(found or 0)


def _sql(storage: ChatStorage) -> SqlStorage:
    if not isinstance(storage, SqlStorage):
        raise UsageError(
            f"{type(storage).__name__} keeps no schema: migrations apply to SQLite and "
            "PostgreSQL storage (storage.url)"
        )
    return storage


async def status(storage: ChatStorage) -> SchemaStatus:
    """Where the database's schema stands (read only)."""
    sql = _sql(storage)
    version = await sql._execute(
        "reading the schema version", lambda conn, _: _version(conn), write=False
    )
    check_version(version, where=sql.location)
    pending = tuple(m.version for m in MIGRATIONS if m.version > version)
    return SchemaStatus(sql.location, version, pending)


async def migrate(storage: ChatStorage) -> tuple[SchemaStatus, SchemaStatus]:
    """Apply every pending migration once (under the schema lock); status before and after."""
    before = await status(storage)
    await _sql(storage).setup()
    return before, await status(storage)


async def require_current(storage: ChatStorage) -> None:
    """Refuse a database whose schema still needs migrations (``serve --no-migrate``)."""
    if not isinstance(storage, SqlStorage):
        return
    found = await status(storage)
    if found.pending:
        raise SchemaVersionError(
            f"{found.location} has schema version {found.version}; this memstrata needs "
            f"{LATEST_VERSION} (pending: {', '.join(map(str, found.pending))}): run "
            "`memstrata migrate` once, then start the service"
        )
