"""The memory engine end to end through each HTTP backend, over the real wire protocol."""

from __future__ import annotations

import json

import pytest
from llm_wire import Reply, ScriptedServer, Seen

from longtalk.config import LLMConfig, MemoryConfig, Settings, SupervisorConfig
from longtalk.core.messages import assistant, user
from longtalk.factory import open_memory

SUMMARY = {
    "topics": ["trip to Lyon"],
    "entities": [{"name": "Marie", "type": "person", "details": "the user's sister"}],
    "decisions": ["hotel under $150"],
    "narrative": "The user plans a trip to Lyon with Marie.",
    "covered_turns": 2,
}


def answer(seen: Seen) -> tuple[str, bool]:
    """(text, structured) for a request of either protocol."""
    body = seen.body
    structured = "response_format" in body or "format" in body
    text = json.dumps(SUMMARY) if structured else "Trip to Lyon"
    return text, structured


def openai_reply(seen: Seen) -> Reply:
    text, _ = answer(seen)
    choice = {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    return Reply(
        {"model": "m", "choices": [choice], "usage": {"prompt_tokens": 50, "completion_tokens": 20}}
    )


def ollama_reply(seen: Seen) -> Reply:
    text, _ = answer(seen)
    body = {"model": "qwen2.5:3b", "message": {"role": "assistant", "content": text}}
    return Reply(
        body | {"done": True, "done_reason": "stop", "prompt_eval_count": 50, "eval_count": 20}
    )


MUSEUMS = "The Musée des Confluences and the Lumière museum are both good on a wet day."


@pytest.mark.parametrize(
    ("model", "path", "responder"),
    [
        ("openai:m", "/v1", openai_reply),
        ("ollama:qwen2.5:3b", "", ollama_reply),
    ],
)
async def test_engine_summarizes_through_the_backend(
    server: ScriptedServer, model: str, path: str, responder: object
) -> None:
    server.responder = responder  # type: ignore[assignment]
    memory = MemoryConfig(
        strategy="running_summary",
        summary_model=model,
        summary_recent_turns=1,
        summary_trigger_tokens=20,
        persist_summary=False,
        structured_output=True,
    )
    settings = Settings(
        supervisor=SupervisorConfig(memory=memory),
        llm=LLMConfig(base_url=f"{server.url}{path}", max_retries=0),
    )
    turns = [
        [user("I'm planning a trip to Lyon with my sister Marie."), assistant("Lovely, when?")],
        [user("Next month. Find a hotel under $150 please."), assistant("I will look.")],
        [user("Also, I am vegetarian."), assistant("Noted.")],
        *(
            [user(f"What could we do on day {day}, if it rains?"), assistant(MUSEUMS)]
            for day in range(1, 5)
        ),
    ]
    async with open_memory(settings) as engine:
        chat = await engine.create_chat("trip")
        for messages in turns:
            await engine.run_turn(chat.id, messages)
        context = await engine.get_context(chat.id, budget_tokens=150)  # less than the chat
        rows = await engine.storage.list_summaries(chat.id)
    summary_calls = [
        r for r in server.requests if "format" in r.body or "response_format" in r.body
    ]
    assert summary_calls, "the engine never asked the backend for a summary"
    first = summary_calls[0].body
    if model.startswith("ollama"):
        assert first["format"]["type"] == "object"
        assert first["options"]["temperature"] == 0.2
    else:
        assert first["response_format"]["type"] == "json_schema"
    assert first["stream"] is True  # a summary streams, so that a repetition loop can be stopped
    prompt = " ".join(m["content"] for m in first["messages"])
    assert "Lyon" in prompt
    rendered = context.render()
    assert "The user plans a trip to Lyon with Marie." in rendered
    assert "hotel under $150" in rows[-1].summary_text  # the structured reply is stored whole
    assert "- The user is vegetarian." in rendered  # the durable fact outlives the window
