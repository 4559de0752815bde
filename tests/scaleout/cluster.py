"""Several longtalk replicas as real processes on one PostgreSQL database (tests, bench).

:class:`Cluster` writes one configuration file (the database, an OpenAI-wire LLM double,
leased jobs), runs ``longtalk migrate`` once, then starts replicas with
``longtalk serve --no-migrate --port 0`` and reads the bound port from uvicorn's log.
Each replica gets its own LLM API key (``replica-N``), so the double tells them apart.
``kill(n)`` is a ``kill -9``. :class:`Client` is one workload client: it sends each request
to the next live replica, and retries a request that failed in transport (a killed
replica) on another one with the same ``Idempotency-Key``.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

KEY_ENV = "LONGTALK_SCALEOUT_LLM_KEY"
STARTED = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


def config_text(dsn: str, llm_url: str, *, vectors: str = "null:", **service: Any) -> str:
    """The replicas' ``agents.yaml``: small summaries due often, short leases."""
    service = {
        "summary_workers": 2,
        "summary_retry_seconds": 0.5,
        "summary_retry_max_seconds": 2.0,
        "job_lease_seconds": 3.0,
        "job_poll_seconds": 2.0,
        **service,
    }
    lines = [
        "supervisor:",
        "  memory:",
        "    strategy: running_summary",
        "    summary_model: openai:double",
        "    summary_trigger: pending_tokens",
        "    summary_trigger_tokens: 60",
        "    summary_recent_turns: 1",
        "    structured_output: false",
        "storage:",
        f"  url: {dsn}",
        "  pool_size: 5",
        "vectors:",
        f"  url: '{vectors}'",
        "llm:",
        f"  base_url: {llm_url}/v1",
        f"  api_key_env: {KEY_ENV}",
        "  max_retries: 1",
        "service:",
        *(f"  {key}: {value}" for key, value in service.items()),
    ]
    return "\n".join(lines) + "\n"


@dataclass
class Replica:
    """One ``longtalk serve`` process."""

    number: int
    process: subprocess.Popen[str]
    url: str = ""
    log: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    @property
    def key(self) -> str:
        return f"replica-{self.number}"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


class Cluster:
    """Replicas of longtalk on one database; see the module docstring."""

    def __init__(self, config: Path, *, python: str = sys.executable) -> None:
        self.config = config
        self.python = python
        self.replicas: list[Replica] = []

    def migrate(self) -> str:
        """Run ``longtalk migrate`` once; its output."""
        done = subprocess.run(
            [self.python, "-m", "longtalk.cli", "migrate", "-c", str(self.config)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout

    def start(self, number: int) -> Replica:
        """Start replica ``number`` (not waiting for it to listen)."""
        env = {**os.environ, KEY_ENV: f"replica-{number}", "PYTHONUNBUFFERED": "1"}
        command = [self.python, "-m", "longtalk.cli", "serve", "-c", str(self.config)]
        command += ["--port", "0", "--no-migrate", "--log-level", "info"]
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        replica = Replica(number, process)
        replica.reader = threading.Thread(target=_read_log, args=(replica,), daemon=True)
        replica.reader.start()
        if number < len(self.replicas):
            self.replicas[number] = replica
        else:
            self.replicas.append(replica)
        return replica

    async def ready(self, replica: Replica, timeout: float = 60.0) -> None:
        """Wait until the replica listens and answers ``/healthz``."""
        deadline = time.monotonic() + timeout
        while not replica.url:
            if not replica.alive or time.monotonic() > deadline:
                raise RuntimeError(f"replica {replica.number} did not start:\n" + _tail(replica))
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(base_url=replica.url, timeout=10) as client:
            while time.monotonic() < deadline:
                try:
                    if (await client.get("/healthz")).status_code < 500:
                        return
                except httpx.TransportError:  # a loaded machine: slow, not down
                    pass
                await asyncio.sleep(0.2)
        raise RuntimeError(f"replica {replica.number} is not healthy:\n" + _tail(replica))

    async def up(self, count: int) -> None:
        """Start ``count`` replicas and wait for all of them."""
        started = [self.start(number) for number in range(count)]
        await asyncio.gather(*(self.ready(replica) for replica in started))

    def live(self) -> list[Replica]:
        return [replica for replica in self.replicas if replica.alive and replica.url]

    def kill(self, number: int) -> None:
        """``kill -9`` replica ``number``."""
        replica = self.replicas[number]
        os.kill(replica.process.pid, signal.SIGKILL)
        replica.process.wait(10)
        if replica.reader is not None:
            replica.reader.join(10)

    def stop(self) -> None:
        """End every replica still running (SIGTERM, then SIGKILL)."""
        for replica in self.replicas:
            if replica.alive:
                replica.process.terminate()
        for replica in self.replicas:
            try:
                replica.process.wait(10)
            except subprocess.TimeoutExpired:
                replica.process.kill()
                replica.process.wait(10)
            if replica.reader is not None:
                replica.reader.join(10)


def _read_log(replica: Replica) -> None:
    stream = replica.process.stderr
    assert stream is not None
    with stream:  # closed at the end of the output: the process ended
        for line in stream:
            replica.log.append(line.rstrip())
            if not replica.url and (found := STARTED.search(line)):
                replica.url = f"http://127.0.0.1:{found.group(1)}"


def _tail(replica: Replica) -> str:
    return "\n".join(replica.log[-30:])


@dataclass
class Timing:
    """Latencies (seconds) of one kind of request."""

    seconds: list[float] = field(default_factory=list)

    def p95(self) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


class Client:
    """One workload client over every live replica of a cluster."""

    def __init__(self, cluster: Cluster, number: int, *, attempts: int = 8) -> None:
        self.cluster = cluster
        self.number = number
        self.attempts = attempts
        self.turn = number
        self.retries = 0
        self.timings: dict[str, Timing] = {}
        self.http = httpx.AsyncClient(timeout=30)

    async def close(self) -> None:
        await self.http.aclose()

    async def send(self, kind: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send to the next live replica; a transport failure is retried on another one."""
        failure: Exception | None = None
        for _ in range(self.attempts):
            live = self.cluster.live()
            if not live:
                await asyncio.sleep(0.2)
                continue
            replica = live[self.turn % len(live)]
            self.turn += 1
            started = time.perf_counter()
            try:
                response = await self.http.request(method, replica.url + path, **kwargs)
            except httpx.TransportError as exc:  # a killed replica
                failure = exc
                self.retries += 1
                await asyncio.sleep(0.1)
                continue
            if response.status_code >= 500:  # the replica is going down
                failure = RuntimeError(f"{response.status_code}: {response.text}")
                self.retries += 1
                await asyncio.sleep(0.1)
                continue
            self.timings.setdefault(kind, Timing()).seconds.append(time.perf_counter() - started)
            return response
        raise RuntimeError(f"{method} {path} failed on every replica: {failure}")
