"""The conformance suite of user memory (``UserMemoryStore``): items, provenance, deletion.

Subclass :class:`UserMemoryConformance` and give it a ``storage`` fixture (a set-up,
empty ``ChatStorage``: items taken from a chat name it) and, unless the store is the one
``user_memory_for(storage)`` returns, a ``users`` fixture with your store.
"""

from __future__ import annotations

import pytest

from longtalk.errors import UsageError
from longtalk.storage.base import ChatStorage
from longtalk.storage.user_memory import UserFact, UserMemoryStore, kept_with, user_memory_for

__all__ = ["UserMemoryConformance"]


class UserMemoryConformance:
    """What is kept about a user across chats, for any ``UserMemoryStore``."""

    @pytest.fixture
    def users(self, storage: ChatStorage) -> UserMemoryStore:
        """The store under test (default: the one beside ``storage``)."""
        return user_memory_for(storage)

    async def test_items_keep_their_provenance_and_are_replaced_per_chat(
        self, storage: ChatStorage, users: UserMemoryStore
    ) -> None:
        await storage.create_chat("trip", user="priya")
        given = await users.add("t", "priya", [UserFact("fact", "Works as a nurse in Leeds")])
        derived = [
            UserFact("preference", "vegetarian", "derived", "trip", (1, 4)),
            UserFact("profile", "Sam: allergic to shellfish", "derived", "trip", (2, 4)),
        ]
        await users.replace_derived("t", "priya", "trip", derived)
        items = await users.items("t", "priya")
        assert [(i.kind, i.text, i.origin, i.chat_id, i.messages) for i in items] == [
            ("fact", "Works as a nurse in Leeds", "given", None, (0, 0)),
            ("preference", "vegetarian", "derived", "trip", (1, 4)),
            ("profile", "Sam: allergic to shellfish", "derived", "trip", (2, 4)),
        ]
        assert all(i.id for i in items) and given[0].id == items[0].id
        assert items[0].created_at is not None
        # the chat's summary changed: what it gives replaces what it gave, the rest stays
        replaced = [UserFact("preference", "vegan now", "derived", "trip", (1, 9))]
        await users.replace_derived("t", "priya", "trip", replaced)
        texts = [i.text for i in await users.items("t", "priya")]
        assert texts == ["Works as a nurse in Leeds", "vegan now"]
        assert await users.items("other-tenant", "priya") == []
        assert await users.items("t", "someone-else") == []

    async def test_forget_by_id_by_chat_or_everything(
        self, storage: ChatStorage, users: UserMemoryStore
    ) -> None:
        for chat in ("a", "b"):
            await storage.create_chat(chat, user="u")
            fact = UserFact("fact", f"from {chat}", "derived", chat, (1, 1))
            await users.replace_derived("t", "u", chat, [fact])
        kept, _ = await users.add("t", "u", [UserFact("preference", "tea"), UserFact("fact", "x")])
        assert await users.forget("t", "u", chat_id="a") == 1
        assert await users.forget("t", "u", ids=[kept.id or 0]) == 1
        assert [i.text for i in await users.items("t", "u")] == ["from b", "x"]
        assert await users.forget("t", "u") == 2
        assert await users.items("t", "u") == []

    async def test_a_bad_kind_is_refused_and_nothing_is_stored(
        self, storage: ChatStorage, users: UserMemoryStore
    ) -> None:
        bad = UserFact("hobby", "chess")  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="unknown kind 'hobby'"):
            await users.add("t", "u", [UserFact("fact", "ok"), bad])
        assert await users.items("t", "u") == []

    async def test_a_load_with_the_users_memory_reads_it_with_the_chat(
        self, storage: ChatStorage, users: UserMemoryStore
    ) -> None:
        await storage.create_chat("trip", tenant="t", user="priya")
        await storage.create_chat("solo", tenant="t")
        await users.add("t", "priya", [UserFact("fact", "Works in Leeds")])
        await users.add("other", "priya", [UserFact("fact", "another tenant's")])
        state = await storage.load_state("trip", with_user_memory=True)
        if not kept_with(users, storage):
            assert state.user_memory is None  # kept elsewhere: the reader asks the store
            return
        assert state.user_memory is not None
        assert [item.text for item in state.user_memory] == ["Works in Leeds"]
        assert state.user_memory == tuple(await users.items("t", "priya"))
        assert (await storage.load_state("solo", with_user_memory=True)).user_memory == ()
        assert (await storage.load_state("trip")).user_memory is None
