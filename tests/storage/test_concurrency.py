"""Many concurrent writers on one chat, against every backend.

Database backends get several storage objects on the same database (separate connection
pools, as separate processes would have), and every writer plans with an ``await`` between
loading and committing, so that turns really interleave.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from longtalk.core.messages import assistant, user
from longtalk.errors import ConflictError
from longtalk.storage import (
    ChatState,
    ChatStorage,
    NewMessages,
    SummaryRow,
    SummaryUpdate,
    TurnCommit,
)

WRITERS = 8
TURNS = 6


def pools(backend, count: int = 3) -> list[ChatStorage]:  # type: ignore[no-untyped-def]
    return [backend.open() for _ in range(count)]


async def test_concurrent_turns_keep_every_message_in_order(backend) -> None:  # type: ignore[no-untyped-def]
    stores = pools(backend)
    chat = await stores[0].create_chat()

    async def writer(w: int) -> None:
        store = stores[w % len(stores)]
        for t in range(TURNS):
            await store.append_messages(chat.id, [user(f"w{w} t{t} q"), assistant(f"w{w} t{t} a")])
            await asyncio.sleep(0)

    await asyncio.gather(*(writer(w) for w in range(WRITERS)))
    stored = await stores[1].list_messages(chat.id)
    assert [s.sequence for s in stored] == list(range(1, WRITERS * TURNS * 2 + 1))
    contents = [s.message.content for s in stored]
    for i in range(0, len(contents), 2):  # each turn's pair stays together, question first
        assert contents[i].endswith(" q") and contents[i + 1] == contents[i][:-1] + "a"
    for w in range(WRITERS):  # each writer's turns in the order it sent them
        own = [c for c in contents if c.startswith(f"w{w} ") and c.endswith(" q")]
        assert own == [f"w{w} t{t} q" for t in range(TURNS)]


async def test_concurrent_summaries_never_go_back(backend) -> None:  # type: ignore[no-untyped-def]
    """Every writer appends a turn and folds everything but the last 2 messages into the
    summary; a plan from older state loses the compare-and-swap and is made again."""
    stores = pools(backend)
    chat = await stores[0].create_chat()
    conflicts = 0
    summary_commits = 0

    def planner(w: int, t: int):  # type: ignore[no-untyped-def]
        async def plan(state: ChatState) -> TurnCommit:
            await asyncio.sleep(0.001)  # the summarizer's LLM call
            count = state.chat.message_count + 2
            body = json.dumps({"covers": count - 2, "from_version": state.chat.summary_version})
            latest = state.latest_summary
            row = (
                SummaryRow(chat.id, body) if latest is None else replace(latest, summary_text=body)
            )
            return TurnCommit(
                chat.id,
                append=NewMessages([user(f"w{w} t{t} q"), assistant(f"w{w} t{t} a")]),
                summary=SummaryUpdate(rows=(row,), last_summarized_sequence=count - 2),
            )

        return plan

    async def writer(w: int) -> None:
        nonlocal conflicts, summary_commits
        store = stores[w % len(stores)]
        for t in range(TURNS):
            plan = planner(w, t)
            while True:
                state = await store.load_state(chat.id)
                planned = await plan(state)
                guarded = replace(planned.summary, expected_version=state.chat.summary_version)
                commit = replace(planned, summary=guarded)
                try:
                    await store.commit_turn(commit)
                except ConflictError:
                    conflicts += 1
                    continue
                summary_commits += 1
                break

    await asyncio.gather(*(writer(w) for w in range(WRITERS)))

    total = WRITERS * TURNS * 2
    final = await stores[2].load_state(chat.id)
    assert final.chat.message_count == total
    assert final.chat.summary_version == summary_commits == WRITERS * TURNS
    assert final.chat.last_summarized_sequence == total - 2
    (row,) = final.summaries
    assert json.loads(row.summary_text) == {
        "covers": total - 2,
        "from_version": summary_commits - 1,
    }
    assert row.version == summary_commits
    assert conflicts > 0, "the writers never raced: the test proves nothing"
    stored = await stores[0].list_messages(chat.id)
    assert [s.sequence for s in stored] == list(range(1, total + 1))
