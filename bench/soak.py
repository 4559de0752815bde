"""Soak: a real server under mixed load for N minutes; does its memory stay bounded?

The server is ``longtalk serve``'s app with its embedded defaults (SQLite, the Qdrant edge
vector store, the bundled MiniLM embedder, the offline summarizer, ``rag_augmented``) in a
uvicorn subprocess on 127.0.0.1 (``bench/service.py``'s server). ``--clients`` clients send
a paced mix (``--rate`` requests per second in all) over ``--chats`` chats: appends of one or
two messages with an ``Idempotency-Key`` (a few sent twice, as a retrying client would),
context reads with a query, message pages, chat and summary reads, ``/healthz``,
``/metrics``, event streams opened and closed, summaries asked for now. The data stays the
same size: a chat that reached ``--chat-messages`` is deleted and a new one takes its place,
so what grows is the process, not the data it serves.

The server's resident memory (``VmRSS``) and open file descriptors are sampled every
``--sample-seconds``, summed over its process tree (the background embedding process
included). Reported: RSS at the start (the server up, nothing loaded yet), after
the warm-up (``--warmup-minutes``: the model loaded, the caches filled), at the end, and the
slope of a least-squares line over the last half of the run in MB per minute, with the
ratio of the end to the warm-up (the run's own baseline).

    .venv/bin/python bench/soak.py --minutes 30 --json soak.json

JSON keys: ``rss_start_mb``, ``rss_warm_mb``, ``rss_end_mb``, ``rss_max_mb``,
``slope_last_half_mb_per_min`` (and of its parts, ``slope_last_half_anon_mb_per_min``: the
heap, ``slope_last_half_file_mb_per_min``: memory-mapped files; ``anon_end_mb``,
``file_end_mb``), ``end_over_warm``, ``fds_start``, ``fds_end``,
``requests`` (by kind), ``errors`` (count and the first few), ``chats_rotated``,
``samples`` (seconds, RSS MB, fds, heap MB, mapped-file MB), ``target`` (the slope's goal
and whether it is met), ``config`` (the arguments), ``loadavg`` (start and end), ``cpus``.
Exit status 1 when any request failed, else 0; the slope target is reported, not enforced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from former_keys import with_former_keys  # noqa: E402
from service import Server, write_config  # noqa: E402

SLOPE_TARGET = 1.0
"""MB per minute over the last half of the run."""
MIX = (
    ("append", 40),
    ("context", 22),
    ("messages", 10),
    ("chat", 6),
    ("summaries", 6),
    ("healthz", 4),
    ("metrics", 3),
    ("events", 4),
    ("summarize", 2),
    ("retry", 3),
)
TOPICS = ["Lisbon", "Porto", "the budget", "the car", "surf lessons", "the hotel", "trains"]
MB = 1024 * 1024


@dataclass
class Load:
    """The chats in play and what the clients did."""

    chats: list[str]
    chat_messages: int
    counts: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    sent: dict[str, int] = field(default_factory=dict)
    last_append: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    rotated: int = 0
    gone: set[str] = field(default_factory=set)
    """Chats deleted by a rotation (a request racing the deletion gets a fair 404)."""
    rotating: asyncio.Lock = field(default_factory=asyncio.Lock)


# -- the server's memory ----------------------------------------------------------------------


def memory_mb(pid: int) -> dict[str, float]:
    """``VmRSS`` of ``pid`` in MB, and its parts: ``RssAnon`` (the heap) and ``RssFile``
    (memory-mapped files, such as the vector store's segments)."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            found[key] = int(value.split()[0]) / 1024
    return found


def open_fds(pid: int) -> int:
    """Open file descriptors of ``pid``."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope_per_minute(samples: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of (seconds, MB) samples, in MB per minute."""
    if len(samples) < 2:
        return None
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_v = sum(v for _, v in samples) / n
    spread = sum((t - mean_t) ** 2 for t, _ in samples)
    if spread == 0:
        return None
    slope = sum((t - mean_t) * (v - mean_v) for t, v in samples) / spread
    return slope * 60


Sample = tuple[float, float, int, float, float]
"""Seconds since the start, RSS MB, open fds, anonymous MB, file-backed MB."""


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the server's background embedding process among them)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # the process ended meanwhile
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, index = [pid], 0
    while index < len(tree):
        tree.extend(child for child, parent in parents.items() if parent == tree[index])
        index += 1
    return tree


def take(pid: int, t0: float) -> Sample:
    """One sample of the server's whole process tree (summed)."""
    totals = {"VmRSS": 0.0, "RssAnon": 0.0, "RssFile": 0.0}
    fds = 0
    for member in process_tree(pid):
        try:
            memory, opened = memory_mb(member), open_fds(member)
        except OSError:  # a child that ended between the listing and the read
            continue
        for key in totals:
            totals[key] += memory.get(key, 0.0)
        fds += opened
    return (time.perf_counter() - t0, totals["VmRSS"], fds, totals["RssAnon"], totals["RssFile"])


async def sample(pid: int, every: float, into: list[Sample], t0: float) -> None:
    """Append a :data:`Sample` every ``every`` seconds until cancelled."""
    while True:
        into.append(take(pid, t0))
        await asyncio.sleep(every)


# -- the load ---------------------------------------------------------------------------------


def message(chat: str, number: int, rng: random.Random) -> dict[str, str]:
    topic = rng.choice(TOPICS)
    role = "user" if number % 2 == 0 else "assistant"
    text = f"[{chat}/{number}] About {topic}: " + " ".join(
        rng.choice(["we", "could", "book", "visit", "compare", "prices", "on", "Friday", "early"])
        for _ in range(rng.randint(8, 40))
    )
    return {"role": role, "content": text}


async def new_chat(client: httpx.AsyncClient, load: Load) -> str:
    chat = f"soak-{uuid.uuid4().hex[:10]}"
    answer = await client.post("/chats", json={"id": chat, "user": f"u{len(load.chats) % 7}"})
    answer.raise_for_status()
    load.sent[chat] = 0
    return chat


async def rotate(client: httpx.AsyncClient, load: Load, slot: int, old: str) -> None:
    """Delete a full chat and put a new one in its place (the data stays the same size)."""
    async with load.rotating:
        if load.chats[slot] != old:  # another client rotated it meanwhile
            return
        load.chats[slot] = await new_chat(client, load)
        load.gone.add(old)
        load.last_append.pop(old, None)
        (await client.delete(f"/chats/{old}")).raise_for_status()
        load.rotated += 1


async def one_request(
    client: httpx.AsyncClient, load: Load, kind: str, rng: random.Random, chat: str, slot: int
) -> httpx.Response | None:
    if kind == "append":
        if load.sent.get(chat, 0) >= load.chat_messages:
            await rotate(client, load, slot, chat)
            chat = load.chats[slot]
        count = rng.choice((1, 2))
        body = {"messages": [message(chat, load.sent[chat] + i, rng) for i in range(count)]}
        load.sent[chat] = load.sent.get(chat, 0) + count
        key = uuid.uuid4().hex
        load.last_append[chat] = (key, body)
        return await client.post(
            f"/chats/{chat}/messages", json=body, headers={"Idempotency-Key": key}
        )
    if kind == "retry":
        if chat not in load.last_append:
            return None
        key, body = load.last_append[chat]
        return await client.post(
            f"/chats/{chat}/messages", json=body, headers={"Idempotency-Key": key}
        )
    if kind == "context":
        query = f"What did we say about {rng.choice(TOPICS)}?"
        return await client.post(f"/chats/{chat}/context", json={"query": query})
    if kind == "events":
        async with client.stream("GET", f"/chats/{chat}/events") as stream:
            async for _ in stream.aiter_lines():
                break  # the state event: enough, hang up
            return stream
    paths = {
        "messages": f"/chats/{chat}/messages?limit=50",
        "chat": f"/chats/{chat}",
        "summaries": f"/chats/{chat}/summaries",
        "healthz": "/healthz",
        "metrics": "/metrics",
    }
    if kind == "summarize":
        return await client.post(f"/chats/{chat}/summarize")
    return await client.get(paths[kind])


async def client_loop(
    client: httpx.AsyncClient, load: Load, schedule: asyncio.Queue[float], seed: int
) -> None:
    rng = random.Random(seed)
    kinds, weights = zip(*MIX, strict=True)
    while True:
        due = await schedule.get()
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        kind = rng.choices(kinds, weights)[0]
        slot = rng.randrange(len(load.chats))
        chat = load.chats[slot]
        try:
            answer = await one_request(client, load, kind, rng, chat, slot)
        except httpx.HTTPError as exc:
            load.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
            continue
        if answer is None:
            continue
        load.counts[kind] += 1
        raced = answer.status_code == 404 and chat in load.gone
        if answer.status_code >= 400 and not raced:
            load.errors.append(f"{kind}: HTTP {answer.status_code}: {answer.text[:200]}")


async def pace(schedule: asyncio.Queue[float], rate: float, until: float) -> None:
    """Put the due time of request n (n / rate after the start) on the schedule."""
    start = time.perf_counter()
    number = 0
    while (due := start + number / rate) < until:
        await schedule.put(due)
        number += 1


# -- the run ----------------------------------------------------------------------------------


async def soak(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    write_config(directory, "rag_augmented")
    with Server("longtalk", directory) as server:
        assert server.process is not None
        await server.wait_ready()
        pid = server.process.pid
        samples: list[Sample] = []
        t0 = time.perf_counter()
        sampler = asyncio.create_task(sample(pid, args.sample_seconds, samples, t0))
        limits = httpx.Limits(max_connections=args.clients * 2)
        async with httpx.AsyncClient(
            base_url=server.base, timeout=args.timeout, limits=limits
        ) as client:
            load = Load([], args.chat_messages)
            for _ in range(args.chats):
                load.chats.append(await new_chat(client, load))
            schedule: asyncio.Queue[float] = asyncio.Queue(maxsize=args.clients * 4)
            clients = [
                asyncio.create_task(client_loop(client, load, schedule, seed))
                for seed in range(args.clients)
            ]
            await pace(schedule, args.rate, t0 + args.minutes * 60)
            while not schedule.empty():
                await asyncio.sleep(0.1)
            await asyncio.sleep(args.sample_seconds)
            for task in clients:
                task.cancel()
            await asyncio.gather(*clients, return_exceptions=True)
        sampler.cancel()
        await asyncio.gather(sampler, return_exceptions=True)
        samples.append(take(pid, t0))
    return report(args, samples, load)


def report(args: argparse.Namespace, samples: list[Sample], load: Load) -> dict[str, Any]:
    warm_at = args.warmup_minutes * 60
    warm = next((s for s in samples if s[0] >= warm_at), samples[-1])
    end = samples[-1]
    half = end[0] / 2
    slope = slope_per_minute([(s[0], s[1]) for s in samples if s[0] >= half])
    anon = slope_per_minute([(s[0], s[3]) for s in samples if s[0] >= half])
    mapped = slope_per_minute([(s[0], s[4]) for s in samples if s[0] >= half])
    met = slope is not None and slope <= SLOPE_TARGET
    return {
        "rss_start_mb": round(samples[0][1], 1),
        "rss_warm_mb": round(warm[1], 1),
        "rss_end_mb": round(end[1], 1),
        "rss_max_mb": round(max(s[1] for s in samples), 1),
        "slope_last_half_mb_per_min": None if slope is None else round(slope, 3),
        "slope_last_half_anon_mb_per_min": None if anon is None else round(anon, 3),
        "slope_last_half_file_mb_per_min": None if mapped is None else round(mapped, 3),
        "anon_end_mb": round(end[3], 1),
        "file_end_mb": round(end[4], 1),
        "end_over_warm": round(end[1] / warm[1], 3),
        "fds_start": samples[0][2],
        "fds_end": end[2],
        "requests": dict(load.counts),
        "requests_total": sum(load.counts.values()),
        "errors": len(load.errors),
        "first_errors": load.errors[:10],
        "chats_rotated": load.rotated,
        "samples": [
            (round(t, 1), round(rss, 1), fds, round(anon, 1), round(mapped, 1))
            for t, rss, fds, anon, mapped in samples
        ],
        "target": {"slope_mb_per_min": SLOPE_TARGET, "met": met},
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="Length of the load.")
    parser.add_argument("--json", type=Path, help="Write the results here.")
    parser.add_argument("--rate", type=float, default=15.0, help="Requests per second in all.")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--chats", type=int, default=48, help="Chats in play at any time.")
    parser.add_argument(
        "--chat-messages", type=int, default=60, help="A chat is replaced after this many."
    )
    parser.add_argument("--warmup-minutes", type=float, default=None, help="Default: a tenth.")
    parser.add_argument("--sample-seconds", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=60.0, help="Per request, seconds.")
    args = parser.parse_args(argv)
    if args.warmup_minutes is None:
        args.warmup_minutes = args.minutes / 10
    return args


def print_report(out: dict[str, Any]) -> None:
    print(
        f"RSS start {out['rss_start_mb']} MB, after warm-up {out['rss_warm_mb']} MB, "
        f"end {out['rss_end_mb']} MB (max {out['rss_max_mb']}); end / warm-up "
        f"{out['end_over_warm']}"
    )
    print(
        f"at the end: {out['anon_end_mb']} MB heap, {out['file_end_mb']} MB mapped files; "
        f"slopes: heap {out['slope_last_half_anon_mb_per_min']}, "
        f"files {out['slope_last_half_file_mb_per_min']} MB/min"
    )
    print(
        f"slope over the last half: {out['slope_last_half_mb_per_min']} MB/min "
        f"(target <= {SLOPE_TARGET}: {'met' if out['target']['met'] else 'NOT met'})"
    )
    print(
        f"fds {out['fds_start']} -> {out['fds_end']}; {out['requests_total']} requests "
        f"{out['requests']}; {out['chats_rotated']} chats rotated; {out['errors']} errors"
    )
    for error in out["first_errors"]:
        print(f"  error: {error}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="longtalk-soak-") as tmp:
        out = asyncio.run(soak(args, Path(tmp)))
    out["config"] = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    out["loadavg"] = {"start": load_start, "end": os.getloadavg()}
    out["cpus"] = os.cpu_count()
    print_report(out)
    if args.json:
        args.json.write_text(json.dumps(with_former_keys(out), indent=2) + "\n", encoding="utf-8")
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
