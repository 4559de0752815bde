"""User-memory rows read and written on a caller's connection (SQL backends).

Apart from :mod:`longtalk.storage.user_memory` so that a backend's own snapshot (the chat's
state read with its user's memory) and the user-memory store share them without importing
each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select

from longtalk.storage import schema
from longtalk.storage.records import UserFact

__all__ = ["insert_items", "select_items", "with_id"]


def select_items(conn: Connection, tenant: str, user: str) -> list[UserFact]:
    """The user's items, oldest first, read on ``conn`` (inside a caller's transaction)."""
    table = schema.user_memory
    query = (
        select(table).where(table.c.tenant == tenant, table.c.user_id == user).order_by(table.c.id)
    )
    return [user_fact(row._mapping) for row in conn.execute(query)]


def insert_items(
    conn: Connection, tenant: str, user: str, facts: Sequence[UserFact]
) -> list[UserFact]:
    """Store ``facts`` for the user on ``conn``; returns them with their new ids."""
    now = datetime.now(UTC)
    stored = []
    for fact in facts:
        values = {
            "tenant": tenant,
            "user_id": user,
            "kind": fact.kind,
            "text": fact.text,
            "origin": fact.origin,
            "chat_id": fact.chat_id,
            "episode_first": fact.messages[0],  # the columns hold message sequences
            "episode_last": fact.messages[1],
            "created_at": now,
        }
        new_id = conn.execute(insert(schema.user_memory).values(values)).inserted_primary_key
        stored.append(with_id(fact, int(new_id[0]) if new_id else 0, now))
    return stored


def user_fact(m: Mapping[Any, Any]) -> UserFact:
    """A user-memory item from its row's columns, by name (any mapping of them)."""
    return UserFact(
        kind=m["kind"],
        text=m["text"],
        origin=m["origin"],
        chat_id=m["chat_id"],
        messages=(m["episode_first"], m["episode_last"]),
        id=m["id"],
        created_at=m["created_at"],
    )


def with_id(fact: UserFact, new_id: int, now: datetime | None = None) -> UserFact:
    """``fact`` as stored: its id and when it was stored."""
    return UserFact(
        fact.kind,
        fact.text,
        fact.origin,
        fact.chat_id,
        fact.messages,
        new_id,
        now or datetime.now(UTC),
    )
