"""``longtalk.client`` against the real service on uvicorn (127.0.0.1, an OS-chosen port).

The context a client receives must be the one the engine assembles, read through the same
``Context`` type ``Memory`` returns.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from service_harness import Harness, SummaryModel, make_settings, running

from longtalk.client import AsyncChatClient, AsyncClient, ChatClient, Client
from longtalk.core.messages import assistant
from longtalk.errors import BackendError, NotFoundError, UsageError
from longtalk.memory import Context
from longtalk.testing import free_port

TURNS = [
    ("user", "I want a quiet hotel in Lisbon, near Alfama."),
    ("assistant", "Try the small guesthouses below the castle."),
    ("user", "How do I get to Belém from there?"),
    ("assistant", "Tram 15 from Praça da Figueira."),
    ("user", "And the coast, Cascais?"),
]


async def local_context(api: Harness, chat_id: str, query: str) -> Context:
    await api.settle()
    return await api.service.engine.get_context(chat_id, query)


def same(remote: Context, local: Context) -> None:
    assert remote.messages == local.messages
    assert remote.text == local.text
    assert [(p.kind, p.tokens, p.text) for p in remote.parts] == [
        (p.kind, p.tokens, p.text) for p in local.parts
    ]
    assert remote.tokens == local.tokens and remote.budget_tokens == local.budget_tokens


async def test_async_client_has_the_memory_surface(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        async with AsyncClient(api.base_url) as memory:
            chat = await memory.chat("trip", user="priya", title="Lisbon")
            assert (chat.id, chat.user, chat.record.title) == ("trip", "priya", "Lisbon")
            again = await memory.chat("trip", user="someone else")
            assert again.user == "priya"  # got, not re-created

            first = await chat.append("user", TURNS[0][1], source="web")
            assert (first.chat_id, first.sequence) == ("trip", 1)
            assert first.message.metadata == {"source": "web"}
            rest = await chat.extend([{"role": r, "content": c} for r, c in TURNS[1:]])
            assert [item.sequence for item in rest] == [2, 3, 4, 5]

            await api.settle()
            remote = await chat.context("Cascais")
            same(remote, await local_context(api, "trip", "Cascais"))
            assert remote.messages[-1] == {"role": "user", "content": TURNS[-1][1]}
            assert [p.kind for p in remote.parts] == ["verbatim"]  # the chat fits: itself

            stored = await chat.messages()
            assert [(s.message.role.value, s.message.content) for s in stored] == TURNS
            outcome = await chat.summarize()
            assert outcome.chat_id == "trip"
            assert [c.id for c in await memory.chats()] == ["trip"]

            fresh = await memory.chat()  # a new id from the service
            assert fresh.id and fresh.id != "trip"
            assert await memory.get("nope") is None
            assert await fresh.delete() is True
            assert await memory.get(fresh.id) is None
            assert await memory.delete(fresh.id) is False

            assert await chat.delete() is True
            with pytest.raises(NotFoundError, match="HTTP 404"):
                await chat.context("Cascais")


async def test_errors_are_longtalk_errors(tmp_path: Path, model: SummaryModel) -> None:
    settings = make_settings(tmp_path, keys={"key-a": "tenant-a"})
    async with running(settings, model, transport="uvicorn") as api:
        async with AsyncClient(api.base_url) as anonymous:
            with pytest.raises(UsageError, match="HTTP 401"):
                await anonymous.chats()
        async with AsyncClient(api.base_url, api_key="key-a") as memory:
            chat = await memory.chat("keyed")
            with pytest.raises(UsageError, match="unknown role 'robot'"):
                await chat.append("robot", "hi")
            with pytest.raises(UsageError, match=r"limit is 2000 .* \(HTTP 413\)"):
                await chat.append("user", "x" * 5000)  # over the service's message limit
            assert await chat.messages() == []  # nothing stored by the failed calls
            await memory.delete("keyed")
            with pytest.raises(NotFoundError, match="HTTP 404"):
                await chat.context("anything")
    async with AsyncClient(f"http://127.0.0.1:{free_port()}") as nowhere:
        with pytest.raises(BackendError, match="cannot reach the longtalk service"):
            await nowhere.chats()


async def test_sync_client(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:

        def chat_loop() -> Context:
            with Client(api.base_url) as memory:
                chat = memory.chat("sync", user="sam")
                for role, content in TURNS:
                    chat.append(role, content)
                assert len(chat.messages()) == len(TURNS)
                assert memory.get("sync") is not None
                return chat.context("Belém")

        remote = await asyncio.to_thread(chat_loop)
        same(remote, await local_context(api, "sync", "Belém"))


async def test_the_sync_client_is_the_async_one_on_a_private_loop(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:

        def session() -> tuple[list[threading.Thread], Client, ChatClient]:
            before = set(threading.enumerate())
            with Client(api.base_url) as memory:
                chat = memory.chat("loop", user="sam")
                assert isinstance(chat.aio, AsyncChatClient) and chat.aio.id == "loop"
                chat.extend([{"role": "user", "content": "hi"}, assistant("hello")])
                assert [m.sequence for m in chat.messages()] == [1, 2]
                assert memory.get("nope") is None
                threads = [  # the service runs in this process too: its readers are its own
                    t
                    for t in threading.enumerate()
                    if t not in before and not t.name.startswith("longtalk-sqlite")
                ]
                assert [t.name for t in threads] == ["longtalk-loop"]  # one thread, its own
            return threads, memory, chat

        threads, memory, chat = await asyncio.to_thread(session)
        assert not any(t.is_alive() for t in threads)  # close stopped the private loop
        with pytest.raises(UsageError, match="this client is closed"):
            chat.messages()
        with pytest.raises(UsageError, match="this client is closed"):
            memory.chats()
        memory.close()  # closing twice is harmless
