"""Schema migrations as an explicit step: ``longtalk migrate`` and ``serve --no-migrate``.

``SqlStorage.setup()`` migrates on first use, each migration in its own transaction under
the schema lock (a PostgreSQL advisory lock), so processes starting together never race on
DDL. A deployment with several replicas runs the migrations once, as a step of its own
(:func:`migrate`), and starts the replicas with :func:`require_current`, which refuses a
database that still needs migrations instead of changing the schema under running peers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, inspect, text

from longtalk import legacy
from longtalk.errors import SchemaVersionError, UsageError
from longtalk.storage import schema
from longtalk.storage.base import ChatStorage
from longtalk.storage.migrations import LATEST_VERSION, MIGRATIONS, check_version
from longtalk.storage.sql import SqlStorage


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """A database's schema: the newest applied version and the migrations still pending."""

    location: str
    version: int
    pending: tuple[int, ...]


def _version(connection: Connection) -> int:
    """The newest applied migration (0 for an empty database); changes nothing.

    A database of the former name (``longtalk.legacy``) records its migrations in its own
    ``<former name>_schema`` table.
    """
    tables = inspect(connection)
    for name in (schema.schema_versions.name, f"{legacy.FORMER_NAME}_schema"):
        if tables.has_table(name):
            found = connection.scalar(text(f"SELECT max(version) FROM {name}"))
            return int(found or 0)
    return 0


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
    version = await sql._run(
        "reading the schema version", lambda conn, _: _version(conn), write=False, setup=True
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
            f"{found.location} has schema version {found.version}; this longtalk needs "
            f"{LATEST_VERSION} (pending: {', '.join(map(str, found.pending))}): run "
            "`longtalk migrate` once, then start the service"
        )
