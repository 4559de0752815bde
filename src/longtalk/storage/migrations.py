"""Schema migrations: an ordered list, each applied in its own transaction and recorded.

``longtalk_schema`` holds one row per applied migration. A database whose newest recorded
version is above ``LATEST_VERSION`` was written by a newer longtalk: this code refuses to
touch it (``SchemaVersionError``) rather than guess.

Migration 1 builds the tables from ``schema``. Before the first change to ``schema``, copy
the version-1 table definitions into migration 1 so that it stays what it was, and add
migration 2 with the change (``tests/storage/test_migrations.py`` checks that migrating an
empty database yields exactly ``schema``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, func, inspect, select, text

from longtalk import legacy
from longtalk.errors import SchemaVersionError
from longtalk.storage import schema


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: ``upgrade`` runs inside the migration's transaction."""

    version: int
    name: str
    upgrade: Callable[[Connection], None]


def _initial(connection: Connection) -> None:
    tables = [schema.chats, schema.messages, schema.conversation_summaries]
    schema.metadata.create_all(connection, tables=tables)
    _digests(connection)
    _index_watermark(connection)


def _add_column(connection: Connection, table: str, column: str, definition: str) -> None:
    """``ALTER TABLE table ADD COLUMN column definition`` unless the table has it already.

    The initial migration creates the tables from today's schema, columns included.
    """
    columns = {found["name"] for found in inspect(connection).get_columns(table)}
    if column not in columns:
        connection.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {definition}"))


def _digests(connection: Connection) -> None:
    """Summary rows get a kind (row | digest | archived): consolidation keeps rows."""
    _add_column(connection, "conversation_summaries", "kind", "VARCHAR(8) NOT NULL DEFAULT 'row'")


def _index_watermark(connection: Connection) -> None:
    """Chats get ``indexed_sequence``: the recall index's durable outbox watermark.

    Existing chats start at 0: the indexer checks every stored turn once (turns already in
    the vector store are recognised and not embedded again).
    """
    _add_column(connection, "chats", "indexed_sequence", "INTEGER NOT NULL DEFAULT 0")


def _message_ids(connection: Connection) -> None:
    """A message id names one message of a chat: unique, so a retried append is recognised.

    A database that already holds a repeated id gets a plain index instead (appends still
    check ids under the chat's lock).
    """
    repeated = connection.execute(
        text(
            "SELECT 1 FROM messages WHERE message_id IS NOT NULL "
            "GROUP BY chat_id, message_id HAVING COUNT(*) > 1 LIMIT 1"
        )
    ).first()
    kind = "INDEX" if repeated else "UNIQUE INDEX"
    connection.execute(
        text(
            f"CREATE {kind} IF NOT EXISTS uq_messages_chat_message_id "
            "ON messages (chat_id, message_id)"
        )
    )


def _user_memory(connection: Connection) -> None:
    """Facts, preferences and profile lines per user, with the chat they came from."""
    schema.user_memory.create(connection, checkfirst=True)


def _jobs(connection: Connection) -> None:
    """The job table: background work per chat, leased by one worker across replicas."""
    schema.jobs.create(connection, checkfirst=True)


def _incarnations(connection: Connection) -> None:
    """Chats get an ``incarnation``: work planned for a deleted chat never lands in a new one.

    Chats created before it keep the empty incarnation; every new chat gets a random one, so
    a re-created id never matches an old chat's jobs, streams, vectors or commits.
    """
    _add_column(connection, "chats", "incarnation", "VARCHAR(32) NOT NULL DEFAULT ''")


def _index_leases(connection: Connection) -> None:
    """Chats get an indexing lease (PostgreSQL replicas): one replica indexes a chat at a time.

    ``index_lease_owner`` names the replica indexing the chat until ``index_lease_until``;
    an expired lease (a killed replica) is claimed by another. Single nodes leave both empty.
    """
    _add_column(connection, "chats", "index_lease_owner", "VARCHAR(64)")
    timestamp = "DATETIME" if connection.dialect.name == "sqlite" else "TIMESTAMP WITH TIME ZONE"
    _add_column(connection, "chats", "index_lease_until", timestamp)


def _former_jobs_table(connection: Connection) -> None:
    """The job table of the former name (``longtalk.legacy``) becomes ``longtalk_jobs``."""
    former = f"{legacy.FORMER_NAME}_jobs"
    tables = inspect(connection)
    if tables.has_table(former) and not tables.has_table(schema.jobs.name):
        connection.execute(text(f"ALTER TABLE {former} RENAME TO {schema.jobs.name}"))


def _backlog_index(connection: Connection) -> None:
    """A partial index of the chats whose recall index lags, oldest first.

    The indexer's backlog query and the replicas' indexing claim read it instead of
    scanning every chat; it holds only the lagging chats, so it stays small.
    """
    connection.execute(
        text(
            "CREATE INDEX IF NOT EXISTS ix_chats_index_backlog ON chats (updated_at, id) "
            f"WHERE {schema.BACKLOG}"
        )
    )


def _summary_bookkeeping(connection: Connection) -> None:
    """Chats get who set their title, their summary cost and backoff, durable facts, length.

    A title an existing chat already has is taken to be the user's: it is never replaced
    by a generated one (a generated title then stays as it is).
    """
    timestamp = "DATETIME" if connection.dialect.name == "sqlite" else "TIMESTAMP WITH TIME ZONE"
    for column, definition in (
        ("title_source", "VARCHAR(16)"),
        ("summary_calls", "INTEGER NOT NULL DEFAULT 0"),
        ("summary_input_tokens", "BIGINT NOT NULL DEFAULT 0"),
        ("summary_output_tokens", "BIGINT NOT NULL DEFAULT 0"),
        ("summary_failures", "INTEGER NOT NULL DEFAULT 0"),
        ("failure_kinds", "JSON"),
        ("last_error", "TEXT"),
        ("retry_at", timestamp),
        ("retry_volume", "BIGINT NOT NULL DEFAULT 0"),
        ("facts", "JSON"),
        ("content_chars", "BIGINT NOT NULL DEFAULT 0"),
    ):
        _add_column(connection, "chats", column, definition)
    connection.execute(
        text(
            "UPDATE chats SET content_chars = (SELECT COALESCE(SUM(LENGTH(content)), 0) "
            "FROM messages WHERE messages.chat_id = chats.id)"
        )
    )
    connection.execute(text("UPDATE chats SET title_source = 'user' WHERE title IS NOT NULL"))


def _forget_requests(connection: Connection) -> None:
    """Pending forgets: messages deleted whose derived data is still to be rewritten."""
    schema.forget_requests.create(connection, checkfirst=True)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "chats, messages, summary chains", _initial),
    Migration(2, "summary row kinds: row, digest, archived", _digests),
    Migration(3, "the recall index watermark of each chat", _index_watermark),
    Migration(4, "message ids unique per chat (idempotent appends)", _message_ids),
    Migration(5, "chat incarnations (a re-created chat id is another chat)", _incarnations),
    Migration(7, "background jobs leased per chat (several replicas)", _jobs),
    Migration(8, "user memory across chats: facts, preferences, profile", _user_memory),
    Migration(9, "indexing leases per chat (several replicas)", _index_leases),
    Migration(10, "a partial index of the chats whose recall index lags", _backlog_index),
    Migration(11, "the job table under the project's name", _former_jobs_table),
    Migration(12, "title source, summary cost and backoff, durable facts", _summary_bookkeeping),
    Migration(13, "pending forgets of single messages", _forget_requests),
)
LATEST_VERSION = MIGRATIONS[-1].version


def current_version(connection: Connection) -> int:
    """The newest applied migration; 0 for an empty database. Creates the version table.

    A database of the former name keeps its history: its ``<former name>_schema`` is renamed.
    """
    _adopt_former_versions(connection)
    if not inspect(connection).has_table(schema.schema_versions.name):
        schema.schema_versions.create(connection)
        return 0
    version = connection.scalar(select(func.max(schema.schema_versions.c.version)))
    return int(version or 0)


def _adopt_former_versions(connection: Connection) -> None:
    """Rename the former name's version table, so its migrations count as applied."""
    former, current = f"{legacy.FORMER_NAME}_schema", schema.schema_versions.name
    tables = inspect(connection)
    if tables.has_table(former) and not tables.has_table(current):
        legacy.warn_former(f"the table {former}", f"it is renamed {current}")
        connection.execute(text(f"ALTER TABLE {former} RENAME TO {current}"))


def check_version(version: int, *, where: str) -> None:
    """Refuse a database newer than this code."""
    if version > LATEST_VERSION:
        raise SchemaVersionError(
            f"{where} has schema version {version}, but this longtalk only knows versions "
            f"up to {LATEST_VERSION}: upgrade longtalk, or point it at another database"
        )


def apply_next(connection: Connection, *, where: str) -> Migration | None:
    """Apply the first pending migration and record it; None when none is pending.

    The caller holds the schema lock for the transaction, so concurrent first uses of an
    empty database apply each migration exactly once.
    """
    version = current_version(connection)
    check_version(version, where=where)
    pending = [m for m in MIGRATIONS if m.version > version]
    if not pending:
        return None
    migration = pending[0]
    migration.upgrade(connection)
    connection.execute(
        schema.schema_versions.insert().values(
            version=migration.version, name=migration.name, applied_at=datetime.now(UTC)
        )
    )
    return migration
