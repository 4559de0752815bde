"""The relational schema, as SQLAlchemy Core tables shared by SQLite and PostgreSQL.

::

    chats                    one row per chat, with the summary bookkeeping
    messages                 (chat_id, sequence) primary key; sequence is 1-based, never reused
    conversation_summaries   a chat's chain of summary rows, (chat_id, sequence) unique
    longtalk_schema         applied migrations (see ``migrations``)
    longtalk_jobs           background work per chat, leased by one worker at a time
    user_memory              facts, preferences and profile lines kept per (tenant, user)
    forget_requests          messages deleted whose derived data is still to be rewritten

Deleting a chat cascades to its messages and summary rows. A chat's ``incarnation`` (random,
set at creation) tells a chat from an earlier one that had the same id and was deleted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite keeps no zone of its own)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Store UTC; a naive value is taken to be UTC already."""
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Always an aware UTC datetime."""
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class IsoDateTime(TypeDecorator[datetime]):
    """A caller's datetime as ISO-8601 text: naive stays naive, an offset is kept as given."""

    impl = String(40)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> str | None:
        """ISO-8601 text, microseconds included."""
        return None if value is None else value.isoformat()

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """The datetime exactly as it was stored."""
        return None if value is None else datetime.fromisoformat(value)


# SQLite only gives AUTOINCREMENT-free rowid aliases to INTEGER PRIMARY KEY columns.
_ID = BigInteger().with_variant(Integer(), "sqlite")

BACKLOG = "message_count > indexed_sequence"
"""The chats whose recall index lags their messages (a partial index holds just those)."""

metadata = MetaData()

chats = Table(
    "chats",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("user_id", String(128)),
    Column("title", Text),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("message_count", Integer, nullable=False),
    Column("last_summarized_sequence", Integer, nullable=False),
    Column("summary_version", Integer, nullable=False),
    Column("indexed_sequence", Integer, nullable=False, server_default="0"),
    Column("incarnation", String(32), nullable=False, server_default=""),
    Column("index_lease_owner", String(64)),
    Column("index_lease_until", UTCDateTime),
    Column("title_source", String(16)),
    Column("summary_calls", Integer, nullable=False, server_default="0"),
    Column("summary_input_tokens", BigInteger, nullable=False, server_default="0"),
    Column("summary_output_tokens", BigInteger, nullable=False, server_default="0"),
    Column("summary_failures", Integer, nullable=False, server_default="0"),
    Column("failure_kinds", JSON),
    Column("last_error", Text),
    Column("retry_at", UTCDateTime),
    Column("retry_volume", BigInteger, nullable=False, server_default="0"),
    Column("facts", JSON),
    Column("content_chars", BigInteger, nullable=False, server_default="0"),
    Index("ix_chats_tenant_updated", "tenant", "updated_at"),
    Index(
        "ix_chats_index_backlog",
        "updated_at",
        "id",
        sqlite_where=text(BACKLOG),
        postgresql_where=text(BACKLOG),
    ),
)

messages = Table(
    "messages",
    metadata,
    Column("chat_id", ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True),
    Column("sequence", Integer, primary_key=True),
    Column("message_id", String(128)),
    Column("role", String(16), nullable=False),
    Column("content", Text, nullable=False),
    Column("name", String(256)),
    Column("type", String(16), nullable=False),
    Column("tool_call_ids", JSON, nullable=False),
    Column("timestamp", IsoDateTime),
    Column("metadata", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

conversation_summaries = Table(
    "conversation_summaries",
    metadata,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("chat_id", ForeignKey("chats.id", ondelete="CASCADE"), nullable=False),
    Column("sequence", Integer, nullable=False),
    Column("summary_text", Text, nullable=False),
    Column("format", String(8), nullable=False),
    Column("episode_first", Integer, nullable=False),
    Column("episode_last", Integer, nullable=False),
    Column("turn_number", Integer, nullable=False),
    Column("token_count", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("kind", String(8), nullable=False, server_default="row"),
    UniqueConstraint("chat_id", "sequence", name="uq_summaries_chat_sequence"),
    CheckConstraint("format IN ('text', 'json')", name="ck_summaries_format"),
)

schema_versions = Table(
    "longtalk_schema",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("applied_at", UTCDateTime, nullable=False),
)

jobs = Table(
    "longtalk_jobs",
    metadata,
    Column("kind", String(16), primary_key=True),
    Column("chat_id", ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("generation", Integer, nullable=False, server_default="0"),
    Column("due_at", UTCDateTime, nullable=False),
    Column("lease_owner", String(64)),
    Column("lease_until", UTCDateTime),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("last_error", Text),
    Index("ix_jobs_kind_due", "kind", "due_at"),
)
"""Pending background work (PostgreSQL replicas): one row per (kind, chat).

``generation`` grows with every request for the work, so a worker that finishes generation
g keeps the row when a newer request came in meanwhile. ``lease_owner`` / ``lease_until``
name the worker that holds the chat; an expired lease (a killed replica) is claimed again.
"""

user_memory = Table(
    "user_memory",
    metadata,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("tenant", String(128), nullable=False),
    Column("user_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("origin", String(16), nullable=False),
    Column("chat_id", ForeignKey("chats.id", ondelete="CASCADE")),
    Column("episode_first", Integer, nullable=False, server_default="0"),
    Column("episode_last", Integer, nullable=False, server_default="0"),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_user_memory_user", "tenant", "user_id"),
    CheckConstraint("kind IN ('fact', 'preference', 'profile')", name="ck_user_memory_kind"),
)
"""What longtalk keeps about a user across chats (migration 8).

``origin`` is ``derived`` (taken from a chat's summary; replaced whenever that summary
changes) or ``given`` (stored by the application). ``chat_id`` and the range of message
sequences it was taken from (``episode_first``/``episode_last`` hold the first and last
message sequence, not episode numbers) are the provenance; deleting the chat deletes what
was taken from it.
"""

forget_requests = Table(
    "forget_requests",
    metadata,
    Column("chat_id", ForeignKey("chats.id", ondelete="CASCADE"), primary_key=True),
    Column("sequences", JSON, nullable=False),
    Column("requested_at", UTCDateTime, nullable=False),
)
"""A chat's pending forget (migration 13): its messages are deleted, the summary rows, facts
and title derived from them not yet rewritten. One row per chat; a later request merges its
sequences in. The rewrite's transaction deletes the row."""
