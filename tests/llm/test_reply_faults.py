"""Faulty model replies are never stored, over the real OpenAI wire protocol.

A summary reply that is not a valid summary (cut off, looping, broken or wrongly typed JSON,
an echoed schema, only template markers) is a failed extension of that kind: the last good
summary stays, the bookkeeping does not move, and the next run extends again. A prose reply
extends the narrative and keeps the lists and entities. A title reply that is not a title
keeps the title.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator

import pytest
from llm_wire import Reply, ScriptedServer, Seen

from longtalk.config import LLMConfig, MemoryConfig, Settings, SupervisorConfig
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.factory import open_memory

GOOD = {
    "topics": ["trip to Lyon"],
    "entities": [{"name": "Marie", "type": "person", "details": "the user's sister"}],
    "actions_taken": [],
    "decisions": ["hotel under $150"],
    "open_questions": [],
    "user_preferences": [],
    "narrative": "The user plans a trip to Lyon with Marie.",
    "covered_turns": 2,
}
LATER = {**GOOD, "narrative": "The user booked a hotel in Lyon.", "decisions": ["Hotel Bellecour"]}
FULL = json.dumps(LATER)

LOOP = "".join(f'    "2023-05-08 14:{minute:02d}",\n' for minute in range(60))
BAD_SUMMARIES = {
    "cut off": (FULL[: len(FULL) // 2], "stop", "broken_json"),
    "cut off by the limit": (FULL[: len(FULL) // 2], "length", "cut_off"),
    "a loop": ('{"topics": [\n' + LOOP, "length", "repetition"),
    "broken": ("{narrative: 'The user booked', topics: ['Lyon',],}", "stop", "broken_json"),
    "wrong types": (
        json.dumps({**LATER, "narrative": 42, "topics": "Lyon"}),
        "stop",
        "wrong_types",
    ),
    "entities not objects": (json.dumps({**LATER, "entities": [7, None]}), "stop", "wrong_types"),
    "a list": (json.dumps([LATER]), "stop", "wrong_types"),
    "no summary field": (json.dumps({"title": "Lyon", "answer": "a hotel"}), "stop", "wrong_types"),
    "echoed schema": (
        json.dumps({"narrative": "string", "topics": ["string"]}),
        "stop",
        "echoed_schema",
    ),
    "empty fields": (json.dumps({"narrative": "", "topics": []}), "stop", "empty"),
    "only markers": ("<|im_start|>assistant\n<|im_end|>", "stop", "template_only"),
    "a leaked user turn": (f"<|im_start|>user\n{FULL}<|im_end|>", "stop", "template_only"),
}


class Model:
    """The scripted OpenAI-compatible server's answers: summaries and titles apart."""

    def __init__(self) -> None:
        self.summaries: deque[str | tuple[str, str]] = deque()
        self.titles: deque[tuple[str, str]] = deque()

    def __call__(self, seen: Seen) -> Reply:
        if "response_format" in seen.body:
            summary = self.summaries.popleft()
            text, finish = summary if isinstance(summary, tuple) else (summary, "stop")
        else:
            text, finish = self.titles.popleft() if self.titles else ("Trip to Lyon", "stop")
        choice = {"message": {"role": "assistant", "content": text}, "finish_reason": finish}
        usage = {"prompt_tokens": 50, "completion_tokens": 20}
        return Reply({"model": "m", "choices": [choice], "usage": usage})


@pytest.fixture
async def engine(server: ScriptedServer) -> AsyncIterator[MemoryEngine]:
    memory = MemoryConfig(
        strategy="running_summary",
        summary_model="openai:m",
        summary_recent_turns=1,
        summary_trigger_tokens=20,
        persist_summary=False,
        structured_output=True,
    )
    settings = Settings(
        supervisor=SupervisorConfig(memory=memory),
        llm=LLMConfig(base_url=f"{server.url}/v1", max_retries=0),
    )
    async with open_memory(settings) as opened:
        yield opened


async def exchanges(engine: MemoryEngine, chat_id: str, *numbers: int) -> None:
    for number in numbers:
        await engine.append(
            chat_id,
            [user(f"Question {number} about the Lyon trip?"), assistant(f"Answer {number}.")],
        )


async def summarized_once(engine: MemoryEngine, server: ScriptedServer, model: Model) -> str:
    """A chat with one good summary and the title ``Trip to Lyon``; its id."""
    server.responder = model
    chat = await engine.create_chat()
    await exchanges(engine, chat.id, 1, 2)
    model.summaries.append(json.dumps(GOOD))
    outcome = await engine.summarize(chat.id, force=True)
    assert outcome.changed and outcome.plan.error is None and outcome.plan.replies == ("json",)
    assert outcome.chat is not None and outcome.chat.title == "Trip to Lyon"
    return chat.id


@pytest.mark.parametrize("fault", sorted(BAD_SUMMARIES))
async def test_a_faulty_summary_reply_keeps_the_last_good_summary(
    engine: MemoryEngine, server: ScriptedServer, fault: str
) -> None:
    model = Model()
    chat_id = await summarized_once(engine, server, model)
    before = await engine.storage.load_state(chat_id)
    await exchanges(engine, chat_id, 3, 4)
    text, finish, kind = BAD_SUMMARIES[fault]
    model.summaries.append((text, finish))
    failed = await engine.summarize(chat_id, force=True)
    assert failed.plan.error is not None and not failed.changed
    assert failed.plan.failure == kind
    assert failed.plan.usage.input_tokens == 50  # the failed call's cost is counted
    after = await engine.storage.load_state(chat_id)
    assert after.summaries == before.summaries  # the good row, unchanged
    assert after.chat.last_summarized_sequence == before.chat.last_summarized_sequence
    assert after.chat.title == "Trip to Lyon"
    model.summaries.append(FULL)  # the extension is retried and then succeeds
    retried = await engine.summarize(chat_id, force=True)
    assert retried.changed and retried.plan.error is None
    latest = (await engine.storage.load_state(chat_id)).summaries[-1]
    assert json.loads(latest.summary_text)["narrative"] == "The user booked a hotel in Lyon."


async def test_a_prose_reply_extends_the_narrative_and_keeps_lists_and_entities(
    engine: MemoryEngine, server: ScriptedServer
) -> None:
    model = Model()
    chat_id = await summarized_once(engine, server, model)
    await exchanges(engine, chat_id, 3, 4)
    model.summaries.append("Sure! Later the user booked Hotel Bellecour for two nights.")
    outcome = await engine.summarize(chat_id, force=True)
    assert outcome.changed and outcome.plan.error is None
    assert outcome.plan.replies == ("prose",)
    latest = json.loads((await engine.storage.load_state(chat_id)).summaries[-1].summary_text)
    assert latest["narrative"] == (
        "The user plans a trip to Lyon with Marie. "
        "Sure! Later the user booked Hotel Bellecour for two nights."
    )
    assert latest["decisions"] == ["hotel under $150"]
    assert [entity["name"] for entity in latest["entities"]] == ["Marie"]


async def test_a_summary_wrapped_in_one_assistant_turn_is_unwrapped(
    engine: MemoryEngine, server: ScriptedServer
) -> None:
    model = Model()
    chat_id = await summarized_once(engine, server, model)
    await exchanges(engine, chat_id, 3, 4)
    model.summaries.append(f"<|im_start|>assistant\n```json\n{FULL}\n```<|im_end|>")
    outcome = await engine.summarize(chat_id, force=True)
    assert outcome.changed and outcome.plan.error is None
    latest = (await engine.storage.load_state(chat_id)).summaries[-1]
    assert json.loads(latest.summary_text)["decisions"] == ["hotel under $150", "Hotel Bellecour"]


BAD_TITLES = {
    "a reply of several lines": ("Sure! Here is a title.\n\nLyon weekend\n\nIt fits.", "stop"),
    "json": ('{"title": "Lyon weekend"}', "stop"),
    "only markers": ("<|im_start|>assistant\n<|im_end|>", "stop"),
    "cut off": ("Lyon weekend with", "length"),
    "a preamble only": ("Here is a short title for the conversation:", "stop"),
    "a whole paragraph": (" ".join(["word"] * 40), "stop"),
}
GOOD_TITLES = {
    "labelled": ("Title: Lyon weekend", "Lyon weekend"),
    "after a preamble line": ("Here is a title:\n**Lyon weekend**", "Lyon weekend"),
    "wrapped in one assistant turn": (
        "<|im_start|>assistant\nLyon weekend<|im_end|>",
        "Lyon weekend",
    ),
}


@pytest.mark.parametrize("fault", sorted(BAD_TITLES))
async def test_a_faulty_title_reply_keeps_the_title(
    engine: MemoryEngine, server: ScriptedServer, fault: str
) -> None:
    model = Model()
    chat_id = await summarized_once(engine, server, model)
    await exchanges(engine, chat_id, 3, 4)
    model.summaries.append(FULL)
    model.titles.append(BAD_TITLES[fault])
    outcome = await engine.summarize(chat_id, force=True)
    assert outcome.changed and outcome.chat is not None
    assert outcome.chat.title == "Trip to Lyon"


@pytest.mark.parametrize("case", sorted(GOOD_TITLES))
async def test_a_title_reply_is_read_from_its_one_line(
    engine: MemoryEngine, server: ScriptedServer, case: str
) -> None:
    model = Model()
    chat_id = await summarized_once(engine, server, model)
    await exchanges(engine, chat_id, 3, 4)
    reply, expected = GOOD_TITLES[case]
    model.summaries.append(FULL)
    model.titles.append((reply, "stop"))
    outcome = await engine.summarize(chat_id, force=True)
    assert outcome.chat is not None and outcome.chat.title == expected
