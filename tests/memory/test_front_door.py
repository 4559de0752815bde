"""The front door: AsyncMemory and Memory over the real embedded stack."""

import asyncio
import threading
from pathlib import Path

import pytest

import longtalk
from longtalk import AsyncMemory, Memory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.engine import MemoryEngine
from longtalk.memory import Context, resolve_settings
from longtalk.storage.config import StorageConfig
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.storage.sqlite import SqliteStorage


def settings(tmp_path: Path, **memory: object) -> Settings:
    return Settings(
        supervisor=SupervisorConfig(memory=MemoryConfig(**memory)),  # type: ignore[arg-type]
        storage=StorageConfig(sqlite_path=tmp_path / "m.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


FACT = "My sister Ines is allergic to peanuts, so no satay for her."


async def test_the_chat_loop_recalls_an_old_fact_and_gives_openai_messages(
    tmp_path: Path,
) -> None:
    config = settings(tmp_path, summary_recent_turns=2, summary_trigger_tokens=30)
    async with AsyncMemory(config) as memory:
        chat = await memory.chat("trip", user="priya")
        await chat.append("user", FACT)
        await chat.append("assistant", "Noted: no peanuts for Ines.")
        for day in range(12):
            await chat.append("user", f"What is the weather on day {day} in Lisbon and Porto?")
            await chat.append("assistant", f"Day {day} looks sunny, 24 degrees, a light breeze.")
        question = "Which food allergy does Ines have?"
        await chat.append("user", question)
        await memory.settle()  # summaries run in the background: appends never wait for them
        context = await chat.context(question, budget_tokens=300)

    assert isinstance(context, Context)
    kinds = [part.kind for part in context.parts]
    assert kinds == ["facts", "recalled", "summary", "verbatim"]
    facts = context.parts[0]
    assert "Ines" in facts.text and facts.sequences == (1,)
    recalled = context.parts[1]
    assert "allergic to peanuts" in recalled.text and recalled.sequences[0] == 1
    assert recalled.scores and recalled.tokens > 0
    first, *window = context.messages
    assert first["role"] == "system" and "allergic to peanuts" in first["content"]
    assert [m["role"] for m in window[-3:]] == ["user", "assistant", "user"]
    assert window[-1] == {"role": "user", "content": question}
    assert all(set(m) == {"role", "content"} for m in context.messages)
    assert context.text.startswith(facts.text)
    assert context.tokens <= 300 == context.budget_tokens
    with_instructions = context.to_messages("You are a travel agent.")
    assert with_instructions[0]["content"].startswith("You are a travel agent.\n\n")
    assert with_instructions[1:] == window


async def test_chat_gets_or_creates_and_state_survives_reopening(tmp_path: Path) -> None:
    config = settings(tmp_path, strategy="running_summary")
    async with AsyncMemory(config) as memory:
        chat = await memory.chat("c1", user="priya", title="Lisbon")
        await chat.append("user", "hello", channel="web")
        again = await memory.chat("c1", user="someone-else")
        assert again.id == "c1" and again.user == "priya"  # an existing chat keeps its own
        fresh = await memory.chat()
        assert fresh.id and fresh.id != "c1"
        assert await memory.get("missing") is None
    async with AsyncMemory(config) as memory:
        chat = await memory.chat("c1")
        (stored,) = await chat.messages()
        assert stored.message.content == "hello"
        assert stored.message.metadata == {"channel": "web"}
        assert {record.id for record in await memory.chats()} == {"c1", fresh.id}
        assert await chat.delete() is True
        assert await memory.delete("c1") is False
        assert [record.id for record in await memory.chats()] == [fresh.id]


async def test_append_rejects_bad_input_and_keeps_what_is_stored(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path, strategy="running_summary")) as memory:
        chat = await memory.chat("c")
        await chat.append("user", "kept")
        with pytest.raises(UsageError, match="unknown role 'robot'"):
            await chat.append("robot", "hi")
        with pytest.raises(UsageError, match="content must be a string"):
            await chat.append("user", None)  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="needs 'role' and 'content'"):
            await chat.extend([{"role": "user"}])
        stored = await chat.extend(
            [{"role": "assistant", "content": "a", "name": "Bot"}, {"role": "user", "content": "b"}]
        )
        assert [s.sequence for s in stored] == [2, 3] and stored[0].message.name == "Bot"
        assert [s.message.content for s in await chat.messages()] == ["kept", "a", "b"]


async def test_a_retried_append_with_the_same_id_is_stored_once(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path, strategy="running_summary")) as memory:
        chat = await memory.chat("c")
        first = await chat.append("user", "once", message_id="m-1")
        again = await chat.append("user", "once", message_id="m-1")
        assert first.sequence == again.sequence == 1
        assert len(await chat.messages()) == 1


async def test_background_summaries_finish_before_close(tmp_path: Path) -> None:
    config = settings(tmp_path, strategy="running_summary", summary_recent_turns=1)
    config.supervisor.memory.summary_triggers.pending_tokens.tokens = 10  # type: ignore[union-attr]
    async with AsyncMemory(config, summarize="background") as memory:
        chat = await memory.chat("c")
        for i in range(4):
            await chat.append("user", f"We should visit the museum number {i} on Tuesday.")
            await chat.append("assistant", "Good idea.")
    async with AsyncMemory(config, summarize="off") as memory:
        rows = await memory.engine.storage.list_summaries("c")
        assert rows, "the background summary was written before the memory closed"
        chat = await memory.chat("c")
        await chat.append("user", "one more " * 20)
        await chat.append("assistant", "ok " * 20)
        version = (await memory.engine.storage.get_chat("c")).summary_version  # type: ignore[union-attr]
        assert (await chat.summarize()).changed
        assert (await memory.engine.storage.get_chat("c")).summary_version > version  # type: ignore[union-attr]


def test_the_sync_memory_is_the_async_one_on_a_private_loop(tmp_path: Path) -> None:
    with Memory(settings(tmp_path, summary_recent_turns=2)) as memory:
        assert isinstance(memory.engine, MemoryEngine)
        assert isinstance(memory.engine.storage, SqliteStorage)
        chat = memory.chat("sync", user="priya")
        chat.append("user", FACT)
        chat.append("assistant", "Noted.")
        for day in range(4):
            chat.append("user", f"Weather on day {day}?")
            chat.append("assistant", "Sunny.")
        context = chat.context("Which food allergy does Ines have?")
        assert "allergic to peanuts" in context.messages[0]["content"]
        assert [c.id for c in memory.chats()] == ["sync"]
        assert memory.get("sync") is not None and memory.get("nope") is None
        assert len(chat.messages()) == 10
        loop_threads = [t for t in threading.enumerate() if t.name == "longtalk-loop"]
        assert loop_threads
        assert chat.delete() is True and memory.delete("sync") is False
    assert not any(t.is_alive() for t in loop_threads)  # close stopped the private loop
    with pytest.raises(UsageError, match="closed"):
        memory.chat("again")
    memory.close()  # closing twice is harmless


async def test_the_sync_memory_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    # a notebook or an async app calling sync code: the private loop keeps them apart
    with Memory(settings(tmp_path, strategy="running_summary")) as memory:
        memory.chat("c").append("user", "from inside a running loop")
        assert memory.chat("c").messages()[0].message.content == "from inside a running loop"
    assert asyncio.get_running_loop().is_running()


async def test_sources_url_mapping_memory_config_and_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LONGTALK_SUPERVISOR__MEMORY__SUMMARY_RECENT_TURNS", "3")
    assert (
        resolve_settings(f"sqlite:///{tmp_path}/x.db").storage.url == f"sqlite:///{tmp_path}/x.db"
    )
    from_mapping = resolve_settings({"storage": {"url": "memory:"}})
    assert from_mapping.storage.url == "memory:" and from_mapping.memory.summary_recent_turns == 3
    assert resolve_settings(MemoryConfig(strategy="none")).memory.strategy == "none"
    yaml_file = tmp_path / "agents.yaml"
    yaml_file.write_text("supervisor:\n  memory:\n    strategy: running_summary\n")
    for source in (yaml_file, str(yaml_file)):
        loaded = resolve_settings(source)
        assert loaded.memory.strategy == "running_summary"
        assert loaded.memory.summary_recent_turns == 3
    with pytest.raises(longtalk.ConfigError, match="cannot read"):
        resolve_settings(str(tmp_path / "missing.yaml"))
    with pytest.raises(UsageError, match="cannot open memory from a int"):
        resolve_settings(42)  # type: ignore[arg-type]
    async with AsyncMemory("memory:", tenant="t1") as memory:
        assert isinstance(memory.engine.storage, InMemoryStorage)
        chat = await memory.chat("c")
        assert chat.record.tenant == "t1"


async def test_an_engine_of_your_own_is_used_and_left_open() -> None:
    engine = MemoryEngine(InMemoryStorage(), config=MemoryConfig(strategy="running_summary"))
    async with AsyncMemory(engine=engine) as memory:
        assert memory.engine is engine
        await (await memory.chat("c")).append("user", "hi")
    assert len(await engine.storage.list_messages("c")) == 1  # still usable after close
    with pytest.raises(UsageError, match="either a source or an engine"):
        AsyncMemory("memory:", engine=engine)
    with pytest.raises(UsageError, match="summarize must be"):
        AsyncMemory(engine=engine, summarize="later")  # type: ignore[arg-type]
    closed = AsyncMemory(engine=engine)
    await closed.aclose()
    with pytest.raises(UsageError, match="closed"):
        await closed.chat("c")


async def test_tenants_do_not_see_each_others_chats(tmp_path: Path) -> None:
    config = settings(tmp_path, strategy="running_summary")
    async with AsyncMemory(config, tenant="a") as a, AsyncMemory(config, tenant="b") as b:
        await (await a.chat("shared-id")).append("user", "a's secret")
        assert await b.get("shared-id") is None
        assert await b.chats() == []
        with pytest.raises(longtalk.StorageError, match="already exists"):
            await b.chat("shared-id")
