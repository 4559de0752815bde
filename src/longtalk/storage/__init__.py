"""Chat storage: its seams, an in-memory store, SQLite and PostgreSQL.

The seams are ``ChatStore`` (chats), ``MessageStore`` (messages and turns),
``SummaryStore`` (summary rows) and ``IndexOutbox`` (the recall index's watermarks), each of
at most five required methods; ``ChatStorage`` is all four with a lifecycle.

``resolve_storage`` / ``from_url`` pick a backend. ``SqliteStorage`` and ``PostgresStorage``
are imported from their modules (``longtalk.storage.sqlite`` / ``.postgres``) or lazily
from here; so are ``from_url`` and ``resolve_storage``, so that the records and protocols
load without SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from longtalk.core.lazy import lazy_loader
from longtalk.storage.base import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    ChatStorage,
    ChatStore,
    CommitResult,
    IndexOutbox,
    MessageStore,
    NewMessages,
    RecordUpdate,
    StorageBase,
    StoredMessage,
    SummaryFormat,
    SummaryPatch,
    SummaryRow,
    SummaryStore,
    SummaryUpdate,
    TurnCommit,
)
from longtalk.storage.config import StorageConfig, default_sqlite_path
from longtalk.storage.in_memory import InMemoryStorage

if TYPE_CHECKING:
    from longtalk.storage.postgres import PostgresStorage
    from longtalk.storage.resolve import from_url, resolve_storage
    from longtalk.storage.sqlite import SqliteStorage

__all__ = [
    "DEFAULT_SMART_LOAD_TAIL",
    "ChatRecord",
    "ChatState",
    "ChatStorage",
    "ChatStore",
    "CommitResult",
    "InMemoryStorage",
    "IndexOutbox",
    "MessageStore",
    "NewMessages",
    "PostgresStorage",
    "RecordUpdate",
    "SqliteStorage",
    "StorageBase",
    "StorageConfig",
    "StoredMessage",
    "SummaryFormat",
    "SummaryPatch",
    "SummaryRow",
    "SummaryStore",
    "SummaryUpdate",
    "TurnCommit",
    "default_sqlite_path",
    "from_url",
    "resolve_storage",
]

_LAZY = {
    "SqliteStorage": "longtalk.storage.sqlite",
    "PostgresStorage": "longtalk.storage.postgres",
    "from_url": "longtalk.storage.resolve",
    "resolve_storage": "longtalk.storage.resolve",
}
"""Loaded on first use: the backends and the resolver need the database drivers."""


__getattr__ = lazy_loader(__name__, _LAZY)
