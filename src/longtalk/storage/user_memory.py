"""What longtalk keeps about a user across chats: facts, preferences, profile lines.

Each item carries its provenance: the chat and the messages (first and last sequence) it
was taken from (``derived`` items, replaced whenever that chat's summary changes), or none when the
application stored it (``given``). Deleting a chat deletes what was taken from it.

``user_memory_for(storage)`` gives the store beside a chat storage: the ``user_memory``
table of a SQL database (migration 8), or a process-local store for in-memory storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Connection, delete

from longtalk.errors import UsageError
from longtalk.storage import schema
from longtalk.storage.base import ChatStorage
from longtalk.storage.records import Origin, UserFact, UserFactKind
from longtalk.storage.user_memory_rows import insert_items, select_items, with_id

__all__ = [
    "KINDS",
    "InMemoryUserMemory",
    "Origin",
    "SqlUserMemory",
    "UserFact",
    "UserFactKind",
    "UserMemoryStore",
    "check_kind",
    "kept_with",
    "user_memory_for",
]

KINDS: tuple[UserFactKind, ...] = ("profile", "preference", "fact")


class UserMemoryStore(Protocol):
    """Per-user items kept across chats."""

    async def items(self, tenant: str, user: str) -> list[UserFact]:
        """The user's items, oldest first."""
        ...

    async def add(self, tenant: str, user: str, facts: Sequence[UserFact]) -> list[UserFact]:
        """Store items; returns them with their ids."""
        ...

    async def replace_derived(
        self, tenant: str, user: str, chat_id: str, facts: Sequence[UserFact]
    ) -> None:
        """Replace what was taken from ``chat_id`` by ``facts`` (one transaction)."""
        ...

    async def forget(
        self,
        tenant: str,
        user: str,
        *,
        ids: Sequence[int] | None = None,
        chat_id: str | None = None,
    ) -> int:
        """Delete the user's items (only ``ids``, or only those from ``chat_id``); how many."""
        ...


def given_fact(text: str, kind: str = "fact") -> UserFact:
    """What the application asks to keep about a user, checked: a known kind, some text."""
    checked = check_kind(kind)
    if not text.strip():
        raise UsageError("nothing to remember: the text is empty")
    return UserFact(checked, text.strip())


def check_kind(kind: str) -> UserFactKind:
    """``kind`` when it is one of fact, preference, profile; else a ``UsageError``."""
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}: use fact, preference or profile")
    return kind


class InMemoryUserMemory:
    """User memory kept in this process."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], list[UserFact]] = {}
        self._next_id = 1

    async def items(self, tenant: str, user: str) -> list[UserFact]:
        """The user's items, oldest first."""
        return list(self._items.get((tenant, user), []))

    async def add(self, tenant: str, user: str, facts: Sequence[UserFact]) -> list[UserFact]:
        """Store items; returns them with their ids."""
        stored = []
        for fact in facts:
            check_kind(fact.kind)
            stored.append(with_id(fact, self._next_id))
            self._next_id += 1
        self._items.setdefault((tenant, user), []).extend(stored)
        return stored

    async def replace_derived(
        self, tenant: str, user: str, chat_id: str, facts: Sequence[UserFact]
    ) -> None:
        """Replace what was taken from ``chat_id``."""
        items = self._items.get((tenant, user), [])
        kept = [item for item in items if item.origin != "derived" or item.chat_id != chat_id]
        self._items[(tenant, user)] = kept
        await self.add(tenant, user, facts)

    async def forget(
        self,
        tenant: str,
        user: str,
        *,
        ids: Sequence[int] | None = None,
        chat_id: str | None = None,
    ) -> int:
        """Delete the user's items (only ``ids``, or only those from ``chat_id``)."""
        items = self._items.get((tenant, user), [])
        kept = [item for item in items if not _matches(item, ids, chat_id)]
        self._items[(tenant, user)] = kept
        return len(items) - len(kept)


class SqlUserMemory:
    """User memory in the ``user_memory`` table of a SQL chat storage."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage  # a SqlStorage: its transaction() runs the statements

    async def items(self, tenant: str, user: str) -> list[UserFact]:
        """The user's items, oldest first."""

        def read(conn: Connection) -> list[UserFact]:
            return select_items(conn, tenant, user)

        result: list[UserFact] = await self.storage.transaction(read)
        return result

    async def add(self, tenant: str, user: str, facts: Sequence[UserFact]) -> list[UserFact]:
        """Store items; returns them with their ids."""
        for fact in facts:
            check_kind(fact.kind)

        def write(conn: Connection) -> list[UserFact]:
            return insert_items(conn, tenant, user, facts)

        result: list[UserFact] = await self.storage.transaction(write, write=True)
        return result

    async def replace_derived(
        self, tenant: str, user: str, chat_id: str, facts: Sequence[UserFact]
    ) -> None:
        """Replace what was taken from ``chat_id`` (one transaction)."""
        table = schema.user_memory
        old = delete(table).where(
            table.c.tenant == tenant,
            table.c.user_id == user,
            table.c.chat_id == chat_id,
            table.c.origin == "derived",
        )

        def write(conn: Connection) -> None:
            conn.execute(old)
            insert_items(conn, tenant, user, facts)

        await self.storage.transaction(write, write=True)

    async def forget(
        self,
        tenant: str,
        user: str,
        *,
        ids: Sequence[int] | None = None,
        chat_id: str | None = None,
    ) -> int:
        """Delete the user's items (only ``ids``, or only those from ``chat_id``)."""
        table = schema.user_memory
        statement = delete(table).where(table.c.tenant == tenant, table.c.user_id == user)
        if ids is not None:
            statement = statement.where(table.c.id.in_(list(ids)))
        if chat_id is not None:
            statement = statement.where(table.c.chat_id == chat_id)

        def write(conn: Connection) -> int:
            return int(conn.execute(statement).rowcount or 0)

        result: int = await self.storage.transaction(write, write=True)
        return result


def user_memory_for(storage: ChatStorage) -> UserMemoryStore:
    """The user memory beside ``storage``: its SQL table, or a process-local store."""
    from longtalk.storage.sql import SqlStorage

    if isinstance(storage, SqlStorage):
        return SqlUserMemory(storage)
    return InMemoryUserMemory()


def kept_with(users: UserMemoryStore, storage: ChatStorage) -> bool:
    """True when ``users`` is the user memory ``storage`` keeps itself.

    Then ``storage.load_state(..., with_user_memory=True)`` reads the user's items with the
    chat, in the same snapshot (one statement on PostgreSQL) instead of a read of its own.
    """
    return isinstance(users, SqlUserMemory) and users.storage is storage


def _matches(item: UserFact, ids: Sequence[int] | None, chat_id: str | None) -> bool:
    if ids is not None and item.id not in ids:
        return False
    return chat_id is None or item.chat_id == chat_id
