"""The LangGraph memory node inside a real compiled graph with LangGraph's checkpointer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from longtalk import AsyncMemory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.integrations.langgraph import ContextState, MemoryNode
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
        storage=StorageConfig(sqlite_path=tmp_path / "graph.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


async def test_the_node_stores_each_message_once_and_bounds_the_model_input(
    tmp_path: Path,
) -> None:
    seen: list[list[BaseMessage]] = []

    def model(state: ContextState) -> dict[str, Any]:  # the one double: a cloud chat model
        seen.append(state["context"])
        question = state["messages"][-1].text
        return {"messages": [AIMessage(f"Answer {len(seen)}: about {question}")]}

    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        builder = StateGraph(ContextState)
        builder.add_node("remember", MemoryNode(memory))
        builder.add_node("model", model)
        builder.add_edge(START, "remember")
        builder.add_edge("remember", "model")
        graph = builder.compile(checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": "trip", "user_id": "priya"}}
        for day in range(8):
            question = f"What should we do on day {day} in Lisbon?"
            await graph.ainvoke({"messages": [HumanMessage(question)]}, config)

        chat = await memory.get("trip")
        assert chat is not None and chat.user == "priya"
        stored = await chat.messages()
        # each turn's model reply is stored by the next turn's node: 8 questions, 7 replies
        assert len(stored) == 15
        assert [s.message.content for s in stored[:2]] == [
            "What should we do on day 0 in Lisbon?",
            "Answer 1: about What should we do on day 0 in Lisbon?",
        ]
        assert len({s.message.id for s in stored}) == 15  # each message once

        first, last = seen[0], seen[-1]
        assert [m.text for m in first] == ["What should we do on day 0 in Lisbon?"]
        assert isinstance(last[0], SystemMessage)
        assert "Summary of the conversation so far" in last[0].text
        assert last[-1].text == "What should we do on day 7 in Lisbon?"
        state = await graph.aget_state(config)
        assert len(last) < len(state.values["messages"]) == 16


async def test_a_thread_id_is_required(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        node = MemoryNode(memory)
        with pytest.raises(UsageError, match="thread_id"):
            await node({"messages": [HumanMessage("hi")]}, {"configurable": {}})
