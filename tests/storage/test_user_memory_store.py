"""User memory across chats on every backend: items, provenance, replacement, deletion."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from longtalk.errors import UsageError
from longtalk.storage import ChatStorage, schema
from longtalk.storage.migrations import LATEST_VERSION
from longtalk.storage.sql import SqlStorage
from longtalk.storage.user_memory import UserFact, user_memory_for


async def test_items_keep_their_provenance_and_are_replaced_per_chat(
    storage: ChatStorage,
) -> None:
    users = user_memory_for(storage)
    await storage.create_chat("trip", user="priya")
    given = await users.add("t", "priya", [UserFact("fact", "Works as a nurse in Leeds")])
    derived = [
        UserFact("preference", "vegetarian", "derived", "trip", (1, 4)),
        UserFact("profile", "Sam: allergic to shellfish", "derived", "trip", (2, 4)),
    ]
    await users.replace_derived("t", "priya", "trip", derived)
    items = await users.items("t", "priya")
    assert [(i.kind, i.text, i.origin, i.chat_id, i.episodes) for i in items] == [
        ("fact", "Works as a nurse in Leeds", "given", None, (0, 0)),
        ("preference", "vegetarian", "derived", "trip", (1, 4)),
        ("profile", "Sam: allergic to shellfish", "derived", "trip", (2, 4)),
    ]
    assert all(i.id for i in items) and given[0].id == items[0].id
    assert items[0].created_at is not None
    # the chat's summary changed: what it gives replaces what it gave, the rest stays
    await users.replace_derived(
        "t", "priya", "trip", [UserFact("preference", "vegan now", "derived", "trip", (1, 9))]
    )
    texts = [i.text for i in await users.items("t", "priya")]
    assert texts == ["Works as a nurse in Leeds", "vegan now"]
    assert await users.items("other-tenant", "priya") == []
    assert await users.items("t", "someone-else") == []


async def test_forget_by_id_by_chat_or_everything(storage: ChatStorage) -> None:
    users = user_memory_for(storage)
    for chat in ("a", "b"):
        await storage.create_chat(chat, user="u")
        fact = UserFact("fact", f"from {chat}", "derived", chat, (1, 1))
        await users.replace_derived("t", "u", chat, [fact])
    (kept, *_) = await users.add("t", "u", [UserFact("preference", "tea"), UserFact("fact", "x")])
    assert await users.forget("t", "u", chat_id="a") == 1
    assert await users.forget("t", "u", ids=[kept.id or 0]) == 1
    assert [i.text for i in await users.items("t", "u")] == ["from b", "x"]
    assert await users.forget("t", "u") == 2
    assert await users.items("t", "u") == []


async def test_a_bad_kind_is_refused_and_nothing_is_stored(storage: ChatStorage) -> None:
    users = user_memory_for(storage)
    with pytest.raises(UsageError, match="unknown kind 'hobby'"):
        await users.add("t", "u", [UserFact("fact", "ok"), UserFact("hobby", "chess")])  # type: ignore[arg-type]
    assert await users.items("t", "u") == []


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
