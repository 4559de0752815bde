"""One scripted conversation through every door, which must all store and answer the same.

The doors: the library (``AsyncMemory`` and ``Memory``), the HTTP client against the real
service on uvicorn (127.0.0.1), and MCP (the server object, driven in-process by the MCP
SDK's client). Each opens its own SQLite file from the same settings, and summarizes with
its own ``ChatCompletionsServer`` (the OpenAI wire over real HTTP), so the model answers
every door alike. The script: appends (the chat's facts among them), a forced summary, an
item remembered about the user, more appends, a context for a question, the chat's durable
facts, the user's memory, an item forgotten, and a second chat deleted. The transcripts, the
stored messages and the summary rows must be equal, door for door.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client as McpClient
from service_harness import uvicorn_server

from longtalk import AsyncMemory, Memory
from longtalk.client import AsyncClient
from longtalk.config import Settings
from longtalk.core.context import Context
from longtalk.mcp import create_server
from longtalk.service import create_app
from longtalk.storage.resolve import from_url
from longtalk.testing import ChatCompletionsServer

KEY_ENV = "LONGTALK_DOORS_TEST_KEY"
USER = "priya"
FIRST = [
    ("user", "Hi, I'm Priya. I am vegetarian and allergic to peanuts."),
    ("assistant", "Noted: vegetarian, and no peanuts anywhere."),
    ("user", "My sister Ana lives in Porto; we visit her in June."),
    (
        "assistant",
        "Porto in June is lovely: the São João festival fills the streets, the river walks "
        "are long and warm, and the trains from Lisbon run every hour. Shall I look at them?",
    ),
    ("user", "Yes, and we fly to Lisbon on May 8."),
    ("assistant", "Lisbon on May 8, then the train north to Porto."),
]
LATER = [
    ("user", "Which tram goes to Belém, and how long does the ride take from the centre?"),
    (
        "assistant",
        "Tram 15 from Praça da Figueira; the ride along the river takes about twenty-five "
        "minutes, longer at rush hour, and the monastery is a short walk from the stop.",
    ),
]
QUERY = "Where does my sister live?"
BUDGET = 200  # below the whole chat (about 215), so the context is layered
Row = tuple[int, int, str, str]


@dataclass
class Transcript:
    """What a door answered, in plain values comparable across doors."""

    summarized: bool = False
    parts: list[tuple[str, str]] | None = None
    messages: list[dict[str, str]] | None = None
    dropped_facts: int = -1
    user_facts: list[str] | None = None
    facts: list[str] | None = None
    remembered: tuple[str, str] = ("", "")
    known: list[tuple[str, str, str]] | None = None
    forgotten: int = -1
    known_after: list[tuple[str, str, str]] | None = None
    stored: list[tuple[int, str, str]] | None = None
    scratch_deleted: bool = False
    scratch_gone: bool = False


def settings_for(folder: Path, llm: ChatCompletionsServer) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(folder / "longtalk.db")},
            "vectors": {"url": "null:"},
            "supervisor": {
                "memory": {
                    "strategy": "running_summary",
                    "summary_model": "openai:double",
                    "structured_output": False,
                    "summary_recent_turns": 1,
                    "facts_share": 0.4,  # room for the facts in a small budget
                }
            },
            "llm": {"base_url": f"{llm.url}/v1", "api_key_env": KEY_ENV, "max_retries": 0},
        }
    )


def plain(
    context: Context,
) -> tuple[list[tuple[str, str]], list[dict[str, str]], int, list[str]]:
    parts = [(p.kind, p.text) for p in context.parts]
    known = [fact.text for fact in context.user_facts]
    return parts, context.messages, context.dropped_facts, known


def items(found: list[Any]) -> list[tuple[str, str, str]]:
    return [(item.kind, item.text, item.origin) for item in found]


# -- the doors ---------------------------------------------------------------------------------


async def through_async_memory(settings: Settings) -> Transcript:
    seen = Transcript()
    async with AsyncMemory(settings) as memory:
        chat = await memory.chat("trip", user=USER, title="Lisbon")
        await chat.extend([{"role": r, "content": c} for r, c in FIRST])
        seen.summarized = (await chat.summarize(force=True)).changed
        fact = await memory.remember(USER, "Prefers window seats", kind="preference")
        seen.remembered = (fact.kind, fact.text)
        await chat.extend([{"role": r, "content": c} for r, c in LATER])
        context = await chat.context(QUERY, budget_tokens=BUDGET)
        seen.parts, seen.messages, seen.dropped_facts, seen.user_facts = plain(context)
        seen.facts = [item.text for item in await chat.facts()]
        seen.known = items(await memory.user_memory(USER))
        seen.forgotten = await memory.forget(USER, ids=[fact.id or 0])
        seen.known_after = items(await memory.user_memory(USER))
        seen.stored = [
            (m.sequence, m.message.role, m.message.content) for m in await chat.messages()
        ]
        scratch = await memory.chat("scratch", user=USER)
        await scratch.append("user", "a throwaway line")
        seen.scratch_deleted = await memory.delete("scratch")
        seen.scratch_gone = await memory.get("scratch") is None
    return seen


def through_memory(settings: Settings) -> Transcript:
    seen = Transcript()
    with Memory(settings) as memory:
        chat = memory.chat("trip", user=USER, title="Lisbon")
        chat.extend([{"role": r, "content": c} for r, c in FIRST])
        seen.summarized = chat.summarize(force=True).changed
        fact = memory.remember(USER, "Prefers window seats", kind="preference")
        seen.remembered = (fact.kind, fact.text)
        chat.extend([{"role": r, "content": c} for r, c in LATER])
        seen.parts, seen.messages, seen.dropped_facts, seen.user_facts = plain(
            chat.context(QUERY, budget_tokens=BUDGET)
        )
        seen.facts = [item.text for item in chat.facts()]
        seen.known = items(memory.user_memory(USER))
        seen.forgotten = memory.forget(USER, ids=[fact.id or 0])
        seen.known_after = items(memory.user_memory(USER))
        seen.stored = [(m.sequence, m.message.role, m.message.content) for m in chat.messages()]
        memory.chat("scratch", user=USER).append("user", "a throwaway line")
        seen.scratch_deleted = memory.delete("scratch")
        seen.scratch_gone = memory.get("scratch") is None
    return seen


async def through_http(settings: Settings) -> Transcript:
    seen = Transcript()
    async with uvicorn_server(create_app(settings)) as url, AsyncClient(url) as memory:
        chat = await memory.chat("trip", user=USER, title="Lisbon")
        await chat.extend([{"role": r, "content": c} for r, c in FIRST])
        seen.summarized = (await chat.summarize()).outcome == "summarized"
        fact = await memory.remember(USER, "Prefers window seats", kind="preference")
        seen.remembered = (fact.kind, fact.text)
        await chat.extend([{"role": r, "content": c} for r, c in LATER])
        context = await chat.context(QUERY, budget_tokens=BUDGET)
        seen.parts, seen.messages, seen.dropped_facts, seen.user_facts = plain(context)
        seen.facts = [item.text for item in await chat.facts()]
        seen.known = items(await memory.user_memory(USER))
        seen.forgotten = await memory.forget(USER, ids=[fact.id or 0])
        seen.known_after = items(await memory.user_memory(USER))
        seen.stored = [
            (m.sequence, m.message.role, m.message.content) for m in await chat.messages()
        ]
        scratch = await memory.chat("scratch", user=USER)
        await scratch.append("user", "a throwaway line")
        seen.scratch_deleted = await memory.delete("scratch")
        seen.scratch_gone = await memory.get("scratch") is None
    return seen


async def through_mcp(settings: Settings) -> Transcript:
    seen = Transcript()
    async with McpClient(create_server(settings)) as client:

        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            data = result.structured_content
            return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data

        for role, content in FIRST:
            await call(
                "append_message",
                chat_id="trip",
                role=role,
                content=content,
                user=USER,
                title="Lisbon",
            )
        before = await call("list_chats")
        summarized = await call("summarize_chat", chat_id="trip")
        seen.summarized = (
            summarized["last_summarized_sequence"] > before[0]["last_summarized_sequence"]
        )
        fact = await call("remember", user=USER, text="Prefers window seats", kind="preference")
        seen.remembered = (fact["kind"], fact["text"])
        for role, content in LATER:
            await call("append_message", chat_id="trip", role=role, content=content)
        context = await call("get_context", chat_id="trip", query=QUERY, budget_tokens=BUDGET)
        seen.parts = [(p["kind"], p["text"]) for p in context["parts"]]
        seen.messages, seen.dropped_facts = context["messages"], context["dropped_facts"]
        seen.user_facts = [item["text"] for item in context["user_facts"]]
        seen.facts = [item["text"] for item in await call("get_facts", chat_id="trip")]
        known = await call("user_memory", user=USER)
        seen.known = [(i["kind"], i["text"], i["origin"]) for i in known]
        seen.forgotten = await call("forget", user=USER, ids=[fact["id"]])
        after = await call("user_memory", user=USER)
        seen.known_after = [(i["kind"], i["text"], i["origin"]) for i in after]
        stored = await call("get_messages", chat_id="trip", limit=100)
        seen.stored = [(m["sequence"], m["role"], m["content"]) for m in stored]
        await call("append_message", chat_id="scratch", role="user", content="a throwaway line")
        seen.scratch_deleted = await call("delete_chat", chat_id="scratch")
        seen.scratch_gone = "scratch" not in {c["id"] for c in await call("list_chats")}
    return seen


async def run_sync(settings: Settings) -> Transcript:
    return await asyncio.to_thread(through_memory, settings)


DOORS: dict[str, Callable[[Settings], Awaitable[Transcript]]] = {
    "AsyncMemory": through_async_memory,
    "Memory": run_sync,
    "HTTP client": through_http,
    "MCP": through_mcp,
}


# -- the test ----------------------------------------------------------------------------------


@pytest.fixture
def llm_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(KEY_ENV, "key-doors")
    yield


@asynccontextmanager
async def model() -> AsyncIterator[ChatCompletionsServer]:
    server = ChatCompletionsServer(answer_tokens=12).start()
    try:
        yield server
    finally:
        server.stop()


async def summary_rows(settings: Settings) -> list[Row]:
    async with from_url(settings.storage) as storage:
        rows = await storage.list_summaries("trip")
    return [(r.episode_first, r.episode_last, r.kind, r.summary_text) for r in rows]


async def test_every_door_stores_and_answers_the_same(tmp_path: Path, llm_key: None) -> None:
    seen: dict[str, Transcript] = {}
    rows: dict[str, list[Row]] = {}
    calls: dict[str, int] = {}
    for number, (door, run) in enumerate(DOORS.items()):
        folder = tmp_path / f"door-{number}"
        folder.mkdir()
        async with model() as llm:
            settings = settings_for(folder, llm)
            seen[door] = await run(settings)
            calls[door] = len(llm.calls)
        rows[door] = await summary_rows(settings)

    reference = seen["AsyncMemory"]
    # The script did what it says (so that equal transcripts mean something).
    assert reference.summarized and calls["AsyncMemory"] >= 1
    kinds = [kind for kind, _ in reference.parts or []]
    assert kinds == ["facts", "user", "summary", "verbatim"], reference.parts
    texts = dict(reference.parts or [])
    assert "Porto" in texts["facts"] and "Prefers window seats" in texts["user"]
    assert reference.user_facts == ["Prefers window seats"]
    assert "call-1:" in texts["summary"] and "Tram 15" in texts["verbatim"]
    assert any("Porto" in fact for fact in reference.facts or [])
    assert reference.remembered == ("preference", "Prefers window seats")
    assert ("preference", "Prefers window seats", "given") in (reference.known or [])
    assert reference.forgotten == 1
    assert ("preference", "Prefers window seats", "given") not in (reference.known_after or [])
    assert [item[0] for item in reference.stored or []] == list(range(1, 9))
    assert reference.scratch_deleted and reference.scratch_gone
    assert rows["AsyncMemory"] and rows["AsyncMemory"][0][3].startswith("call-1:")

    for door in DOORS:
        assert seen[door] == reference, door
        assert rows[door] == rows["AsyncMemory"], door
        assert calls[door] == calls["AsyncMemory"], door
