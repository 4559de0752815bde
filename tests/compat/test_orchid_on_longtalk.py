"""The Orchid shims with real LangChain objects and longtalk's real storage.

The chat model is a LangChain ``BaseChatModel`` (answering from a script, since no model
runs here); it receives LangChain's own message conversion of what the shims send.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from longtalk.compat.orchid import (
    LongtalkChatStorage,
    OrchidAgent,
    OrchidInMemoryConversationMemory,
    OrchidTruncationStrategy,
    truncate_content_async,
)
from longtalk.storage.sqlite import SqliteStorage


class ScriptedChatModel(BaseChatModel):
    """A LangChain chat model that answers from a script and records what it was sent."""

    replies: list[str]
    received: list[list[BaseMessage]] = []
    options: list[dict[str, Any]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.received.append(messages)
        self.options.append(kw)
        reply = self.replies.pop(0)
        if reply.startswith("raise:"):
            raise ConnectionError(reply.removeprefix("raise:"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


def history(turns: int) -> list[dict[str, str]]:
    return [
        m
        for i in range(turns)
        for m in (
            {"role": "user", "content": f"Where should Ann stay on day {i}?"},
            {"role": "assistant", "content": f"In Alfama on day {i}."},
        )
    ]


async def test_compression_through_a_langchain_chat_model() -> None:
    model = ScriptedChatModel(replies=["Ann is planning Lisbon, days 0 to 2."])
    result = await OrchidAgent.compress_conversation_history(
        history(5), chat_model=model, recent_turns=2
    )
    assert result[0] == {
        "role": "assistant",
        "content": "[Conversation summary]\nAnn is planning Lisbon, days 0 to 2.",
    }
    assert result[1:] == history(5)[6:]
    sent = model.received[0]
    assert [type(m) for m in sent] == [SystemMessage, HumanMessage]
    assert "day 2" in str(sent[1].content) and "day 3" not in str(sent[1].content)
    assert model.options[0]["temperature"] == 0.0


async def test_compression_falls_back_when_the_langchain_model_fails() -> None:
    model = ScriptedChatModel(replies=["raise:connection reset"])
    result = await OrchidAgent.compress_conversation_history(
        history(4), chat_model=model, recent_turns=1
    )
    assert result == history(4)[-2:]


async def test_llm_truncation_through_a_langchain_chat_model() -> None:
    model = ScriptedChatModel(replies=["Ann stays in Alfama all week."])
    text = "Ann asked many things about Lisbon. " * 20
    short = await truncate_content_async(text, 60, OrchidTruncationStrategy.LLM, chat_model=model)
    assert short == "Ann stays in Alfama all week."


async def test_running_summary_persists_in_longtalk_storage(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "chats.db")
    try:
        model = ScriptedChatModel(
            replies=[
                json.dumps({"topics": ["Lisbon"], "narrative": "Ann plans Lisbon."}),
                json.dumps(
                    {
                        "topics": ["Lisbon", "hotels"],
                        "entities": [{"name": "Ann", "type": "person", "details": "traveller"}],
                        "narrative": "Ann plans Lisbon and looks for hotels.",
                    }
                ),
            ]
        )
        memory = OrchidInMemoryConversationMemory(LongtalkChatStorage(storage), model)
        first = await memory.update_running_summary("chat-1", history(1), None)
        assert json.loads(first)["topics"] == ["Lisbon"]
        stored = await memory.get_running_summary("chat-1")
        assert stored == first
        second = await memory.update_running_summary("chat-1", history(2)[2:], stored)
        # the extension prompt carries the stored summary
        assert "Ann plans Lisbon." in str(model.received[1][-1].content)
        rows = await storage.list_summaries("chat-1")
        assert len(rows) == 1 and rows[0].format == "json" and rows[0].turn_number == 2
        assert rows[0].summary_text == second
        assert json.loads(second)["topics"] == ["Lisbon", "hotels"]
        assert json.loads(second)["entities"][0]["name"] == "Ann"
        assert await memory.get_running_summary("no-such-chat") is None
    finally:
        await storage.close()


async def test_rag_memory_on_longtalk_recall(tmp_path: Path) -> None:
    from longtalk.compat.orchid import LongtalkTurnStore, OrchidRAGConversationMemory
    from longtalk.config import MemoryConfig
    from longtalk.embed.minilm import MiniLMEmbedder
    from longtalk.engine import MemoryEngine
    from longtalk.recall.retriever import HybridRetriever
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    storage = SqliteStorage(tmp_path / "chats.db")
    recall = HybridRetriever(QdrantEdgeStore(tmp_path / "vectors"), MiniLMEmbedder())
    engine = MemoryEngine(storage, config=MemoryConfig(strategy="rag_augmented"), recall=recall)
    turns = LongtalkTurnStore(engine)
    memory = OrchidRAGConversationMemory(
        LongtalkChatStorage(storage), ScriptedChatModel(replies=[]), reader=turns, writer=turns
    )
    try:
        said = [
            ("user", "I adopted a grey kitten last week and named her Miso."),
            ("assistant", "Miso is a lovely name! How old is she?"),
            ("user", "My sister moved to Lisbon to work as a nurse."),
            ("assistant", "Lisbon is beautiful in spring."),
            ("user", "   "),
        ]
        for role, content in said:
            await memory.store_conversation_turn(
                "chat-1", "acme", "u-1", {"role": role, "content": content}, {"device": "phone"}
            )
        stored = await storage.list_messages("chat-1")
        assert [m.message.content for m in stored] == [c for _, c in said[:4]]
        assert all(m.message.metadata == {"device": "phone"} for m in stored)
        chat = await storage.get_chat("chat-1", tenant="acme")
        assert chat is not None and chat.user == "u-1" and chat.indexed_sequence == 4

        found = await memory.get_relevant_history(
            "What is the name of the cat?",
            "chat-1",
            k=2,
            tenant_id="acme",
            user_id="u-1",
            similarity_threshold=0.3,
        )
        assert found and "Miso" in found[0]["content"]
        assert all(t["role"] == "assistant" and t["score"] >= 0.3 for t in found)
        merged = await memory.get_relevant_history_merged(
            "What is the name of the cat?",
            "chat-1",
            [{"role": "user", "content": found[0]["content"]}],
            tenant_id="acme",
            user_id="u-1",
            similarity_threshold=0.3,
        )
        assert [m["content"] for m in merged].count(found[0]["content"]) == 1

        # another tenant, another user, or the wrong namespace recalls nothing
        for tenant, user in (("other", "u-1"), ("acme", "u-2")):
            assert (
                await memory.get_relevant_history(
                    "cat name?", "chat-1", tenant_id=tenant, user_id=user, similarity_threshold=0.0
                )
                == []
            )
        memory.MEMORY_NAMESPACE = "elsewhere"
        assert await memory.get_relevant_history("cat name?", "chat-1", tenant_id="acme") == []
    finally:
        await recall.close()
        await storage.close()


def test_extract_with_a_pipeline_delegates_to_it() -> None:
    from longtalk.compat.orchid import SUPERVISOR_PIPELINE, agent_pipeline

    state = {
        "messages": [
            HumanMessage("Plan Lisbon"),
            AIMessage("[Supervisor] routing to planner"),
            AIMessage("[Planner]\nDay 1: Alfama, Day 2: " + "x" * 80),
            SystemMessage("internal note"),
            HumanMessage("And day 3?"),
        ]
    }
    supervisor = OrchidAgent.extract_conversation_history(state, pipeline=SUPERVISOR_PIPELINE)
    assert supervisor == [
        {"role": "user", "content": "Plan Lisbon"},
        {"role": "assistant", "content": "[Planner]\nDay 1: Alfama, Day 2: " + "x" * 80},
    ]
    agent = OrchidAgent.extract_conversation_history(
        state, pipeline=agent_pipeline(("[Planner]\n",), max_chars=30, max_turns=1)
    )
    assert agent == [
        {"role": "user", "content": "Plan Lisbon"},
        {"role": "assistant", "content": "Day 1: Alfama, Day 2: xxxxxxx…"},
    ]


async def test_structured_compression_of_an_answer_that_is_no_json() -> None:
    model = ScriptedChatModel(replies=["<|im_start|>Ann plans Lisbon.<|im_end|>"])
    result = await OrchidAgent.compress_conversation_history(
        history(3), chat_model=model, recent_turns=1, structured_output=True
    )
    assert result[0]["content"] == "[Conversation summary]\nSummary: Ann plans Lisbon."
    empty = ScriptedChatModel(replies=["<|im_end|>"])
    fallback = await OrchidAgent.compress_conversation_history(
        history(3), chat_model=empty, recent_turns=1, structured_output=True
    )
    assert fallback == history(3)[-2:]
