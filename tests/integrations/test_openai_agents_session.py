"""The Agents SDK session, used by the SDK's own Runner.

The model is the SDK's chat-completions model talking HTTP to a scripted
chat-completions server on 127.0.0.1 (the cloud API is the one thing that cannot run here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, function_tool
from llm_wire import Reply, ScriptedServer
from openai import AsyncOpenAI

from longtalk import AsyncMemory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.integrations.openai_agents import LongtalkSession
from longtalk.storage.config import StorageConfig

RUN = RunConfig(tracing_disabled=True)


def settings(tmp_path: Path) -> Settings:
    memory = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=1,
        summary_trigger_tokens=30,
        context_max_tokens=150,
    )
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(sqlite_path=tmp_path / "agents.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


def answer(message: dict[str, Any], finish: str = "stop") -> Reply:
    return Reply(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
    )


def text(content: str) -> Reply:
    return answer({"role": "assistant", "content": content})


def agent(server: ScriptedServer, **kwargs: Any) -> Agent[Any]:
    client = AsyncOpenAI(base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-test", openai_client=client)
    return Agent(name="planner", instructions="You plan trips.", model=model, **kwargs)


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"22 °C and sunny in {city}"


async def test_the_runner_keeps_history_in_longtalk(tmp_path: Path, server: ScriptedServer) -> None:
    server.enqueue(text("Stay in Alfama."), text("Try the seafood in Cais do Sodré."))
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        session = LongtalkSession("trip", memory, user="priya", view="all")
        await Runner.run(agent(server), "Where should I stay?", session=session, run_config=RUN)
        await Runner.run(agent(server), "And for dinner?", session=session, run_config=RUN)

        second = server.requests[1].body["messages"]
        assert [(m["role"], m["content"]) for m in second] == [
            ("system", "You plan trips."),
            ("user", "Where should I stay?"),
            ("assistant", "Stay in Alfama."),
            ("user", "And for dinner?"),
        ]
        items = await session.get_items()
        assert [item["role"] for item in items] == ["user", "assistant", "user", "assistant"]
        assert await session.get_items(limit=1) == items[-1:]
        chat = await memory.get("trip")
        assert chat is not None and chat.user == "priya"

        with pytest.raises(UsageError, match="append-only"):
            await session.pop_item()
        await session.clear_session()
        assert await memory.get("trip") is None
        assert await session.get_items() == []


async def test_function_calls_round_trip(tmp_path: Path, server: ScriptedServer) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather", "arguments": json.dumps({"city": "Lisbon"})},
    }
    server.enqueue(
        answer({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"),
        text("Sunny, 22 °C."),
        text("Pack sunscreen."),
    )
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        session = LongtalkSession("weather", memory)
        run = agent(server, tools=[weather])
        await Runner.run(run, "Weather in Lisbon?", session=session, run_config=RUN)
        stored = await LongtalkSession("weather", memory, view="all").get_items()
        kinds = [item.get("type", item.get("role")) for item in stored]
        assert kinds == ["user", "function_call", "function_call_output", "message"]
        assert stored[1]["call_id"] == "call_1"
        assert stored[2]["output"] == "22 °C and sunny in Lisbon"

        await Runner.run(run, "What should I pack?", session=session, run_config=RUN)
        third = server.requests[2].body["messages"]
        replayed = next(m for m in third if m.get("tool_calls"))
        assert replayed["tool_calls"][0]["id"] == "call_1"
        tool_reply = next(m for m in third if m["role"] == "tool")
        assert tool_reply == {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "22 °C and sunny in Lisbon",
        }


async def test_the_context_view_is_bounded(tmp_path: Path, server: ScriptedServer) -> None:
    async with AsyncMemory(settings(tmp_path), summarize="inline") as memory:
        session = LongtalkSession("long", memory)
        for day in range(8):
            await session.add_items(
                [
                    {"role": "user", "content": f"Plan day {day} of the Lisbon trip."},
                    {"role": "assistant", "content": f"Day {day}: Alfama, then Belém."},
                ]
            )
        everything = await LongtalkSession("long", memory, view="all").get_items()
        bounded = await session.get_items()
    assert len(everything) == 16
    assert bounded[0]["role"] == "system"
    assert "Summary of the conversation so far" in str(bounded[0]["content"])
    assert bounded[1:] == everything[-(len(bounded) - 1) :]
    assert len(bounded) < len(everything)
