"""Forgetting a message through the library: gone from every table, file, context and log.

On SQLite and PostgreSQL, after the summary was consolidated into a digest and the fact was
promoted to the user's memory; and when the process stopped between deleting the messages
and rewriting what was derived from them.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from pathlib import Path

import pytest
from forget_traces import every_file, every_table

from longtalk import AsyncMemory, Settings
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.engine import ForgetReceipt
from longtalk.errors import NotFoundError
from longtalk.factory import open_memory
from longtalk.storage.config import StorageConfig

SECRET = "zorblatnut"
EXCHANGES = [
    ("Hi, I'm Maya. I'm vegetarian.", "Nice to meet you, Maya."),
    ("I'm allergic to zorblatnuts, so keep them out of every recipe.", "Understood."),
    ("We are planning a trip to Lisbon in May.", "Lisbon in May is lovely."),
    ("Book a guesthouse in Alfama for four nights.", "Booked the guesthouse in Alfama."),
    ("As I said, I'm vegetarian, so find restaurants for that.", "I found three places."),
    ("My sister Ana joins us on the second day.", "I'll plan for two from day two."),
    ("Add a day trip to Sintra on the third day.", "Sintra is on the plan."),
    ("Can we see fado one evening?", "A fado house in Alfama, Friday."),
]
FORGOTTEN = 3  # the zorblatnut message (user turn of the second exchange)


def settings(url: str, tmp_path: Path) -> Settings:
    memory = MemoryConfig(
        strategy="rag_augmented",
        summary_recent_turns=1,
        summary_row_max_tokens=50,
        summary_max_tokens=60,
        summary_consolidate_tokens=60,
    )
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(url=url),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}", embedder="hashing"),
    )


async def converse(memory: AsyncMemory, exchanges: list[tuple[str, str]]) -> None:
    chat = await memory.chat("trip", user="maya")
    for question, answer in exchanges:
        await chat.append("user", question)
        await chat.append("assistant", answer)
        await chat.summarize(force=True)


async def traces(memory: AsyncMemory, url: str, tmp_path: Path) -> str:
    """Everything the forgotten text could be left in, as one lower-case text."""
    chat = await memory.chat("trip")
    context = await chat.context(f"What about {SECRET}s?", budget_tokens=4000)
    shown = await chat.context(f"What about {SECRET}s?", budget_tokens=120)
    parts = [
        await every_table(url),
        every_file(tmp_path / "vectors"),
        str(context.messages),
        str(shown.messages),
        str([fact.text for fact in await chat.facts()]),
        str(await memory.user_memory("maya")),
    ]
    return "\n".join(parts).casefold()


async def test_a_forgotten_message_is_found_nowhere(
    database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        await converse(memory, EXCHANGES)
        chat = await memory.chat("trip")
        rows = await memory.engine.storage.list_summaries("trip")
        assert {"digest", "archived"} <= {row.kind for row in rows}
        assert SECRET in (await traces(memory, database_url, tmp_path))
        assert any(SECRET in item.text for item in await memory.user_memory("maya"))
        caplog.set_level(logging.DEBUG)
        receipt = await chat.forget([FORGOTTEN])
        assert SECRET not in await traces(memory, database_url, tmp_path)
        assert [m.sequence for m in await chat.messages()] == [
            s for s in range(1, 2 * len(EXCHANGES) + 1) if s != FORGOTTEN
        ]
        check_receipt(receipt, rows=len(rows))
        await converse(memory, [(f"Day {n}: more sightseeing.", "Noted.") for n in range(10)])
        assert SECRET not in await traces(memory, database_url, tmp_path)
    assert SECRET not in caplog.text.casefold()


def check_receipt(receipt: ForgetReceipt, *, rows: int) -> None:
    assert receipt.chat_id == "trip" and receipt.sequences == (FORGOTTEN,)
    assert not receipt.resumed
    kinds = {(item.artefact, item.action) for item in receipt.items}
    assert ("message", "removed") in kinds
    assert ("fact", "removed") in kinds
    assert ("user memory", "removed") in kinds
    assert ("vectors", "removed") in kinds
    summaries = [
        i for i in receipt.items if i.artefact in ("summary row", "digest", "archived row")
    ]
    assert len(summaries) == rows  # every row is listed, the untouched as kept
    assert {"rewritten", "kept"} <= {item.action for item in summaries}
    assert ("digest", "rewritten") in kinds
    text = str(receipt.to_dict()).casefold()
    assert SECRET not in text
    assert ForgetReceipt.from_dict(receipt.to_dict()) == receipt


KILLED_MID_FORGET = """
import asyncio, os, signal, sys
from longtalk import AsyncMemory, Settings

async def main() -> None:
    settings = Settings.model_validate_json(open(sys.argv[1]).read())
    memory = AsyncMemory(settings)
    engine = await memory.open()

    async def killed(*args, **kwargs):  # the process dies as it starts re-deriving
        os.kill(os.getpid(), signal.SIGKILL)

    engine.writer.extend = killed
    chat = await memory.chat("trip")
    await chat.forget([int(sys.argv[2])])

asyncio.run(main())
"""


async def forget_killed(config: Path, sequence: int) -> None:
    """Forget ``sequence`` in a child process killed between the delete and the rewrite."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_MID_FORGET, str(config), str(sequence)
    )
    assert await child.wait() == -signal.SIGKILL


async def test_a_forget_killed_midway_is_finished_at_the_next_start(
    database_url: str, tmp_path: Path
) -> None:
    config = tmp_path / "settings.json"
    config.write_text(settings(database_url, tmp_path).model_dump_json())
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        await converse(memory, EXCHANGES)
    await forget_killed(config, FORGOTTEN)
    async with open_memory(settings(database_url, tmp_path)) as engine:
        pending = await engine.storage.pending_forgets()  # type: ignore[attr-defined]
        assert [(p.chat_id, p.sequences) for p in pending] == [("trip", (FORGOTTEN,))]
        assert SECRET in await every_table(database_url)  # the summary still tells it
        assert FORGOTTEN not in [m.sequence for m in await engine.storage.list_messages("trip")]
        (receipt,) = await engine.resume_forgets()
        assert receipt.resumed and receipt.sequences == (FORGOTTEN,)
        assert ("digest", "rewritten") in {(i.artefact, i.action) for i in receipt.items}
        assert not await engine.resume_forgets()
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        assert SECRET not in await traces(memory, database_url, tmp_path)
    await forget_killed(config, 5)  # the next start of the library door finishes it
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        assert not await memory.engine.storage.pending_forgets()  # type: ignore[attr-defined]
        await converse(memory, [(f"Day {n}: more sightseeing.", "Noted.") for n in range(10)])
        assert SECRET not in await traces(memory, database_url, tmp_path)


async def test_a_forgotten_fact_does_not_come_back(database_url: str, tmp_path: Path) -> None:
    async with AsyncMemory(settings(database_url, tmp_path)) as memory:
        await converse(memory, EXCHANGES)
        chat = await memory.chat("trip")
        (fact,) = [f for f in await chat.facts() if SECRET in f.text.casefold()]
        receipt = await chat.forget_fact(fact.text)
        done = {(item.artefact, item.action) for item in receipt.items}
        assert {("fact", "removed"), ("user memory", "removed")} <= done
        assert SECRET not in str(receipt.to_dict()).casefold()
        assert await about_secret(memory) == []
        # said again: the next summary does not bring the fact back
        await converse(memory, [("Remember, I'm allergic to zorblatnuts.", "Of course.")])
        await converse(memory, [(f"Day {n}: more sightseeing.", "Noted.") for n in range(10)])
        assert await about_secret(memory) == []
        assert any(SECRET in m.message.content for m in await chat.messages())  # kept
        other = [f for f in await chat.facts() if "vegetarian" in f.text.casefold()]
        assert other  # the chat's other facts stay
        with pytest.raises(NotFoundError, match="text"):
            await chat.forget_fact("I collect stamps")


async def about_secret(memory: AsyncMemory) -> list[str]:
    """What the chat's facts, its context's facts part and the user's memory say of it."""
    chat = await memory.chat("trip")
    facts = [f.text for f in await chat.facts()]
    items = [i.text for i in await memory.user_memory("maya")]
    return [text for text in facts + items if SECRET in text.casefold()]
