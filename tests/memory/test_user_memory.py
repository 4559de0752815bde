"""What a user's earlier chats left is offered in their new chats, with its own budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from longtalk import AsyncMemory, Memory, Settings, UsageError
from longtalk.config import MemoryConfig, SupervisorConfig, VectorsConfig
from longtalk.storage.config import StorageConfig

FIRST_CHAT = [
    ("I'm vegetarian and my husband Sam is allergic to shellfish.", "Noted, for every meal."),
    ("I prefer window seats and I hate early flights.", "Got it."),
    ("Book the ryokan in Kyoto for three nights.", "Booked."),
    ("What's the weather in Kyoto next week?", "Mild and sunny."),
]


def settings(tmp_path: Path) -> Settings:
    memory = MemoryConfig(strategy="running_summary", summary_recent_turns=1)
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(sqlite_path=tmp_path / "m.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{tmp_path / 'vectors'}"),
    )


async def first_chat(memory: AsyncMemory) -> None:
    chat = await memory.chat("japan", user="priya")
    for question, answer in FIRST_CHAT:
        await chat.append("user", question)
        await chat.append("assistant", answer)
    assert (await chat.summarize(force=True)).changed


async def test_a_new_chat_of_the_same_user_knows_what_earlier_chats_left(
    tmp_path: Path,
) -> None:
    async with AsyncMemory(settings(tmp_path)) as memory:
        await first_chat(memory)
        kept = await memory.user_memory("priya")
        assert "preference" in {item.kind for item in kept}
        assert all(i.chat_id == "japan" and i.origin == "derived" for i in kept)
        assert all(i.messages[0] >= 1 for i in kept)
        # the chat itself has its summary: its own items are not repeated there
        own = await (await memory.chat("japan")).context("What can Sam eat?")
        assert own.user is None
        new = await memory.chat("lisbon", user="priya")
        await new.append("user", "Plan dinner for our first night in Lisbon.")
        context = await new.context("Plan dinner", budget_tokens=1000)
        assert context.parts[0].kind == "user"
        assert "allergic to shellfish" in context.parts[0].text
        assert "vegetarian" in context.parts[0].text
        assert context.user_facts and {f.chat_id for f in context.user_facts} == {"japan"}
        assert context.parts[0].episode_ranges == ()  # another chat's: see user_facts
        system = context.messages[0]
        assert system["role"] == "system" and "allergic to shellfish" in system["content"]
        assert context.messages[-1]["content"].startswith("Plan dinner")
        assert context.tokens <= 1000
        other = await memory.chat("work", user="someone-else")
        await other.append("user", "hi")
        assert (await other.context("hi")).user is None


async def test_the_user_part_has_its_own_cap(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path), user_memory_tokens=30) as memory:
        await first_chat(memory)
        for n in range(10):
            await memory.remember("priya", f"Collects stamp series number {n}.")
        chat = await memory.chat("next", user="priya")
        await chat.append("user", "hello")
        context = await chat.context("hello", budget_tokens=2000)
        assert context.user is not None and context.user.tokens <= 30
        assert 0 < len(context.user_facts) < len(await memory.user_memory("priya"))
        small = await chat.context("hello", budget_tokens=80)  # a quarter of the budget at most
        assert small.user is None or small.user.tokens <= 20
    async with AsyncMemory(settings(tmp_path), user_memory_tokens=0) as memory:
        chat = await memory.chat("next")
        assert (await chat.context("hello")).user is None


async def test_remember_forget_and_deleting_the_source_chat(tmp_path: Path) -> None:
    async with AsyncMemory(settings(tmp_path)) as memory:
        await first_chat(memory)
        fact = await memory.remember("priya", "Works night shifts.", kind="profile")
        assert fact.id and fact.origin == "given" and fact.chat_id is None
        with pytest.raises(UsageError, match="unknown kind"):
            await memory.remember("priya", "x", kind="hobby")  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="empty"):
            await memory.remember("priya", "  ")
        assert await memory.forget("priya", ids=[fact.id or 0]) == 1
        assert await memory.delete("japan")
        assert await memory.user_memory("priya") == []  # what the chat gave went with it
        await memory.remember("priya", "Likes tea.")
        assert await memory.forget("priya") == 1


def test_the_sync_memory_offers_the_same(tmp_path: Path) -> None:
    with Memory(settings(tmp_path)) as memory:
        chat = memory.chat("japan", user="priya")
        for question, answer in FIRST_CHAT:
            chat.append("user", question)
            chat.append("assistant", answer)
        chat.summarize(force=True)
        assert memory.user_memory("priya")
        assert memory.remember("priya", "Likes tea.").text == "Likes tea."
        new = memory.chat("lisbon", user="priya")
        new.append("user", "Dinner ideas?")
        assert "Likes tea." in new.context("Dinner ideas?").text
        assert memory.forget("priya") >= 2 and memory.user_memory("priya") == []


def test_items_from_summary_rows_by_kind_once_each_archived_rows_left_out() -> None:
    from longtalk.storage.base import SummaryRow
    from longtalk.summary.model import ConversationSummary, SummaryEntity
    from longtalk.summary.user_facts import user_facts

    def row(summary: ConversationSummary, first: int, last: int, kind: str = "row") -> SummaryRow:
        text = summary.model_dump_json()
        return SummaryRow(
            "c",
            text,
            format="json",
            episode_first=first,
            episode_last=last,
            turn_number=2 * last,  # two messages an exchange
            kind=kind,  # type: ignore[arg-type]
        )

    older = ConversationSummary(
        user_preferences=("Prefers window seats.",),
        entities=(
            SummaryEntity(name="Sam", type="person", details="Allergic to shellfish."),
            SummaryEntity(name="Leeds", type="place", details="Where the user lives."),
            SummaryEntity(name="Kyoto", type="place"),
        ),
    )
    newer = ConversationSummary(user_preferences=("prefers  window seats.", "Hates early flights."))
    gone = ConversationSummary(user_preferences=("Archived detail.",))
    facts = user_facts("c", [row(older, 1, 4), row(newer, 5, 9), row(gone, 1, 2, "archived")])
    assert [(f.kind, f.text, f.messages) for f in facts] == [  # episodes 1-4: messages 1-8
        ("preference", "Prefers window seats.", (1, 8)),
        ("profile", "Sam: Allergic to shellfish.", (1, 8)),
        ("fact", "Leeds: Where the user lives.", (1, 8)),
        ("preference", "Hates early flights.", (9, 18)),
    ]
    assert all(f.origin == "derived" and f.chat_id == "c" for f in facts)


async def test_items_name_the_messages_they_were_taken_from(tmp_path: Path) -> None:
    from longtalk.wire import UserFactOut

    async with AsyncMemory(settings(tmp_path)) as memory:
        await first_chat(memory)
        kept = await memory.user_memory("priya")
        window = next(item for item in kept if "window seats" in item.text.lower())
        assert window.messages == (3, 3)  # the third message said it (exchange 2)
        said = await (await memory.chat("japan")).messages()
        assert "window seats" in said[window.messages[0] - 1].message.content
        wire = UserFactOut.of(window).model_dump(mode="json")
        assert wire["messages"] == [3, 3] and "episodes" not in wire
        # a reply from a server that still says ``episodes`` reads the same
        former = {**wire, "episodes": wire.pop("messages")}
        assert UserFactOut.model_validate(former).fact().messages == (3, 3)
