"""Conformance suites for the storage seams: chats and messages, summary rows, the outbox.

Subclass a suite in your tests and give it a ``storage`` fixture: a set-up, empty
``ChatStorage`` of your backend, new for each test. pytest collects the inherited tests::

    import pytest
    from longtalk.testing import ChatStoreConformance


    class TestMyChats(ChatStoreConformance):
        @pytest.fixture
        async def storage(self):
            store = MyStorage(...)
            await store.setup()
            yield store
            await store.close()

The tests are ``async`` (run them with pytest-asyncio in ``auto`` mode). Each states one
rule of the seam's contract (``longtalk.storage.base``), the same for every backend:
memory, SQLite and PostgreSQL run them in longtalk's own tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from longtalk.core.messages import Message, assistant, system, tool_call, tool_result, user
from longtalk.errors import ConflictError, NotFoundError, StorageError, UsageError
from longtalk.storage.base import (
    ChatStorage,
    FoundFacts,
    MessageCountMoved,
    NewMessages,
    RecordUpdate,
    SummaryPatch,
    SummaryRow,
    SummaryRun,
    SummaryUpdate,
    TurnCommit,
)

__all__ = [
    "ChatStoreConformance",
    "IndexOutboxConformance",
    "SummaryStoreConformance",
    "every_field_messages",
]

UNICODE = "héllo wörld — 你好，世界 — مرحبا بالعالم — 🌍👩‍👩‍👧 — e\u0301 — 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 — \t\n\r"


def every_field_messages() -> list[Message]:
    """Messages that use every field, in every form storage must keep exactly."""
    return [
        system("You are helpful.", id="m-0"),
        user(
            UNICODE,
            name="Zoë 🦊",
            timestamp=datetime(2024, 2, 29, 23, 59, 58, 123456),
            metadata={"lang": "多语言", "nested": {"list": [1, 2.5, None, True], "ok": False}},
            id="m-1",
        ),
        tool_call(
            "",
            ["call_1", "call_2"],
            timestamp=datetime(2025, 1, 1, 8, 0, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        tool_result('{"temp": 21, "unit": "°C"}', "call_1", name="weather"),
        tool_result("x" * 2_000_000, "call_2", name="bulk"),
        assistant("Done. " + UNICODE * 100, timestamp=datetime(2025, 6, 1, 12, 0, tzinfo=UTC)),
    ]


async def new_chat(storage: ChatStorage, count: int = 0, **kwargs: Any) -> str:
    """A new chat with ``count`` alternating messages; its id."""
    chat = await storage.create_chat(**kwargs)
    if count:
        await storage.append_messages(
            chat.id,
            [
                user(f"message {i}") if i % 2 else assistant(f"reply {i}")
                for i in range(1, count + 1)
            ],
        )
    return chat.id


async def recreated(storage: ChatStorage, chat_id: str) -> str:
    """Create ``chat_id``, delete it and create it again; the first incarnation's id."""
    old = await storage.create_chat(chat_id)
    assert await storage.delete_chat(chat_id)
    await storage.create_chat(chat_id)
    return old.incarnation


async def summarize(storage: ChatStorage, chat_id: str, text: str, last: int) -> SummaryRow:
    """Replace the newest summary row (or write the first) up to ``last``, as a job would."""
    state = await storage.load_state(chat_id)
    latest = state.latest_summary
    row = SummaryRow(chat_id, text) if latest is None else replace(latest, summary_text=text)
    result = await storage.commit_turn(
        TurnCommit(
            chat_id,
            summary=SummaryUpdate(
                rows=(row,),
                last_summarized_sequence=last,
                expected_version=state.chat.summary_version,
            ),
        )
    )
    return result.summaries[0]


def liked(messages: Sequence[Message], numbered_for: int) -> FoundFacts:
    """Stand-in found facts: every message saying 'I like' states one, numbered for a count."""
    return FoundFacts(
        tuple(
            {"text": message.content, "sequences": [numbered_for + 1 + index]}
            for index, message in enumerate(messages)
            if "I like" in message.content
        ),
        numbered_for,
    )


class ChatStoreConformance:
    """Chats and messages (``ChatStore``): ids, tenants, sequences, smart loads, turns."""

    async def test_chat_round_trip_and_tenants(self, storage: ChatStorage) -> None:
        chat = await storage.create_chat("chat-ü", tenant="acme", user="user-7", title="Título ✓")
        fetched = await storage.get_chat("chat-ü")
        assert fetched == chat
        assert fetched is not None and fetched.created_at is not None
        assert fetched.created_at.tzinfo is not None
        assert fetched.title_source == "user" and fetched.message_count == 0
        assert await storage.get_chat("chat-ü", tenant="acme") == chat
        assert await storage.get_chat("chat-ü", tenant="other") is None
        assert await storage.get_chat("missing") is None
        with pytest.raises(StorageError, match="already exists"):
            await storage.create_chat("chat-ü")

    async def test_list_chats_newest_first_per_tenant(self, storage: ChatStorage) -> None:
        first = await storage.create_chat(tenant="t1")
        second = await storage.create_chat(tenant="t1")
        await storage.create_chat(tenant="t2")
        await storage.append_messages(first.id, [user("bump")])
        listed = await storage.list_chats(tenant="t1")
        assert [chat.id for chat in listed] == [first.id, second.id]
        paged = await storage.list_chats(tenant="t1", limit=1, offset=1)
        assert [chat.id for chat in paged] == [second.id]
        assert await storage.list_chats(tenant="nobody") == []

    async def test_generated_ids_are_unique(self, storage: ChatStorage) -> None:
        ids = {(await storage.create_chat()).id for _ in range(20)}
        assert len(ids) == 20

    async def test_delete_chat_deletes_messages_and_summaries(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 6)
        await summarize(storage, chat_id, "summary", last=2)
        assert not await storage.delete_chat(chat_id, tenant="someone-else")
        assert await storage.delete_chat(chat_id)
        assert await storage.get_chat(chat_id) is None
        assert await storage.list_messages(chat_id) == []
        assert not await storage.delete_chat(chat_id)
        await storage.create_chat(chat_id)  # the id is free again and starts empty
        state = await storage.load_state(chat_id)
        assert state.messages == () and state.summaries == ()
        assert state.chat.message_count == 0 and state.facts == ()

    async def test_delete_chats_of_a_tenant_or_one_user(self, storage: ChatStorage) -> None:
        kept = await new_chat(storage, 2, tenant="t", user="ann")
        gone = [await new_chat(storage, 2, tenant="t", user="bob") for _ in range(2)]
        other = await new_chat(storage, 2, tenant="u", user="bob")
        deleted = await storage.delete_chats(tenant="t", user="bob")
        assert [chat.id for chat in deleted] == sorted(gone)
        for chat_id in gone:
            assert await storage.get_chat(chat_id) is None
        assert await storage.get_chat(kept) is not None
        assert await storage.get_chat(other) is not None
        assert [chat.id for chat in await storage.delete_chats(tenant="t")] == [kept]
        assert await storage.delete_chats(tenant="t") == []

    async def test_every_message_field_round_trips(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage)
        sent = every_field_messages()
        stored = await storage.append_messages(chat_id, sent)
        assert [s.sequence for s in stored] == list(range(1, len(sent) + 1))
        loaded = await storage.list_messages(chat_id)
        assert [s.message for s in loaded] == sent
        assert [s.sequence for s in loaded] == [s.sequence for s in stored]
        assert [s.message for s in (await storage.load_state(chat_id)).messages] == sent
        # naive stays naive, an offset is kept as given
        assert loaded[1].message.timestamp == datetime(2024, 2, 29, 23, 59, 58, 123456)
        assert loaded[1].message.timestamp.tzinfo is None
        stamp = loaded[2].message.timestamp
        assert stamp is not None and stamp.utcoffset() == timedelta(hours=5, minutes=30)
        assert len(loaded[4].message.content) == 2_000_000

    async def test_sequences_are_gapless_and_paged(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage)
        for turn in range(5):
            await storage.append_messages(chat_id, [user(f"q{turn}"), assistant(f"a{turn}")])
        assert await storage.append_messages(chat_id, []) == []
        all_messages = await storage.list_messages(chat_id)
        assert [s.sequence for s in all_messages] == list(range(1, 11))
        page = await storage.list_messages(chat_id, after_sequence=4, limit=3)
        assert [s.sequence for s in page] == [5, 6, 7]
        assert [s.message.content for s in page] == ["q2", "a2", "q3"]
        chat = await storage.get_chat(chat_id)
        assert chat is not None and chat.message_count == 10

    async def test_the_chat_keeps_its_length_and_when_it_changed(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage)
        before = await storage.get_chat(chat_id)
        result = await storage.commit_turn(
            TurnCommit(chat_id, append=NewMessages([user("héllo"), assistant("12345678")]))
        )
        assert result.chat.content_chars == 13 and result.chat.message_count == 2
        assert before is not None and before.updated_at is not None
        assert result.chat.updated_at is not None and result.chat.updated_at >= before.updated_at
        assert await storage.get_chat(chat_id) == result.chat

    async def test_unknown_chat(self, storage: ChatStorage) -> None:
        with pytest.raises(NotFoundError, match="no chat with id 'nope'"):
            await storage.load_state("nope")
        with pytest.raises(NotFoundError):
            await storage.append_messages("nope", [user("hi")])
        assert await storage.list_messages("nope") == []

    # -- smart loading ---------------------------------------------------------------------

    async def test_without_summary_everything_loads(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 30)
        state = await storage.load_state(chat_id)
        assert state.summaries == ()
        assert [s.sequence for s in state.messages] == list(range(1, 31))

    async def test_with_summary_only_the_tail_loads(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 30)
        await summarize(storage, chat_id, "the first 26 messages", last=26)
        state = await storage.load_state(chat_id)
        assert state.latest_summary is not None
        assert state.latest_summary.summary_text == "the first 26 messages"
        assert [s.sequence for s in state.messages] == [27, 28, 29, 30]
        wider = await storage.load_state(chat_id, tail=10)
        assert [s.sequence for s in wider.messages] == list(range(21, 31))
        narrow = await storage.load_state(chat_id, tail=0)
        assert [s.sequence for s in narrow.messages] == [27, 28, 29, 30]
        with pytest.raises(UsageError):
            await storage.load_state(chat_id, tail=-1)

    async def test_unsummarized_messages_always_load(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 30)
        await summarize(storage, chat_id, "the first 10", last=10)
        state = await storage.load_state(chat_id)
        assert [s.sequence for s in state.messages] == list(range(11, 31))

    # -- turns -----------------------------------------------------------------------------

    async def test_an_append_retried_with_the_same_message_ids_stores_nothing_twice(
        self, storage: ChatStorage
    ) -> None:
        await storage.create_chat("r")
        batch = [user("book the train", id="k1:0"), assistant("booked", id="k1:1")]
        first = await storage.append_messages("r", batch)
        again = await storage.append_messages("r", batch)
        assert [m.sequence for m in again] == [m.sequence for m in first] == [1, 2]
        chat = await storage.get_chat("r")
        assert chat is not None and chat.message_count == 2
        with pytest.raises(UsageError, match="other content"):
            await storage.append_messages("r", [user("something else", id="k1:0"), batch[1]])
        with pytest.raises(UsageError, match="same messages"):
            await storage.append_messages("r", [batch[0], user("new", id="k2:0")])
        with pytest.raises(UsageError, match="unique within an append"):
            await storage.append_messages("r", [user("a", id="x"), user("b", id="x")])
        contents = [m.message.content for m in await storage.list_messages("r")]
        assert contents == ["book the train", "booked"]

    async def test_another_tenants_chat_is_a_missing_one_replays_included(
        self, storage: ChatStorage
    ) -> None:
        await storage.create_chat("x", tenant="a")
        mine = TurnCommit("x", append=NewMessages([user("a1", id="m1")]), tenant="a")
        assert [m.sequence for m in (await storage.commit_turn(mine)).messages] == [1]
        for theirs in (
            TurnCommit("x", append=NewMessages([user("b1")]), tenant="b"),
            TurnCommit("x", append=NewMessages([user("a1", id="m1")]), tenant="b"),
        ):
            with pytest.raises(NotFoundError, match="no chat with id 'x'"):
                await storage.commit_turn(theirs)
        assert [m.message.content for m in await storage.list_messages("x")] == ["a1"]

    async def test_a_commit_for_another_incarnation_writes_nothing(
        self, storage: ChatStorage
    ) -> None:
        old = await recreated(storage, "x")
        stale = TurnCommit("x", append=NewMessages([user("late")]), incarnation=old)
        with pytest.raises(NotFoundError, match="deleted"):
            await storage.commit_turn(stale)
        assert await storage.list_messages("x") == []

    async def test_found_facts_join_the_chats_facts(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 3)
        new = [user("I like trams"), assistant("noted"), user("I like tiles")]
        commit = TurnCommit(chat_id, append=NewMessages(new, found_facts=liked(new, 3)))
        await storage.commit_turn(commit)
        facts = (await storage.load_state(chat_id)).facts
        assert [dict(f) for f in facts] == [
            {"text": "I like trams", "sequences": [4]},
            {"text": "I like tiles", "sequences": [6]},
        ]
        await storage.commit_turn(TurnCommit(chat_id, append=NewMessages([user("no fact here")])))
        assert len((await storage.load_state(chat_id)).facts) == 2

    async def test_found_facts_numbered_for_another_count_write_nothing(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 2)
        new = [user("I like fado", id="f1")]
        with pytest.raises(MessageCountMoved) as moved:
            await storage.commit_turn(
                TurnCommit(chat_id, append=NewMessages(new, found_facts=liked(new, 1)))
            )
        assert moved.value.message_count == 2
        state = await storage.load_state(chat_id)
        assert (state.chat.message_count, state.facts) == (2, ())
        again = TurnCommit(chat_id, append=NewMessages(new, found_facts=liked(new, 2)))
        assert [m.sequence for m in (await storage.commit_turn(again)).messages] == [3]
        retried = await storage.commit_turn(again.with_found_facts(liked(new, 3)))
        assert [m.sequence for m in retried.messages] == [3]  # a retry is no new numbering
        assert [f["sequences"] for f in (await storage.load_state(chat_id)).facts] == [[3]]

    async def test_facts_replaced_by_a_commit_and_joined_by_new_ones(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 2)
        merged = [{"text": "likes trams and tiles", "sequences": [1, 2]}]
        new = [user("I like fado")]
        commit = TurnCommit(
            chat_id,
            append=NewMessages(new, found_facts=liked(new, 2)),
            record=RecordUpdate(facts=merged),
        )
        await storage.commit_turn(commit)
        facts = [dict(f) for f in (await storage.load_state(chat_id)).facts]
        assert facts == [*merged, {"text": "I like fado", "sequences": [3]}]
        await storage.commit_turn(TurnCommit(chat_id, record=RecordUpdate(facts=[])))
        assert (await storage.load_state(chat_id)).facts == ()

    async def test_a_replacement_keeps_the_facts_appended_after_it_read(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 0)
        first = [user("I like trams"), user("I like tiles")]
        await storage.commit_turn(
            TurnCommit(chat_id, append=NewMessages(first, found_facts=liked(first, 0)))
        )
        read = (await storage.load_state(chat_id)).facts  # a summary job reads two facts
        later = [user("I like fado")]  # an append lands while the job runs
        await storage.commit_turn(
            TurnCommit(chat_id, append=NewMessages(later, found_facts=liked(later, 2)))
        )
        merged = [{"text": "likes trams and tiles", "sequences": [1, 2]}]
        job = RecordUpdate(facts=merged, facts_read=len(read))
        await storage.commit_turn(TurnCommit(chat_id, record=job))
        facts = [dict(f) for f in (await storage.load_state(chat_id)).facts]
        assert facts == [*merged, {"text": "I like fado", "sequences": [3]}]

    async def test_a_commit_with_a_job_request_still_stores_the_turn(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage)
        commit = TurnCommit(
            chat_id, append=NewMessages([user("q"), assistant("a")], enqueue="summary")
        )
        result = await storage.commit_turn(commit)
        assert [m.sequence for m in result.messages] == [1, 2]
        again = await storage.commit_turn(TurnCommit(chat_id, append=NewMessages([user("q2")])))
        assert again.chat.message_count == 3

    async def test_a_user_title_is_never_replaced_by_a_generated_one(
        self, storage: ChatStorage
    ) -> None:
        named = (await storage.create_chat(title="Mine")).id
        plain = await new_chat(storage)
        for chat_id in (named, plain):
            generated = TurnCommit(
                chat_id, record=RecordUpdate(title="Generated", title_source="generated")
            )
            await storage.commit_turn(generated)
        named_chat, plain_chat = await storage.get_chat(named), await storage.get_chat(plain)
        assert named_chat is not None and (named_chat.title, named_chat.title_source) == (
            "Mine",
            "user",
        )
        assert plain_chat is not None and (plain_chat.title, plain_chat.title_source) == (
            "Generated",
            "generated",
        )
        await storage.commit_turn(
            TurnCommit(plain, record=RecordUpdate(title="Renamed", title_source="user"))
        )
        await storage.commit_turn(
            TurnCommit(plain, record=RecordUpdate(title="Again", title_source="generated"))
        )
        renamed = await storage.get_chat(plain)
        assert renamed is not None and (renamed.title, renamed.title_source) == ("Renamed", "user")

    async def test_summary_runs_are_counted_and_failures_back_off(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 2)
        retry_at = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
        failed = SummaryRun(
            1, 100, 0, failure="cut_off", error="cut off", retry_at=retry_at, retry_volume=900
        )
        await storage.commit_turn(TurnCommit(chat_id, record=RecordUpdate(run=failed)))
        await storage.commit_turn(
            TurnCommit(chat_id, record=RecordUpdate(run=replace(failed, failure="cut_off")))
        )
        chat = await storage.get_chat(chat_id)
        assert chat is not None
        stats = chat.stats
        assert (stats.calls, stats.input_tokens, stats.failures) == (2, 200, 2)
        assert stats.by_kind == {"cut_off": 2} and stats.last_error == "cut off"
        assert stats.retry_at == retry_at and stats.retry_volume == 900
        await storage.commit_turn(
            TurnCommit(chat_id, record=RecordUpdate(run=SummaryRun(1, 50, 20)))
        )
        chat = await storage.get_chat(chat_id)
        assert chat is not None
        stats = chat.stats
        assert (stats.calls, stats.input_tokens, stats.output_tokens) == (3, 250, 20)
        assert stats.failures == 0 and stats.by_kind == {"cut_off": 2}
        assert stats.last_error is None and stats.retry_at is None and stats.retry_volume == 0


class SummaryStoreConformance:
    """Summary rows (``SummaryStore``, and the summary part of ``commit_turn``)."""

    async def test_summary_chain_operations(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 4)
        first = await storage.create_summary(
            SummaryRow(chat_id, "episodes 1-5", episode_first=1, episode_last=5, token_count=40)
        )
        second = await storage.create_summary(
            SummaryRow(chat_id, "episodes 6-9", episode_first=6, episode_last=9)
        )
        assert (first.sequence, second.sequence) == (1, 2)
        assert first.id is not None and second.id is not None and first.id != second.id
        patched = await storage.update_summary(
            first.id, SummaryPatch(summary_text="episodes 1-5, revised", episode_last=6)
        )
        assert patched.version == 2 and patched.episode_range == "1-6"
        assert patched.token_count == 40 and patched.sequence == 1
        chain = await storage.list_summaries(chat_id)
        assert [r.summary_text for r in chain] == ["episodes 1-5, revised", "episodes 6-9"]
        chat = await storage.get_chat(chat_id)
        assert chat is not None and chat.summary_version == 3
        with pytest.raises(NotFoundError):
            await storage.update_summary(999_999, SummaryPatch(summary_text="x"))
        with pytest.raises(UsageError):
            await storage.create_summary(first)
        with pytest.raises(NotFoundError):
            await storage.create_summary(SummaryRow("no-such-chat", "x"))

    async def test_commit_turn_writes_everything_at_once(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 8)
        state = await storage.load_state(chat_id)
        row = SummaryRow(
            chat_id,
            '{"narrative": "Zoë asked about 天气", "topics": ["weather"]}',
            format="json",
            episode_first=1,
            episode_last=4,
            turn_number=8,
            token_count=17,
        )
        result = await storage.commit_turn(
            TurnCommit(
                chat_id,
                append=NewMessages([user("and tomorrow?"), assistant("sunny")]),
                summary=SummaryUpdate(
                    rows=(row,),
                    last_summarized_sequence=6,
                    expected_version=state.chat.summary_version,
                ),
                record=RecordUpdate(title="Weather in Zürich"),
            )
        )
        assert [s.sequence for s in result.messages] == [9, 10]
        assert result.chat.title == "Weather in Zürich"
        assert result.chat.message_count == 10
        assert result.chat.last_summarized_sequence == 6
        assert result.chat.summary_version == state.chat.summary_version + 1
        (written,) = result.summaries
        assert written.id is not None and written.sequence == 1 and written.version == 1
        assert (written.summary_text, written.format, written.episode_range) == (
            row.summary_text,
            "json",
            "1-4",
        )
        assert (written.turn_number, written.token_count) == (8, 17)
        assert await storage.list_summaries(chat_id) == [written]
        assert await storage.get_chat(chat_id) == result.chat

    async def test_rows_patched_and_added_in_one_commit_come_back_in_its_order(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 6)
        first = await summarize(storage, chat_id, "first", last=2)
        state = await storage.load_state(chat_id)
        result = await storage.commit_turn(
            TurnCommit(
                chat_id,
                summary=SummaryUpdate(
                    rows=(
                        SummaryRow(chat_id, "newer", episode_first=3, episode_last=3),
                        replace(first, summary_text="first, revised", kind="archived"),
                        SummaryRow(chat_id, "newest", episode_first=4, episode_last=4),
                    ),
                    last_summarized_sequence=4,
                    expected_version=state.chat.summary_version,
                ),
            )
        )
        assert [r.summary_text for r in result.summaries] == ["newer", "first, revised", "newest"]
        assert [r.sequence for r in result.summaries] == [2, 1, 3]
        assert result.summaries[1].version == 2 and result.summaries[1].kind == "archived"
        shown = (await storage.load_state(chat_id)).summaries
        assert [r.summary_text for r in shown] == ["newer", "newest"]  # archived: not shown
        assert len(await storage.list_summaries(chat_id)) == 3

    async def test_replacing_a_row_bumps_its_version(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 8)
        first = await summarize(storage, chat_id, "v1", last=4)
        second = await summarize(storage, chat_id, "v2", last=6)
        assert (second.id, second.sequence, second.version) == (first.id, 1, 2)
        assert second.created_at == first.created_at
        assert second.updated_at is not None and first.updated_at is not None
        assert second.updated_at >= first.updated_at
        assert [r.summary_text for r in await storage.list_summaries(chat_id)] == ["v2"]

    async def test_stale_summary_is_refused_and_nothing_is_written(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 8)
        stale = await storage.load_state(chat_id)
        await summarize(storage, chat_id, "newer summary", last=6)
        before = await storage.get_chat(chat_id)
        with pytest.raises(ConflictError, match="plan again"):
            await storage.commit_turn(
                TurnCommit(
                    chat_id,
                    append=NewMessages([user("lost with the turn")]),
                    summary=SummaryUpdate(
                        rows=(SummaryRow(chat_id, "older summary"),),
                        last_summarized_sequence=4,
                        expected_version=stale.chat.summary_version,
                    ),
                    record=RecordUpdate(title="stale title"),
                )
            )
        assert await storage.get_chat(chat_id) == before
        assert [r.summary_text for r in await storage.list_summaries(chat_id)] == ["newer summary"]
        assert len(await storage.list_messages(chat_id)) == 8

    async def test_bookkeeping_never_moves_back(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 8)
        await summarize(storage, chat_id, "up to 6", last=6)
        with pytest.raises(ConflictError, match="already summarized"):
            await storage.commit_turn(
                TurnCommit(chat_id, summary=SummaryUpdate(last_summarized_sequence=3))
            )
        with pytest.raises(UsageError, match="past the last message"):
            await storage.commit_turn(
                TurnCommit(chat_id, summary=SummaryUpdate(last_summarized_sequence=9))
            )
        with pytest.raises(UsageError, match="summary row of chat 'other'"):
            await storage.commit_turn(
                TurnCommit(chat_id, summary=SummaryUpdate(rows=(SummaryRow("other", "x"),)))
            )

    async def test_messages_only_commit_ignores_the_summary_version(
        self, storage: ChatStorage
    ) -> None:
        chat_id = await new_chat(storage, 2)
        await summarize(storage, chat_id, "s", last=2)
        result = await storage.commit_turn(
            TurnCommit(
                chat_id, append=NewMessages([user("hi")]), summary=SummaryUpdate(expected_version=0)
            )
        )
        assert result.chat.message_count == 3 and result.chat.summary_version == 1

    async def test_failure_mid_commit_writes_nothing(self, storage: ChatStorage) -> None:
        chat_id = await new_chat(storage, 4)
        good = await summarize(storage, chat_id, "kept", last=2)
        before = await storage.load_state(chat_id)
        assert good.id is not None
        missing = replace(good, id=good.id + 1000, summary_text="to a missing row")
        with pytest.raises(NotFoundError, match=f"no summary row with id {good.id + 1000}"):
            await storage.commit_turn(
                TurnCommit(
                    chat_id,
                    append=NewMessages([user("first"), assistant("second")]),
                    summary=SummaryUpdate(
                        rows=(replace(good, summary_text="changed"), missing),
                        last_summarized_sequence=4,
                        expected_version=before.chat.summary_version,
                    ),
                    record=RecordUpdate(title="never"),
                )
            )
        assert await storage.load_state(chat_id) == before


class IndexOutboxConformance:
    """The recall index's outbox (``IndexOutbox``): a watermark per chat, behind its messages."""

    async def test_index_watermark_moves_up_only_and_never_past_the_messages(
        self, storage: ChatStorage
    ) -> None:
        await storage.create_chat("w")
        await storage.append_messages("w", [user(f"m{i}") for i in range(5)])
        chat = await storage.get_chat("w")
        assert chat is not None and chat.indexed_sequence == 0 and chat.index_lag == 5
        assert await storage.mark_indexed("w", 3)
        await storage.mark_indexed("w", 2)  # a slower run that finished later: ignored
        chat = await storage.get_chat("w")
        assert chat is not None and chat.indexed_sequence == 3 and chat.index_lag == 2
        await storage.mark_indexed("w", 99)
        chat = await storage.get_chat("w")
        assert chat is not None and chat.indexed_sequence == 5 and chat.index_lag == 0
        assert not await storage.mark_indexed("gone", 1)

    async def test_a_watermark_of_another_incarnation_is_refused(
        self, storage: ChatStorage
    ) -> None:
        old = await recreated(storage, "w")
        await storage.append_messages("w", [user("new")])
        assert not await storage.mark_indexed("w", 1, incarnation=old)
        chat = await storage.get_chat("w")
        assert chat is not None and chat.indexed_sequence == 0

    async def test_many_watermarks_move_in_one_call(self, storage: ChatStorage) -> None:
        for name in ("x", "y"):
            await storage.create_chat(name)
            await storage.append_messages(name, [user(f"m{i}") for i in range(4)])
        await storage.mark_indexed("y", 3)
        gone = await storage.mark_indexed_many({"x": 2, "y": 1, "gone": 7})  # y never moves down
        assert gone == {"gone"}
        found = {chat.id: chat.indexed_sequence for chat in await storage.list_chats()}
        assert found == {"x": 2, "y": 3}

    async def test_index_backlog_lists_lagging_chats_oldest_first_and_reset_restarts(
        self, storage: ChatStorage
    ) -> None:
        for name in ("a", "b", "c"):
            await storage.create_chat(name, tenant=f"t-{name}")
            await storage.append_messages(name, [user("hello"), assistant("hi")])
        await storage.mark_indexed("b", 2)
        backlog = await storage.index_backlog(limit=10)
        assert [chat.id for chat in backlog] == ["a", "c"]
        assert [chat.id for chat in await storage.index_backlog(limit=1)] == ["a"]
        chosen = await storage.index_backlog(chat_ids=["b", "c", "missing"])
        assert [chat.id for chat in chosen] == ["c"]  # b does not lag; missing is no chat
        assert await storage.index_backlog(chat_ids=[]) == []
        reset = await storage.reset_index("b")
        assert [(chat.id, chat.indexed_sequence) for chat in reset] == [("b", 0)]
        await storage.mark_indexed("a", 2)
        everything = await storage.reset_index()
        assert sorted(chat.id for chat in everything) == ["a", "b", "c"]
        assert {chat.id for chat in await storage.index_backlog()} == {"a", "b", "c"}
