"""The LangChain chat history on the real embedded stack, driven by LangChain's own runnables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from longtalk import AsyncMemory, Memory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.integrations.langchain import LongtalkChatMessageHistory
from longtalk.storage.config import StorageConfig


def settings(tmp_path: Path) -> Settings:
    memory = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=1,
        summary_trigger_tokens=30,
        context_max_tokens=150,
    )
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(sqlite_path=tmp_path / "lc.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


def test_messages_round_trip_and_clear(tmp_path: Path) -> None:
    sent: list[BaseMessage] = [
        HumanMessage("What's the weather in Lisbon?", id="m1"),
        AIMessage(
            "",
            id="m2",
            tool_calls=[{"name": "weather", "args": {"city": "Lisbon"}, "id": "call-1"}],
        ),
        ToolMessage("22 °C, sunny", tool_call_id="call-1", id="m3"),
        AIMessage("Sunny, 22 °C.", id="m4"),
    ]
    with Memory(settings(tmp_path), summarize="inline") as memory:
        history = LongtalkChatMessageHistory(memory, "weather", user="priya", view="all")
        history.add_messages(sent)
        history.add_messages(sent[:1])  # same id: stored once
        got = history.messages
        assert [(m.type, m.content, m.id) for m in got] == [(m.type, m.content, m.id) for m in sent]
        assert isinstance(got[1], AIMessage) and got[1].tool_calls[0]["args"] == {"city": "Lisbon"}
        assert isinstance(got[2], ToolMessage) and got[2].tool_call_id == "call-1"
        chat = memory.get("weather")
        assert chat is not None and chat.user == "priya"

        history.clear()
        assert memory.get("weather") is None
        assert history.messages == []


def test_the_context_view_is_bounded(tmp_path: Path) -> None:
    with Memory(settings(tmp_path), summarize="inline") as memory:
        history = LongtalkChatMessageHistory(memory, "long")
        for day in range(8):
            history.add_user_message(f"Plan day {day} of the Lisbon trip, please.")
            history.add_ai_message(f"Day {day}: Alfama in the morning, Belém after lunch.")
        bounded = history.messages
        everything = LongtalkChatMessageHistory(memory, "long", view="all").messages
    assert len(everything) == 16
    assert isinstance(bounded[0], SystemMessage)
    assert "Summary of the conversation so far" in bounded[0].text
    assert len(bounded) < len(everything)
    assert [m.text for m in bounded[1:]] == [m.text for m in everything[-(len(bounded) - 1) :]]


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
async def test_runnable_with_message_history(tmp_path: Path) -> None:
    seen: list[list[BaseMessage]] = []

    def model(prompt: PromptValue) -> AIMessage:  # the one double: a cloud chat model
        messages = prompt.to_messages()
        seen.append(messages)
        return AIMessage(f"Answer {len(seen)} to: {messages[-1].text}")

    prompt = ChatPromptTemplate.from_messages(
        [("system", "You plan trips."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:

        def history_for(session_id: str) -> LongtalkChatMessageHistory:
            return LongtalkChatMessageHistory(memory, session_id, view="all")

        chain = RunnableWithMessageHistory(
            prompt | RunnableLambda(model),
            history_for,
            input_messages_key="question",
            history_messages_key="history",
        )
        config: Any = {"configurable": {"session_id": "trip"}}
        await chain.ainvoke({"question": "Where should I stay?"}, config=config)
        await chain.ainvoke({"question": "And for dinner?"}, config=config)

        assert [m.type for m in seen[1]] == ["system", "human", "ai", "human"]
        assert seen[1][1].text == "Where should I stay?"
        assert seen[1][2].text == "Answer 1 to: Where should I stay?"
        stored = await (await memory.chat("trip")).messages()
        assert [s.message.content for s in stored] == [
            "Where should I stay?",
            "Answer 1 to: Where should I stay?",
            "And for dinner?",
            "Answer 2 to: And for dinner?",
        ]
        with pytest.raises(UsageError, match="use the async methods"):
            _ = history_for("trip").messages
