"""The shipped storage suites, run against every backend (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import pytest

from longtalk.storage import (
    ChatStorage,
    RecordUpdate,
    StorageConfig,
    SummaryRow,
    SummaryUpdate,
    TurnCommit,
    resolve_storage,
)
from longtalk.summary.model import ConversationSummary
from longtalk.summary.title import generate_title
from longtalk.testing import (
    ChatStoreConformance,
    IndexOutboxConformance,
    ScriptedLLM,
    SummaryStoreConformance,
)
from longtalk.testing.storage_suite import new_chat, summarize


class TestChatStore(ChatStoreConformance):
    """Chats and messages, on the ``storage`` fixture of this folder (every backend)."""


class TestSummaryStore(SummaryStoreConformance):
    """Summary rows, on every backend."""


class TestIndexOutbox(IndexOutboxConformance):
    """The recall index's watermarks, on every backend."""


async def test_smart_load_tail_is_configurable(backend) -> None:  # type: ignore[no-untyped-def]
    storage = resolve_storage(StorageConfig(url=backend.url, smart_load_tail=2))
    try:
        chat_id = await new_chat(storage, 12)
        await summarize(storage, chat_id, "all", last=12)
        state = await storage.load_state(chat_id)
        assert [s.sequence for s in state.messages] == [11, 12]
    finally:
        await storage.close()


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
            summary=SummaryUpdate(
                rows=(SummaryRow(chat_id, summary.to_json(), format="json"),),
                last_summarized_sequence=2,
                expected_version=state.chat.summary_version,
            ),
            record=RecordUpdate(title=title),
        )
    )
    expected = "Kyoto in Spring" if llm else "Kyoto trip"
    assert result.chat.title == expected
    stored = await storage.get_chat(chat_id)
    assert stored is not None and stored.title == expected
    (row,) = await storage.list_summaries(chat_id)
    assert ConversationSummary.parse(row.summary_text) == summary
