"""User memory across chats on every backend: the shipped suite, then what SQL adds."""

from __future__ import annotations

from sqlalchemy import select

from longtalk.storage import schema
from longtalk.storage.migrations import LATEST_VERSION
from longtalk.storage.sql import SqlStorage
from longtalk.storage.user_memory import UserFact, user_memory_for
from longtalk.testing import UserMemoryConformance


class TestUserMemory(UserMemoryConformance):
    """The shipped suite, on every backend's own user memory."""


async def test_deleting_a_chat_deletes_what_was_taken_from_it(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql_backend.open()
    await storage.setup()
    users = user_memory_for(storage)
    await storage.create_chat("gone", user="u")
    await storage.create_chat("kept", user="u")
    await users.replace_derived("t", "u", "gone", [UserFact("fact", "a", "derived", "gone")])
    await users.replace_derived("t", "u", "kept", [UserFact("fact", "b", "derived", "kept")])
    await users.add("t", "u", [UserFact("fact", "given")])
    assert await storage.delete_chat("gone")
    assert [i.text for i in await users.items("t", "u")] == ["b", "given"]


async def test_migration_8_creates_the_table(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql_backend.open()
    await storage.setup()
    assert isinstance(storage, SqlStorage) and LATEST_VERSION >= 8
    versions = select(schema.schema_versions.c.version)
    applied = await storage.transaction(lambda conn: list(conn.execute(versions).scalars()))
    assert 8 in applied
    rows = await storage.transaction(lambda conn: conn.execute(select(schema.user_memory)).all())
    assert rows == []
