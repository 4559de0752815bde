"""The background indexer: the recall index follows the stored messages, off the request path.

Appends only commit messages; :meth:`IndexWorker.notify` (synchronous, O(1)) wakes the
worker, which runs the engine's outbox (``index_pending``: turns past each chat's durable
watermark, many chats per embedder call) until nothing lags. A failing embedder or vector
store is retried with backoff (``retry_seconds`` doubling up to ``max_retry_seconds``); the
first run at start-up picks up whatever a previous process left. Recall simply lags; context
assembly never waits for it. Which chats a run takes is the ``index_pass``'s choice: a single
node indexes the whole backlog (:class:`WholeBacklog`); replicas on PostgreSQL lease the chats
they index (``leased_indexing.LeasedIndexPass``), so every turn is embedded once across
replicas.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from longtalk.engine import MemoryEngine
from longtalk.jobs.background import stop_tasks, wait_event
from longtalk.recall.outbox import IndexRun
from longtalk.service.metrics import ServiceMetrics

log = logging.getLogger(__name__)
IDLE_SECONDS = 5.0
"""How often an idle worker looks at the backlog anyway (writes by other processes)."""
GATHER_SECONDS = 0.2
"""How long a woken worker lets appends gather, so one embedder call serves many."""


class IndexPass(Protocol):
    """One indexing run of a replica."""

    async def index(self, engine: MemoryEngine) -> IndexRun:
        """Index some of the turns past the chats' watermarks; what it did, or its error."""
        ...


class WholeBacklog:
    """A single node: every run takes the storage's backlog, the longest waiting first."""

    async def index(self, engine: MemoryEngine) -> IndexRun:
        """Index the backlog (see ``RecallIndexer.index_pending``)."""
        return await engine.index_pending()


class IndexWorker:
    """One background task that keeps the recall index up to date."""

    def __init__(
        self,
        engine: MemoryEngine,
        metrics: ServiceMetrics,
        *,
        retry_seconds: float = 1.0,
        max_retry_seconds: float = 60.0,
        index_pass: IndexPass | None = None,
    ) -> None:
        self.engine = engine
        self.index_pass = index_pass or WholeBacklog()
        self.metrics = metrics
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.failures = 0
        self.last_error: str | None = None
        self.last_success: float | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        """True when the engine stores turns for recall."""
        return self.engine.indexes

    def start(self) -> None:
        """Start the worker (a no-op without recall)."""
        if self.enabled and self._task is None:
            self._task = asyncio.create_task(self._loop(), name="longtalk-indexer")

    async def stop(self) -> None:
        """Stop the worker; what it did not index stays behind the watermark."""
        task, self._task = self._task, None
        if task is not None:
            await stop_tasks([task])

    def notify(self) -> None:
        """New messages were stored: wake the worker."""
        self._idle.clear()
        self._wake.set()

    async def drain(self) -> None:
        """Wait until the backlog is empty or a run fails (tests, benchmarks)."""
        if self._task is not None:
            await self._idle.wait()

    async def _loop(self) -> None:
        delay = 0.0
        while True:
            await wait_event(self._wake, delay)
            if self._wake.is_set() and delay > 0:  # woken from idle: let appends gather
                await asyncio.sleep(GATHER_SECONDS)
            self._wake.clear()
            delay = await self._run_once()  # 0 after indexed turns: a backlog runs on at once

    async def _run_once(self) -> float:
        """One run; returns how long to wait before the next."""
        run = await self.index_pass.index(self.engine)
        if run.error is not None:
            self.failures += 1
            self.last_error = run.error
            self.metrics.index_runs.labels("failed").inc()
            self._idle.set()
            backoff: float = self.retry_seconds * 2.0 ** (self.failures - 1)
            return min(backoff, self.max_retry_seconds)
        self.failures, self.last_error = 0, None
        self.last_success = time.time()
        if run.turns:
            self.metrics.index_runs.labels("indexed").inc()
            self.metrics.indexed_turns.inc(run.turns)
            return 0.0
        self._idle.set()
        return IDLE_SECONDS
