"""An Idempotency-Key (or a set of message ids) names one whole request, on every backend.

A retry resends every message, every field the same, in the same order, and is answered with
what was stored; any other request under the same ids is an ``IdempotencyConflict`` and
stores nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from longtalk.core.messages import Message, assistant, user
from longtalk.errors import IdempotencyConflict, UsageError
from longtalk.storage import ChatStorage
from longtalk.storage.records import idempotent

WHEN = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)


def request() -> list[Message]:
    return idempotent(
        [
            user("book the train", name="ann", metadata={"via": ["app", 2]}, timestamp=WHEN),
            assistant("booked for 9:40", metadata={"ticket": {"car": 7}}),
            user("thanks"),
        ],
        "append-1",
    )


async def contents(storage: ChatStorage, chat_id: str) -> list[str]:
    return [item.message.content for item in await storage.list_messages(chat_id)]


async def test_the_same_request_again_is_a_replay(storage: ChatStorage) -> None:
    await storage.create_chat("r")
    first = await storage.append_messages("r", request())
    again = await storage.append_messages("r", request())
    assert [m.sequence for m in again] == [m.sequence for m in first] == [1, 2, 3]
    assert await contents(storage, "r") == ["book the train", "booked for 9:40", "thanks"]


def renamed(batch: list[Message]) -> list[Message]:
    return [batch[0].model_copy(update={"name": "bob"}), *batch[1:]]


def remarked(batch: list[Message]) -> list[Message]:
    return [batch[0], batch[1].model_copy(update={"metadata": {"ticket": {"car": 8}}}), batch[2]]


def restamped(batch: list[Message]) -> list[Message]:
    return [batch[0].model_copy(update={"timestamp": None}), *batch[1:]]


def prefix(batch: list[Message]) -> list[Message]:
    return batch[:2]


def longer(batch: list[Message]) -> list[Message]:
    return idempotent([*batch, user("one more")], "append-1")


def reordered(batch: list[Message]) -> list[Message]:
    return [batch[1], batch[0], batch[2]]


@pytest.mark.parametrize(
    "change",
    [renamed, remarked, restamped, prefix, longer, reordered],
    ids=["name", "metadata", "timestamp", "prefix", "longer", "order"],
)
async def test_any_other_request_under_the_same_key_is_a_conflict(
    storage: ChatStorage, change: object
) -> None:
    assert callable(change)
    await storage.create_chat("r")
    await storage.append_messages("r", request())
    with pytest.raises(IdempotencyConflict) as refused:
        await storage.append_messages("r", change(request()))
    assert isinstance(refused.value, UsageError) and "Idempotency-Key" in str(refused.value)
    assert await contents(storage, "r") == ["book the train", "booked for 9:40", "thanks"]


async def test_a_prefix_under_message_ids_of_its_own_keeps_each_id_to_one_message(
    storage: ChatStorage,
) -> None:
    await storage.create_chat("r")
    batch = [user("a", id="m1"), user("b", id="m2"), user("c", id="m3")]
    await storage.append_messages("r", batch)
    # own ids name messages: resending some of them, in order, answers them
    again = await storage.append_messages("r", batch[:2])
    assert [m.sequence for m in again] == [1, 2]
    with pytest.raises(IdempotencyConflict, match="order"):
        await storage.append_messages("r", [batch[0], batch[2]])
    assert await contents(storage, "r") == ["a", "b", "c"]
