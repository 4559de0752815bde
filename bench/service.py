"""Load run of the memory service on 127.0.0.1: concurrent clients append and ask for context.

Starts ``memstrata serve`` in a subprocess on a fresh SQLite file (embedded defaults, the
offline summarizer running in the background), drives it with ``--clients`` concurrent
clients over ``--chats`` chats until ``--ops`` operations or ``--seconds`` have passed, then
checks by counting that every appended message is stored (zero lost) and that no request
failed. Baseline, measured in the same run: the same operations called directly on the
engine in process (no HTTP, no concurrency); the ratio is the price of the service.

    .venv/bin/python bench/service.py --clients 16 --chats 32 --ops 3000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from memstrata.config import load_settings
from memstrata.core.messages import Message
from memstrata.factory import open_memory
from memstrata.testing import free_port

CONTEXT_EVERY = 4  # one context request per this many operations


@dataclass
class Stats:
    append: list[float] = field(default_factory=list)
    context: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)


def exchange(chat: str, number: int) -> list[dict[str, str]]:
    topic = random.choice(["Lisbon", "Porto", "the budget", "the car", "surf lessons"])
    return [
        {"role": "user", "content": f"[{chat}] Question {number} about {topic}: what next?"},
        {"role": "assistant", "content": f"Answer {number}: for {topic}, book early. " * 3},
    ]


def write_config(directory: Path, strategy: str) -> Path:
    path = directory / "agents.yaml"
    path.write_text(
        f"supervisor:\n  memory:\n    strategy: {strategy}\n"
        f"storage:\n  sqlite_path: {directory / 'bench.db'}\n"
        "service:\n  max_batch_size: 100\n",
        encoding="utf-8",
    )
    return path


async def wait_ready(base: str, process: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient(base_url=base) as client:
        for _ in range(300):
            if process.poll() is not None:
                raise SystemExit(f"the service exited with {process.returncode}")
            try:
                if (await client.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit("the service did not start")


async def client_loop(
    client: httpx.AsyncClient, chats: list[str], stats: Stats, budget: list[int], deadline: float
) -> None:
    while budget[0] > 0 and time.perf_counter() < deadline:
        budget[0] -= 1
        chat = random.choice(chats)
        number = stats.sent.get(chat, 0) // 2
        if budget[0] % CONTEXT_EVERY == 0:
            await timed(
                client.post(f"/chats/{chat}/context", json={"query": "Lisbon"}),
                stats.context,
                stats.errors,
            )
            continue
        stats.sent[chat] = stats.sent.get(chat, 0) + 2  # counted before: a failure shows as lost
        body = {"messages": exchange(chat, number)}
        await timed(client.post(f"/chats/{chat}/messages", json=body), stats.append, stats.errors)


async def timed(request: object, into: list[float], errors: list[str]) -> None:
    started = time.perf_counter()
    try:
        response = await request  # type: ignore[misc]
    except httpx.HTTPError as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
        return
    into.append(time.perf_counter() - started)
    if response.status_code >= 400:
        errors.append(f"{response.status_code}: {response.text[:200]}")


async def verify(client: httpx.AsyncClient, stats: Stats) -> tuple[int, int]:
    """(messages sent, messages stored), counted chat by chat."""
    stored = 0
    for chat in stats.sent:
        stored += (await client.get(f"/chats/{chat}")).json()["message_count"]
        listed = 0
        after = 0
        while True:
            page = (
                await client.get(
                    f"/chats/{chat}/messages", params={"after_sequence": after, "limit": 1000}
                )
            ).json()
            listed += len(page["items"])
            if page["next_after"] is None:
                break
            after = page["next_after"]
        assert listed == (await client.get(f"/chats/{chat}")).json()["message_count"]
    return sum(stats.sent.values()), stored


@dataclass
class Run:
    concurrent: Stats
    single: Stats
    elapsed: float
    sent: int
    stored: int


async def run_service(args: argparse.Namespace, directory: Path) -> Run:
    config = write_config(directory, args.strategy)
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "memstrata.cli",
        "serve",
        "--config",
        str(config),
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_ready(base, process)
        limits = httpx.Limits(max_connections=args.clients)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
            chats = [f"bench-{n}" for n in range(args.chats)]
            for chat in chats:
                await client.post("/chats", json={"id": chat})
            single = Stats()
            deadline = time.perf_counter() + args.seconds
            await client_loop(client, chats, single, [args.single_ops], deadline)
            stats, budget = Stats(sent=dict(single.sent)), [args.ops]
            started = time.perf_counter()
            deadline = started + args.seconds
            await asyncio.gather(
                *(client_loop(client, chats, stats, budget, deadline) for _ in range(args.clients))
            )
            elapsed = time.perf_counter() - started
            sent, stored = await verify(client, stats)
            stats.errors += single.errors
            return Run(stats, single, elapsed, sent, stored)
    finally:
        process.terminate()
        process.wait(timeout=30)


async def run_direct(args: argparse.Namespace, directory: Path, ops: int) -> Stats:
    """The baseline: the same operations on the engine in process, one at a time."""
    settings = load_settings(write_config(directory, args.strategy))
    stats = Stats()
    async with open_memory(settings) as memory:
        chats = [f"direct-{n}" for n in range(args.chats)]
        for chat in chats:
            await memory.create_chat(chat)
        for index in range(ops):
            chat = random.choice(chats)
            started = time.perf_counter()
            if index % CONTEXT_EVERY == 0:
                await memory.get_context(chat, "Lisbon")
                stats.context.append(time.perf_counter() - started)
            else:
                number = stats.sent.get(chat, 0) // 2
                stats.sent[chat] = stats.sent.get(chat, 0) + 2
                batch = [Message.model_validate(m) for m in exchange(chat, number)]
                await memory.add_messages(chat, batch)
                stats.append.append(time.perf_counter() - started)
    return stats


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(name: str, values: list[float]) -> str:
    return (
        f"| {name} | {len(values)} | {pct(values, 0.5):.1f} | {pct(values, 0.95):.1f} | "
        f"{pct(values, 0.99):.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--chats", type=int, default=32)
    parser.add_argument("--ops", type=int, default=2000, help="requests of the concurrent phase")
    parser.add_argument("--single-ops", type=int, default=200, help="requests of one client")
    parser.add_argument("--seconds", type=float, default=120, help="time bound per phase")
    parser.add_argument(
        "--strategy", default="running_summary", choices=["none", "running_summary"]
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(run_service(args, subdir(Path(tmp), "service")))
        baseline = asyncio.run(run_direct(args, subdir(Path(tmp), "direct"), args.single_ops))
    stats = run.concurrent
    done = len(stats.append) + len(stats.context)
    print(
        f"service: {args.clients} clients, {args.chats} chats, {done} requests in "
        f"{run.elapsed:.1f} s = {done / run.elapsed:.0f} req/s (strategy {args.strategy})"
    )
    print("| operation | n | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|")
    print(report(f"append, HTTP, {args.clients} clients", stats.append))
    print(report(f"context, HTTP, {args.clients} clients", stats.context))
    print(report("append, HTTP, 1 client", run.single.append))
    print(report("context, HTTP, 1 client", run.single.context))
    print(report("append, engine in process (baseline)", baseline.append))
    print(report("context, engine in process (baseline)", baseline.context))
    for name, ours in (("append", run.single.append), ("context", run.single.context)):
        base = baseline.append if name == "append" else baseline.context
        print(
            f"p50 ratio HTTP 1 client / engine in process, {name}: "
            f"{pct(ours, 0.5) / pct(base, 0.5):.2f}x"
        )
    lost = run.sent - run.stored
    print(
        f"errors: {len(stats.errors)}; messages sent {run.sent}, stored {run.stored}, lost {lost}"
    )
    for error in stats.errors[:5]:
        print("  ", error)
    if stats.errors or lost:
        raise SystemExit(1)


def subdir(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    return path


if __name__ == "__main__":
    main()
