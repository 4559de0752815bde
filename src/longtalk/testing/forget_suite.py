"""The conformance suite of the forgetting seam (``ForgetStore``).

Subclass :class:`ForgetStoreConformance` and give it a ``storage`` fixture: a set-up, empty
``ChatStorage`` that is also a ``ForgetStore``.
"""

from __future__ import annotations

import pytest

from longtalk.core.messages import Message
from longtalk.errors import ConflictError, NotFoundError
from longtalk.storage.base import ChatStorage, SummaryRow
from longtalk.storage.forgetting import ForgetRewrite, ForgetStore

__all__ = ["ForgetStoreConformance"]


def _forgetting(storage: ChatStorage) -> ForgetStore:
    assert isinstance(storage, ForgetStore), f"{type(storage).__name__} is not a ForgetStore"
    return storage


class ForgetStoreConformance:
    """Deleting single messages with a durable record of the rewrite still owed."""

    async def test_begin_deletes_the_messages_and_records_the_forget(
        self, storage: ChatStorage
    ) -> None:
        forgetting = _forgetting(storage)
        await storage.create_chat("c", tenant="t")
        words = ["one", "two", "three", "four"]
        await storage.append_messages("c", [Message(role="user", content=w) for w in words])
        pending = await forgetting.begin_forget("c", [2, 3], tenant="t")
        assert (pending.chat_id, pending.sequences, pending.deleted) == ("c", (2, 3), (2, 3))
        assert [m.sequence for m in await storage.list_messages("c")] == [1, 4]
        chat = await storage.get_chat("c")
        assert chat is not None and chat.content_chars == len("one") + len("four")
        assert chat.message_count == 4  # sequences are never reused
        again = await forgetting.begin_forget("c", [3, 4])  # widened, 3 already gone
        assert again.sequences == (2, 3, 4) and again.deleted == (4,)
        (found,) = await forgetting.pending_forgets()
        assert (found.chat_id, found.sequences) == ("c", (2, 3, 4))
        assert await forgetting.pending_forgets("other") == []
        (stored,) = await storage.append_messages("c", [Message(role="user", content="five")])
        assert stored.sequence == 5
        state = await storage.load_state("c")
        assert [m.sequence for m in state.messages] == [1, 5]

    async def test_another_tenant_or_no_chat_is_not_found_and_nothing_changes(
        self, storage: ChatStorage
    ) -> None:
        forgetting = _forgetting(storage)
        await storage.create_chat("c", tenant="t")
        await storage.append_messages("c", [Message(role="user", content="kept")])
        with pytest.raises(NotFoundError):
            await forgetting.begin_forget("c", [1], tenant="other")
        with pytest.raises(NotFoundError):
            await forgetting.begin_forget("missing", [1])
        assert len(await storage.list_messages("c")) == 1
        assert await forgetting.pending_forgets() == []

    async def test_finish_rewrites_cuts_and_drops_the_record_in_one_go(
        self, storage: ChatStorage
    ) -> None:
        forgetting = _forgetting(storage)
        await storage.create_chat("c")
        await storage.append_messages(
            "c", [Message(role="user", content=f"m{i}") for i in range(4)]
        )
        first = await storage.create_summary(
            SummaryRow("c", "m0 m1", episode_last=1, turn_number=2)
        )
        second = await storage.create_summary(
            SummaryRow("c", "m2 m3", episode_first=2, episode_last=2, turn_number=4)
        )
        await forgetting.begin_forget("c", [1, 3, 4])
        chat = await storage.get_chat("c")
        assert chat is not None
        stale = ForgetRewrite("c", (1, 3, 4), expected_summary_version=chat.summary_version - 1)
        with pytest.raises(ConflictError):
            await forgetting.finish_forget(stale)
        assert len(await forgetting.pending_forgets()) == 1
        rewrite = ForgetRewrite(
            "c",
            (1, 3, 4),
            rows=(SummaryRow("c", "m1", episode_last=1, turn_number=2, id=first.id),),
            cut=(second.id or 0,),
            facts=({"kind": "preference", "text": "x", "sequences": [2]},),
            title="New title",
            expected_summary_version=chat.summary_version,
        )
        after = await forgetting.finish_forget(rewrite)
        assert after.title == "New title" and after.summary_version == chat.summary_version + 1
        rows = await storage.list_summaries("c")
        assert [(r.id, r.summary_text, r.version) for r in rows] == [(first.id, "m1", 2)]
        state = await storage.load_state("c")
        assert [dict(fact) for fact in state.facts] == [
            {"kind": "preference", "text": "x", "sequences": [2]}
        ]
        assert await forgetting.pending_forgets() == []

    async def test_deleting_the_chat_drops_its_pending_forget(self, storage: ChatStorage) -> None:
        forgetting = _forgetting(storage)
        await storage.create_chat("c")
        await storage.append_messages("c", [Message(role="user", content="x")])
        await forgetting.begin_forget("c", [1])
        assert await storage.delete_chat("c")
        assert await forgetting.pending_forgets() == []
