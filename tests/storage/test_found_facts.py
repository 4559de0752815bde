"""An append's durable facts are found before its commit and numbered where its messages land.

Two writers (each with its own storage, as two replicas have) append to one chat at once:
every fact must carry the sequence its message got, whichever commit landed first.
"""

from __future__ import annotations

import asyncio

from tests.storage.conftest import Backend

from longtalk.core.messages import user
from longtalk.engine import MemoryEngine
from longtalk.engine.appending import AppendWriter, found_facts
from longtalk.storage import NewMessages, TurnCommit


def liked(numbered, previous=()):
    return [
        {"text": message.content, "sequences": [sequence]}
        for sequence, message in numbered
        if "I like" in message.content
    ]


async def test_concurrent_appends_number_their_facts_where_they_land(backend: Backend) -> None:
    first, second = backend.open(), backend.open()
    await first.setup()
    await second.setup()
    chat = await first.create_chat("c")
    writers = [AppendWriter(first), AppendWriter(second)]

    async def append(number: int) -> None:
        commit = TurnCommit(
            chat.id, append=NewMessages([user(f"I like tram {number}"), user("ok")])
        )
        await writers[number % 2].commit(commit, liked)

    await asyncio.gather(*(append(number) for number in range(12)))
    state = await first.load_state(chat.id)
    sequence_of = {item.message.content: item.sequence for item in state.messages}
    assert state.chat.message_count == 24
    assert len(state.facts) == 12
    for fact in state.facts:
        assert fact["sequences"] == [sequence_of[fact["text"]]]


async def test_the_engine_appends_the_facts_its_messages_state(backend: Backend) -> None:
    storage = backend.open()
    engine = MemoryEngine(storage)
    chat = await engine.create_chat("c")
    await engine.append(chat.id, [user("hello"), user("how are you")])
    other = MemoryEngine(storage)  # knows no count yet: numbers again once told
    await other.append(chat.id, [user("I am allergic to shellfish.")])
    facts = (await storage.load_state(chat.id)).facts
    claims = [fact for fact in facts if not fact.get("tentative")]
    assert [(fact["value"], fact["sequences"]) for fact in claims] == [
        ("allergic to shellfish", [3])
    ]
    # what the first append said stays aside, numbered as its messages
    assert {tuple(fact["sequences"]) for fact in facts if fact.get("tentative")} <= {(1,), (2,)}


def test_messages_without_facts_need_no_count() -> None:
    assert found_facts([user("ok")], 5, liked) is None
    found = found_facts([user("ok"), user("I like fado")], 5, liked)
    assert found is not None
    assert (found.numbered_for, found.facts) == (5, ({"text": "I like fado", "sequences": [7]},))
