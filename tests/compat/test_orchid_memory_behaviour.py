"""Conformance of Orchid's running-summary and RAG memories on longtalk's real parts.

The summary is kept in longtalk's SQLite storage (``LongtalkChatStorage``); recalled turns
come from a ``MemoryEngine`` over SQLite, a Qdrant Edge shard on disk and the hashing
embedder (``LongtalkTurnStore``). Only the chat model is scripted: an object speaking
Orchid's seam (``await model.ainvoke(messages, **kwargs)`` answering ``.content``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from longtalk.compat.orchid import (
    LongtalkChatStorage,
    LongtalkTurnStore,
    OrchidAgent,
    OrchidConversationSummary,
    OrchidInMemoryConversationMemory,
    OrchidRAGConversationMemory,
    OrchidRAGScope,
)
from longtalk.config import MemoryConfig
from longtalk.core.messages import Role
from longtalk.embed.hashing import HashingEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.sqlite import SqliteStorage
from longtalk.vectors.base import NullVectorReader
from longtalk.vectors.qdrant_edge import QdrantEdgeStore


@dataclass
class Answer:
    content: str


@dataclass
class ScriptedChatModel:
    """Answers each ``ainvoke`` with the next scripted reply (an exception is raised)."""

    replies: list[str | BaseException]
    calls: list[list[dict[str, str]]] = field(default_factory=list)

    async def ainvoke(self, messages: list[dict[str, str]], **kwargs: Any) -> Answer:
        self.calls.append(list(messages))
        assert self.replies, "the chat model was called more often than scripted"
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return Answer(reply)

    def prompt(self, call: int = -1) -> str:
        return "\n".join(m["content"] for m in self.calls[call])


def turn(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}


FIRST_BATCH = [turn("user", "I am Ann from Porto"), turn("assistant", "Hello Ann")]
SECOND_BATCH = [turn("user", "Book me a hotel in Lisbon"), turn("assistant", "Booked Hotel Sol")]


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    storage = SqliteStorage(tmp_path / "chats.db")
    yield storage
    await storage.close()


# --- the running-summary memory ---------------------------------------------------------------


async def test_a_narrative_summary_is_stored_and_survives_a_reopen(
    sqlite: SqliteStorage, tmp_path: Path
) -> None:
    model = ScriptedChatModel(["Ann from Porto said hello."])
    memory = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite), model, structured_output=False
    )
    assert await memory.get_running_summary("chat-1") is None
    returned = await memory.update_running_summary("chat-1", FIRST_BATCH, None)
    assert returned == "Ann from Porto said hello."
    assert "User: I am Ann from Porto\nAssistant: Hello Ann" in model.prompt()
    await sqlite.close()
    reopened = SqliteStorage(tmp_path / "chats.db")
    try:
        again = OrchidInMemoryConversationMemory(
            LongtalkChatStorage(reopened), ScriptedChatModel([]), structured_output=False
        )
        assert await again.get_running_summary("chat-1") == "Ann from Porto said hello."
        (row,) = await reopened.list_summaries("chat-1")
        assert row.format == "text"
    finally:
        await reopened.close()


async def test_each_extension_sends_the_stored_summary_and_only_the_new_messages(
    sqlite: SqliteStorage,
) -> None:
    model = ScriptedChatModel(["SUMMARY-ONE", "SUMMARY-TWO"])
    memory = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite), model, structured_output=False
    )
    first = await memory.update_running_summary("c", FIRST_BATCH, None)
    second = await memory.update_running_summary("c", SECOND_BATCH, first)
    assert second == "SUMMARY-TWO"
    extension = model.prompt()
    assert "SUMMARY-ONE" in extension
    assert "Hotel Sol" in extension and "Lisbon" in extension
    assert "Porto" not in extension  # the first batch is known only through the summary
    assert "existing summary" in extension.lower()
    assert await memory.get_running_summary("c") == "SUMMARY-TWO"
    assert len(await sqlite.list_summaries("c")) == 1  # one summary per chat, updated


async def test_nothing_new_means_no_call_and_the_summary_as_it_was(sqlite: SqliteStorage) -> None:
    model = ScriptedChatModel([])
    memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(sqlite), model)
    assert await memory.update_running_summary("c", [], "kept") == "kept"
    assert await memory.update_running_summary("c", [], None) == ""
    assert model.calls == []


@pytest.mark.parametrize(
    "failure", [ConnectionError("reset"), TimeoutError(), RuntimeError("x"), KeyError("k"), ""]
)
async def test_a_failing_model_keeps_the_stored_summary(
    sqlite: SqliteStorage, failure: BaseException | str
) -> None:
    model = ScriptedChatModel(["Ann from Porto.", failure])
    memory = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite), model, structured_output=False
    )
    first = await memory.update_running_summary("c", FIRST_BATCH, None)
    assert await memory.update_running_summary("c", SECOND_BATCH, first) == "Ann from Porto."
    assert await memory.get_running_summary("c") == "Ann from Porto."


async def test_a_failure_before_any_summary_stores_nothing(sqlite: SqliteStorage) -> None:
    memory = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite), ScriptedChatModel([TimeoutError()])
    )
    assert await memory.update_running_summary("c", FIRST_BATCH, None) == ""
    assert await memory.get_running_summary("c") is None


async def test_a_structured_summary_is_stored_as_json(sqlite: SqliteStorage) -> None:
    answer = {
        "topics": ["introductions"],
        "entities": [{"name": "Ann", "type": "person", "details": "from Porto"}],
        "narrative": "Ann introduced herself.",
        "covered_turns": 1,
    }
    model = ScriptedChatModel([json.dumps(answer)])
    memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(sqlite), model)
    stored = await memory.update_running_summary("c", FIRST_BATCH, None)
    summary = OrchidConversationSummary.from_json(stored)
    assert summary is not None
    assert summary.topics == ["introductions"] and summary.narrative == "Ann introduced herself."
    assert summary.to_context_string().endswith("Summary: Ann introduced herself.")
    (row,) = await sqlite.list_summaries("c")
    assert row.format == "json"
    assert "JSON" in model.calls[0][0]["content"]  # the structured system prompt


async def test_structured_updates_merge_entities_across_turns(sqlite: SqliteStorage) -> None:
    first = {
        "topics": ["travel"],
        "entities": [{"name": "Ann", "type": "other", "details": "from Porto"}],
        "narrative": "Ann is from Porto.",
        "covered_turns": 2,
    }
    second = {
        "topics": ["travel", "hotels"],
        "entities": [
            {"name": "ann", "type": "person", "details": "staying at Hotel Sol"},
            {"name": "Hotel Sol", "type": "place", "details": "Lisbon"},
        ],
        "narrative": "Ann booked Hotel Sol.",
        "covered_turns": 2,
    }
    model = ScriptedChatModel([json.dumps(first), json.dumps(second)])
    memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(sqlite), model)
    stored = await memory.update_running_summary("c", FIRST_BATCH, None)
    stored = await memory.update_running_summary("c", SECOND_BATCH, stored)
    merged = OrchidConversationSummary.from_json(await memory.get_running_summary("c") or "")
    assert merged is not None
    assert merged.topics == ["travel", "hotels"]
    ann = [e for e in merged.entities if e.name.lower() == "ann"]
    assert len(ann) == 1
    assert ann[0].type == "person"
    assert "from Porto" in ann[0].details and "Hotel Sol" in ann[0].details
    assert any(e.name == "Hotel Sol" for e in merged.entities)
    assert merged.narrative == "Ann booked Hotel Sol."
    assert "Ann is from Porto." in model.prompt()  # the extension saw the stored summary


async def test_a_structured_answer_that_is_not_json_is_kept_as_narrative(
    sqlite: SqliteStorage,
) -> None:
    model = ScriptedChatModel(["Ann from Porto greeted the assistant."])
    memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(sqlite), model)
    stored = await memory.update_running_summary("c", FIRST_BATCH, None)
    assert stored == "Ann from Porto greeted the assistant."
    assert OrchidConversationSummary.from_json(stored) is None
    narrative_only = OrchidConversationSummary.from_string_or_json(stored)
    assert narrative_only.to_context_string() == "Summary: Ann from Porto greeted the assistant."
    (row,) = await sqlite.list_summaries("c")
    assert row.format == "text"


async def test_the_plain_memory_recalls_nothing(sqlite: SqliteStorage) -> None:
    memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(sqlite), ScriptedChatModel([]))
    await memory.store_conversation_turn("c", "t", "u", turn("user", "remember this"))
    assert await memory.get_relevant_history("remember", "c") == []


async def test_summaries_are_kept_per_tenant(sqlite: SqliteStorage) -> None:
    model = ScriptedChatModel(["for tenant a"])
    tenant_a = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite, tenant="a"), model, structured_output=False
    )
    tenant_b = OrchidInMemoryConversationMemory(
        LongtalkChatStorage(sqlite, tenant="b"), model, structured_output=False
    )
    await tenant_a.update_running_summary("shared-id", FIRST_BATCH, None)
    assert await tenant_a.get_running_summary("shared-id") == "for tenant a"
    assert await tenant_b.get_running_summary("shared-id") is None


# --- the RAG memory ---------------------------------------------------------------------------

PAST_TURNS = [
    turn("user", "My dog Biscuit is a golden retriever who loves swimming."),
    turn("assistant", "Golden retrievers like Biscuit usually enjoy lakes."),
    turn("user", "I am renovating the kitchen with oak cabinets."),
    turn("assistant", "Oak cabinets pair well with granite counters."),
    turn("user", "What is the capital of Mongolia?"),
    turn("assistant", "Ulaanbaatar is the capital of Mongolia."),
]


@dataclass
class RagParts:
    engine: MemoryEngine
    memory: OrchidRAGConversationMemory
    model: ScriptedChatModel


@pytest.fixture
async def rag(tmp_path: Path, sqlite: SqliteStorage) -> AsyncIterator[RagParts]:
    store = QdrantEdgeStore(tmp_path / "vectors")
    engine = MemoryEngine(
        sqlite,
        config=MemoryConfig(strategy="rag_augmented"),
        recall=HybridRetriever(store, HashingEmbedder()),
    )
    turns = LongtalkTurnStore(engine)
    model = ScriptedChatModel([])
    memory = OrchidRAGConversationMemory(
        LongtalkChatStorage(sqlite), model, turns, turns, structured_output=False
    )
    yield RagParts(engine, memory, model)
    await store.close()


async def store_past_turns(memory: OrchidRAGConversationMemory, chat_id: str = "c") -> None:
    for index, past in enumerate(PAST_TURNS):
        await memory.store_conversation_turn(chat_id, "acme", "ann", past, {"turn_index": index})


async def test_stored_turns_become_messages_of_the_chat_with_their_metadata(
    rag: RagParts,
) -> None:
    await store_past_turns(rag.memory)
    await rag.memory.store_conversation_turn("c", "acme", "ann", turn("user", "   "))
    chat = await rag.engine.storage.get_chat("c", tenant="acme")
    assert chat is not None and chat.user == "ann"
    stored = await rag.engine.storage.list_messages("c")
    assert [s.message.content for s in stored] == [t["content"] for t in PAST_TURNS]
    assert [s.message.role for s in stored] == [Role.USER, Role.ASSISTANT] * 3
    assert [s.message.metadata["turn_index"] for s in stored] == list(range(6))


async def test_retrieval_returns_the_relevant_turns_above_the_threshold(rag: RagParts) -> None:
    await store_past_turns(rag.memory)
    found = await rag.memory.get_relevant_history(
        "kitchen oak cabinets", "c", k=5, tenant_id="acme", user_id="ann", similarity_threshold=0.3
    )
    assert {f["content"] for f in found} == {PAST_TURNS[2]["content"], PAST_TURNS[3]["content"]}
    assert all(f["score"] >= 0.3 and f["role"] == "assistant" for f in found)


async def test_retrieval_returns_at_most_k_turns(rag: RagParts) -> None:
    await store_past_turns(rag.memory)
    for k in (1, 2, 4):
        found = await rag.memory.get_relevant_history(
            "Biscuit the golden retriever", "c", k=k, tenant_id="acme", similarity_threshold=0.0
        )
        assert len(found) == k
    (best,) = await rag.memory.get_relevant_history(
        "Biscuit the golden retriever", "c", k=1, tenant_id="acme", similarity_threshold=0.0
    )
    assert "Biscuit" in best["content"]


async def test_a_threshold_above_every_score_recalls_nothing(rag: RagParts) -> None:
    await store_past_turns(rag.memory)
    found = await rag.memory.get_relevant_history(
        "kitchen oak cabinets", "c", tenant_id="acme", similarity_threshold=0.99
    )
    assert found == []


@pytest.mark.parametrize(("tenant", "user"), [("other", "ann"), ("acme", "bob")])
async def test_retrieval_is_scoped_to_the_chats_tenant_and_user(
    rag: RagParts, tenant: str, user: str
) -> None:
    await store_past_turns(rag.memory)
    found = await rag.memory.get_relevant_history(
        "Biscuit", "c", tenant_id=tenant, user_id=user, similarity_threshold=0.0
    )
    assert found == []


async def test_recalled_turns_already_shown_verbatim_are_dropped(rag: RagParts) -> None:
    await store_past_turns(rag.memory)
    recent = [PAST_TURNS[2], PAST_TURNS[3]]
    merged = await rag.memory.get_relevant_history_merged(
        "oak cabinets in the kitchen", "c", recent, tenant_id="acme", similarity_threshold=0.0
    )
    assert merged[-2:] == recent
    contents = [m["content"] for m in merged]
    assert contents.count(PAST_TURNS[2]["content"]) == 1
    assert contents.count(PAST_TURNS[3]["content"]) == 1
    assert len(merged) > 2  # other turns were recalled in front


async def test_final_context_is_recalled_turns_then_summary_then_recent(rag: RagParts) -> None:
    """End to end: store turns, compress the history, put recalled turns in front."""
    await store_past_turns(rag.memory)
    history = [*PAST_TURNS, turn("user", "Any tips for the new kitchen?"), turn("assistant", "Yes")]
    compressed = await OrchidAgent.compress_conversation_history(
        history,
        chat_model=ScriptedChatModel(["Ann talked about Biscuit, oak and Mongolia."]),
        recent_turns=1,
    )
    merged = await rag.memory.get_relevant_history_merged(
        "oak cabinets kitchen",
        "c",
        compressed,
        tenant_id="acme",
        user_id="ann",
        k=2,
        similarity_threshold=0.3,
    )
    summary_at = next(i for i, m in enumerate(merged) if m["content"].startswith("[Conversation"))
    recalled, rest = merged[:summary_at], merged[summary_at:]
    assert rest == compressed
    assert recalled and all("ak cabinets" in m["content"] for m in recalled)
    assert all(set(m) == {"role", "content"} for m in merged)


class FailingVectors:
    """Orchid's reader and writer whose backend is down."""

    async def retrieve(self, **kwargs: Any) -> list[Any]:
        raise ConnectionError("vector store unreachable")

    async def upsert(self, **kwargs: Any) -> None:
        raise ConnectionError("vector store unreachable")


async def test_an_unreachable_vector_store_degrades_to_no_recall(sqlite: SqliteStorage) -> None:
    vectors = FailingVectors()
    memory = OrchidRAGConversationMemory(
        LongtalkChatStorage(sqlite), ScriptedChatModel(["S"]), vectors, vectors
    )
    await memory.store_conversation_turn("c", "t", "u", PAST_TURNS[0])  # no exception
    assert await memory.get_relevant_history("Biscuit", "c") == []
    recent = [turn("user", "hi")]
    assert await memory.get_relevant_history_merged("Biscuit", "c", recent) == recent


async def test_a_null_vector_reader_behaves_like_running_summary(sqlite: SqliteStorage) -> None:
    engine = MemoryEngine(
        sqlite, config=MemoryConfig(strategy="rag_augmented"), recall=NullVectorReader()
    )
    turns = LongtalkTurnStore(engine)
    model = ScriptedChatModel(["Ann said hello."])
    memory = OrchidRAGConversationMemory(
        LongtalkChatStorage(sqlite, tenant="acme"), model, turns, turns, structured_output=False
    )
    await store_past_turns(memory)
    assert len(await sqlite.list_messages("c")) == len(PAST_TURNS)  # still stored
    assert await memory.get_relevant_history("Biscuit", "c", similarity_threshold=0.0) == []
    recent = PAST_TURNS[-2:]
    assert await memory.get_relevant_history_merged("Biscuit", "c", recent) == recent
    assert await memory.update_running_summary("c", FIRST_BATCH, None) == "Ann said hello."
    assert await memory.get_running_summary("c") == "Ann said hello."


async def test_the_turn_store_answers_orchid_search_results(rag: RagParts) -> None:
    await store_past_turns(rag.memory)
    scope = OrchidRAGScope(tenant_id="acme", user_id="ann", chat_id="c")
    results = await LongtalkTurnStore(rag.engine).retrieve(
        query="capital of Mongolia", namespace="__memory__", k=2, scope=scope
    )
    assert len(results) == 2
    best = results[0]
    assert best.document.page_content == "Ulaanbaatar is the capital of Mongolia."
    assert best.score == max(r.score for r in results) and best.score > 0.5
    assert best.document.metadata["chat_id"] == "c"
    assert best.document.metadata["turn_role"] == "assistant"
    assert best.document.metadata["turn_index"] == 5  # the stored turn's own metadata
