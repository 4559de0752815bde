"""The ChatStorage contract, run against every backend (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from longtalk.core.messages import Message, assistant, system, tool_call, tool_result, user
from longtalk.errors import ConflictError, NotFoundError, StorageError, UsageError
from longtalk.storage import (
    ChatStorage,
    StorageConfig,
    SummaryPatch,
    SummaryRow,
    TurnCommit,
    resolve_storage,
)
from longtalk.summary.model import ConversationSummary
from longtalk.summary.title import generate_title
from longtalk.testing import ScriptedLLM

UNICODE = "héllo wörld — 你好，世界 — مرحبا بالعالم — 🌍👩‍👩‍👧 — e\u0301 — 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 — \t\n\r"


def every_field_messages() -> list[Message]:
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


async def new_chat(storage: ChatStorage, count: int = 0) -> str:
    chat = await storage.create_chat()
    if count:
        await storage.append_messages(
            chat.id,
            [
                user(f"message {i}") if i % 2 else assistant(f"reply {i}")
                for i in range(1, count + 1)
            ],
        )
    return chat.id


async def summarize(storage: ChatStorage, chat_id: str, text: str, last: int) -> SummaryRow:
    state = await storage.load_state(chat_id)
    latest = state.latest_summary
    row = SummaryRow(chat_id, text) if latest is None else replace(latest, summary_text=text)
    result = await storage.commit_turn(
        TurnCommit(
            chat_id,
            summaries=(row,),
            last_summarized_sequence=last,
            expected_summary_version=state.chat.summary_version,
        )
    )
    return result.summaries[0]


# -- chats ---------------------------------------------------------------------------------


async def test_chat_round_trip_and_tenants(storage: ChatStorage) -> None:
    chat = await storage.create_chat("chat-ü", tenant="acme", user="user-7", title="Título ✓")
    fetched = await storage.get_chat("chat-ü")
    assert fetched == chat
    assert fetched is not None and fetched.created_at is not None
    assert fetched.created_at.tzinfo is not None
    assert await storage.get_chat("chat-ü", tenant="acme") == chat
    assert await storage.get_chat("chat-ü", tenant="other") is None
    assert await storage.get_chat("missing") is None
    with pytest.raises(StorageError, match="already exists"):
        await storage.create_chat("chat-ü")


async def test_list_chats_newest_first_per_tenant(storage: ChatStorage) -> None:
    first = await storage.create_chat(tenant="t1")
    second = await storage.create_chat(tenant="t1")
    await storage.create_chat(tenant="t2")
    await storage.append_messages(first.id, [user("bump")])
    listed = await storage.list_chats(tenant="t1")
    assert [chat.id for chat in listed] == [first.id, second.id]
    assert [chat.id for chat in await storage.list_chats(tenant="t1", limit=1, offset=1)] == [
        second.id
    ]
    assert await storage.list_chats(tenant="nobody") == []


async def test_generated_ids_are_unique(storage: ChatStorage) -> None:
    ids = {(await storage.create_chat()).id for _ in range(20)}
    assert len(ids) == 20


async def test_delete_chat_deletes_messages_and_summaries(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 6)
    await summarize(storage, chat_id, "summary", last=2)
    assert not await storage.delete_chat(chat_id, tenant="someone-else")
    assert await storage.delete_chat(chat_id)
    assert await storage.get_chat(chat_id) is None
    assert await storage.list_messages(chat_id) == []
    assert await storage.list_summaries(chat_id) == []
    assert not await storage.delete_chat(chat_id)
    # The id is free again and starts empty.
    await storage.create_chat(chat_id)
    state = await storage.load_state(chat_id)
    assert state.messages == () and state.summaries == ()
    assert state.chat.message_count == 0


# -- messages ------------------------------------------------------------------------------


async def test_every_message_field_round_trips(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage)
    sent = every_field_messages()
    stored = await storage.append_messages(chat_id, sent)
    assert [s.sequence for s in stored] == list(range(1, len(sent) + 1))
    loaded = await storage.list_messages(chat_id)
    assert [s.message for s in loaded] == sent
    assert [s.sequence for s in loaded] == [s.sequence for s in stored]
    # Naive stays naive, an offset is kept as given.
    assert loaded[1].message.timestamp == datetime(2024, 2, 29, 23, 59, 58, 123456)
    assert loaded[1].message.timestamp.tzinfo is None
    stamp = loaded[2].message.timestamp
    assert stamp is not None and stamp.utcoffset() == timedelta(hours=5, minutes=30)
    assert len(loaded[4].message.content) == 2_000_000


async def test_sequences_are_gapless_and_paged(storage: ChatStorage) -> None:
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


async def test_unknown_chat(storage: ChatStorage) -> None:
    with pytest.raises(NotFoundError, match="no chat with id 'nope'"):
        await storage.load_state("nope")
    with pytest.raises(NotFoundError):
        await storage.append_messages("nope", [user("hi")])
    assert await storage.list_messages("nope") == []


# -- smart loading -------------------------------------------------------------------------


async def test_without_summary_everything_loads(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 30)
    state = await storage.load_state(chat_id)
    assert state.summaries == ()
    assert [s.sequence for s in state.messages] == list(range(1, 31))


async def test_with_summary_only_the_tail_loads(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 30)
    await summarize(storage, chat_id, "the first 26 messages", last=26)
    state = await storage.load_state(chat_id)
    assert state.latest_summary is not None
    assert state.latest_summary.summary_text == "the first 26 messages"
    assert [s.sequence for s in state.messages] == [27, 28, 29, 30]
    wider = await storage.load_state(chat_id, tail=10)
    assert [s.sequence for s in wider.messages] == list(range(21, 31))
    assert [s.sequence for s in (await storage.load_state(chat_id, tail=0)).messages] == [
        27,
        28,
        29,
        30,
    ]


async def test_unsummarized_messages_always_load(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 30)
    await summarize(storage, chat_id, "the first 10", last=10)
    state = await storage.load_state(chat_id)
    assert [s.sequence for s in state.messages] == list(range(11, 31))


async def test_smart_load_tail_is_configurable(backend) -> None:  # type: ignore[no-untyped-def]
    storage = resolve_storage(StorageConfig(url=backend.url, smart_load_tail=2))
    try:
        chat_id = await new_chat(storage, 12)
        await summarize(storage, chat_id, "all", last=12)
        state = await storage.load_state(chat_id)
        assert [s.sequence for s in state.messages] == [11, 12]
        with pytest.raises(UsageError):
            await storage.load_state(chat_id, tail=-1)
    finally:
        await storage.close()


# -- commit_turn ---------------------------------------------------------------------------


async def test_commit_turn_writes_everything_at_once(storage: ChatStorage) -> None:
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
            new_messages=[user("and tomorrow?"), assistant("sunny")],
            summaries=(row,),
            title="Weather in Zürich",
            last_summarized_sequence=6,
            expected_summary_version=state.chat.summary_version,
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


@pytest.mark.parametrize("with_llm", [True, False], ids=["llm", "offline"])
async def test_title_from_the_summary_lands_in_the_same_commit(
    storage: ChatStorage, with_llm: bool
) -> None:
    llm = ScriptedLLM().enqueue("Kyoto in Spring") if with_llm else None
    chat_id = await new_chat(storage, 4)
    state = await storage.load_state(chat_id)
    summary = ConversationSummary(topics=("Kyoto trip",), narrative="Planning Kyoto in April.")
    title = await generate_title(llm, summary, current=state.chat.title)
    result = await storage.commit_turn(
        TurnCommit(
            chat_id,
            summaries=(SummaryRow(chat_id, summary.to_json(), format="json"),),
            title=title,
            last_summarized_sequence=2,
            expected_summary_version=state.chat.summary_version,
        )
    )
    expected = "Kyoto in Spring" if llm else "Kyoto trip"
    assert result.chat.title == expected
    stored = await storage.get_chat(chat_id)
    assert stored is not None and stored.title == expected
    (row,) = await storage.list_summaries(chat_id)
    assert ConversationSummary.parse(row.summary_text) == summary


async def test_replacing_a_row_bumps_its_version(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 8)
    first = await summarize(storage, chat_id, "v1", last=4)
    second = await summarize(storage, chat_id, "v2", last=6)
    assert (second.id, second.sequence, second.version) == (first.id, 1, 2)
    assert second.created_at == first.created_at
    assert second.updated_at is not None and first.updated_at is not None
    assert second.updated_at >= first.updated_at
    assert [r.summary_text for r in await storage.list_summaries(chat_id)] == ["v2"]


async def test_stale_summary_is_refused_and_nothing_is_written(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 8)
    stale = await storage.load_state(chat_id)
    await summarize(storage, chat_id, "newer summary", last=6)
    before = await storage.get_chat(chat_id)
    with pytest.raises(ConflictError, match="plan again"):
        await storage.commit_turn(
            TurnCommit(
                chat_id,
                new_messages=[user("lost with the turn")],
                summaries=(SummaryRow(chat_id, "older summary"),),
                title="stale title",
                last_summarized_sequence=4,
                expected_summary_version=stale.chat.summary_version,
            )
        )
    assert await storage.get_chat(chat_id) == before
    assert [r.summary_text for r in await storage.list_summaries(chat_id)] == ["newer summary"]
    assert len(await storage.list_messages(chat_id)) == 8


async def test_bookkeeping_never_moves_back(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 8)
    await summarize(storage, chat_id, "up to 6", last=6)
    with pytest.raises(ConflictError, match="already summarized"):
        await storage.commit_turn(TurnCommit(chat_id, last_summarized_sequence=3))
    with pytest.raises(UsageError, match="past the last message"):
        await storage.commit_turn(TurnCommit(chat_id, last_summarized_sequence=9))
    with pytest.raises(UsageError, match="summary row of chat 'other'"):
        await storage.commit_turn(TurnCommit(chat_id, summaries=(SummaryRow("other", "x"),)))


async def test_messages_only_commit_ignores_the_summary_version(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 2)
    await summarize(storage, chat_id, "s", last=2)
    result = await storage.commit_turn(
        TurnCommit(chat_id, new_messages=[user("hi")], expected_summary_version=0)
    )
    assert result.chat.message_count == 3 and result.chat.summary_version == 1


async def test_failure_mid_commit_writes_nothing(storage: ChatStorage) -> None:
    chat_id = await new_chat(storage, 4)
    good = await summarize(storage, chat_id, "kept", last=2)
    before = await storage.load_state(chat_id)
    assert good.id is not None
    missing = replace(good, id=good.id + 1000, summary_text="to a missing row")
    with pytest.raises(NotFoundError, match=f"no summary row with id {good.id + 1000}"):
        await storage.commit_turn(
            TurnCommit(
                chat_id,
                new_messages=[user("first"), assistant("second")],
                summaries=(replace(good, summary_text="changed"), missing),
                title="never",
                last_summarized_sequence=4,
                expected_summary_version=before.chat.summary_version,
            )
        )
    assert await storage.load_state(chat_id) == before


# -- summary rows (seed 002) ---------------------------------------------------------------


async def test_summary_chain_operations(storage: ChatStorage) -> None:
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


# -- the recall index's watermark --------------------------------------------------------------


async def test_index_watermark_moves_up_only_and_never_past_the_messages(
    storage: ChatStorage,
) -> None:
    await storage.create_chat("w")
    await storage.append_messages("w", [user(f"m{i}") for i in range(5)])
    chat = await storage.get_chat("w")
    assert chat is not None and chat.indexed_sequence == 0 and chat.index_lag == 5
    await storage.mark_indexed("w", 3)
    await storage.mark_indexed("w", 2)  # a slower run that finished later: ignored
    chat = await storage.get_chat("w")
    assert chat is not None and chat.indexed_sequence == 3 and chat.index_lag == 2
    await storage.mark_indexed("w", 99)
    chat = await storage.get_chat("w")
    assert chat is not None and chat.indexed_sequence == 5 and chat.index_lag == 0


async def test_many_watermarks_move_in_one_call(storage: ChatStorage) -> None:
    for name in ("x", "y"):
        await storage.create_chat(name)
        await storage.append_messages(name, [user(f"m{i}") for i in range(4)])
    await storage.mark_indexed("y", 3)
    await storage.mark_indexed_many({"x": 2, "y": 1, "gone": 7})  # y never moves down
    found = {chat.id: chat.indexed_sequence for chat in await storage.list_chats()}
    assert found == {"x": 2, "y": 3}


async def test_index_backlog_lists_lagging_chats_oldest_first_and_reset_restarts(
    storage: ChatStorage,
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


# -- idempotent appends ---------------------------------------------------------------------


async def test_an_append_retried_with_the_same_message_ids_stores_nothing_twice(
    storage: ChatStorage,
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
    assert [m.message.content for m in await storage.list_messages("r")] == [
        "book the train",
        "booked",
    ]
