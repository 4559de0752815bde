"""Background summarization: one job per chat at a time, coalesced, bounded, retried.

:class:`SummaryQueue` is the seam the service talks to. Two queues implement it:
:class:`SummaryJobs` here (in-process, one node: SQLite or a single PostgreSQL replica
without leases) and ``queue_pg.LeasedSummaryJobs`` (PostgreSQL: jobs are rows leased by one
worker across every replica).

``notify(chat_id, tenant)`` is what the write path calls; for this queue it is O(1) and
touches no storage, so a write never waits for a summary. A chat is queued at most once; a
write that arrives while its job runs sets a dirty flag and the chat is queued again when
the job ends, so later writes coalesce into ONE next job and none is lost. ``workers`` tasks
take chats off the queue and run them through :class:`SummaryRunner`. A failed job is
retried after ``retry_seconds`` doubling per failure (up to ``max_retry_seconds``).
``recover()`` queues every chat with unsummarized messages, so work pending when the service
stopped is picked up again at start-up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from longtalk.engine import MemoryEngine
from longtalk.service.background import stop_tasks
from longtalk.service.events import ChatEvent, EventHub, SummaryState, SummaryStates
from longtalk.service.job_runner import JobOutcome, JobResult, SummaryRunner, backoff
from longtalk.service.metrics import ServiceMetrics

__all__ = ["JobOutcome", "JobResult", "SummaryJobs", "SummaryQueue"]

log = logging.getLogger(__name__)
RECOVER_PAGE = 200
JobKey = tuple[str, str]
"""(chat id, incarnation): a job belongs to one incarnation of a chat."""


class SummaryQueue(Protocol):
    """Where the service sends summarization work (in-process or PostgreSQL-leased)."""

    workers: int
    runner: SummaryRunner

    def start(self) -> None:
        """Start the workers."""
        ...

    async def stop(self) -> None:
        """Stop the workers; unfinished work stays in storage."""
        ...

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages; returns how many."""
        ...

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        ...

    async def notify(self, chat_id: str, tenant: str, *, incarnation: str = "") -> None:
        """New messages in a chat: make sure a job will look at it."""
        ...

    async def run_now(self, chat_id: str, tenant: str, *, incarnation: str = "") -> JobResult:
        """Summarize now, even below the trigger, one job per chat at a time; wait for it."""
        ...

    def forget(self, chat_id: str, *, incarnation: str = "") -> None:
        """Drop a deleted chat's state; its queued or running job finds the chat gone."""
        ...

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        ...

    def backlog(self) -> dict[str, int | str | None]:
        """The queue for ``/healthz``: jobs running here, chats failing, the last error."""
        ...

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event (of that incarnation)."""
        ...

    @property
    def runs(self) -> int:
        """Jobs of this process that ran the summarizer."""
        ...


@dataclass(slots=True)
class _Slot:
    tenant: str
    queued: bool = False
    running: bool = False
    dirty: bool = False
    force: bool = False
    failures: int = 0
    retry: asyncio.TimerHandle | None = None
    waiters: list[asyncio.Future[JobResult]] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        return bool(self.queued or self.running or self.retry is not None or self.waiters)


class SummaryJobs:
    """The in-process summarization job queue of one service."""

    def __init__(
        self,
        engine: MemoryEngine,
        *,
        hub: EventHub,
        metrics: ServiceMetrics,
        workers: int = 2,
        retry_seconds: float = 5.0,
        max_retry_seconds: float = 300.0,
    ) -> None:
        self.engine = engine
        self.hub = hub
        self.workers = workers
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.runner = SummaryRunner(engine, hub=hub, metrics=metrics)
        self.states = SummaryStates()
        hub.watch(self.states.observe)
        self._slots: dict[JobKey, _Slot] = {}
        self._queue: asyncio.Queue[JobKey] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def runs(self) -> int:
        """Jobs that ran the summarizer."""
        return self.runner.runs

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the workers."""
        for number in range(self.workers):
            self._tasks.append(asyncio.create_task(self._work(), name=f"summary-worker-{number}"))

    async def stop(self) -> None:
        """Stop the workers; queued work stays in storage and is recovered at next start."""
        for slot in self._slots.values():
            if slot.retry is not None:
                slot.retry.cancel()
            for waiter in slot.waiters:
                waiter.cancel()
        await stop_tasks(self._tasks)
        self._tasks.clear()

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages; returns how many."""
        queued = 0
        for tenant in tenants:
            offset = 0
            while True:
                page = await self.engine.storage.list_chats(
                    tenant=tenant, limit=RECOVER_PAGE, offset=offset
                )
                for chat in page:
                    if chat.message_count > chat.last_summarized_sequence:
                        self._notify((chat.id, chat.incarnation), chat.tenant)
                        queued += 1
                if len(page) < RECOVER_PAGE:
                    break
                offset += RECOVER_PAGE
        return queued

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        await self._queue.join()

    # -- the write path's side ---------------------------------------------------------------

    async def notify(self, chat_id: str, tenant: str, *, incarnation: str = "") -> None:
        """New messages in a chat: queue a job, or mark the running one dirty."""
        self._notify((chat_id, incarnation), tenant)

    def _notify(self, key: JobKey, tenant: str) -> None:
        slot = self._slots.setdefault(key, _Slot(tenant))
        if slot.running:
            slot.dirty = True
        elif not slot.queued and slot.retry is None:
            self._enqueue(key, slot)

    async def run_now(self, chat_id: str, tenant: str, *, incarnation: str = "") -> JobResult:
        """Summarize now, even below the trigger, through the chat's job queue; wait for it."""
        key = (chat_id, incarnation)
        slot = self._slots.setdefault(key, _Slot(tenant))
        waiter: asyncio.Future[JobResult] = asyncio.get_running_loop().create_future()
        slot.waiters.append(waiter)
        slot.force = True
        if slot.retry is not None:
            slot.retry.cancel()
            slot.retry = None
        if slot.running:
            slot.dirty = True
        elif not slot.queued:
            self._enqueue(key, slot)
        return await waiter

    def forget(self, chat_id: str, *, incarnation: str = "") -> None:
        """Drop a deleted chat's state; its queued or running job finds the chat gone."""
        self.states.clear(chat_id)
        slot = self._slots.get((chat_id, incarnation))
        if slot is not None and not (slot.running or slot.queued):
            if slot.retry is not None:
                slot.retry.cancel()
            self._slots.pop((chat_id, incarnation), None)

    def backlog(self) -> dict[str, int | str | None]:
        """The queue for ``/healthz``: chats queued, running, failing, and the last error."""
        failing = self.states.failing()
        return {
            "queued": sum(slot.queued for slot in self._slots.values()),
            "running": sum(slot.running for slot in self._slots.values()),
            "failing": len(failing),
            "last_error": failing[-1] if failing else None,
        }

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        return self.states.get(chat_id)

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event (of that incarnation)."""
        state, error = self.state(chat_id)
        return ChatEvent("state", chat_id, state, error=error, incarnation=incarnation)

    # -- workers ------------------------------------------------------------------------------

    def _enqueue(self, key: JobKey, slot: _Slot) -> None:
        slot.queued = True
        self._queue.put_nowait(key)

    async def _work(self) -> None:
        while True:
            key = await self._queue.get()
            try:
                await self._take(key)
            finally:
                self._queue.task_done()

    async def _take(self, key: JobKey) -> None:
        chat_id, incarnation = key
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.queued, slot.running, slot.dirty = False, True, False
        force, slot.force = slot.force, False
        waiters, slot.waiters = (slot.waiters, []) if force else ([], slot.waiters)
        try:
            result = await self.runner.run(
                chat_id, slot.tenant, force=force, incarnation=incarnation
            )
        finally:
            slot.running = False
        self._account(key, slot, result)
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(result)
        if result.outcome == "gone":
            self._slots.pop(key, None)
        elif (slot.dirty or slot.force or result.again) and slot.retry is None:
            self._enqueue(key, slot)
        elif not slot.busy and self.state(chat_id)[0] == "idle":
            self._slots.pop(key, None)

    def _account(self, key: JobKey, slot: _Slot, result: JobResult) -> None:
        """Failures schedule a retry; a skip after a failure that no longer holds is idle."""
        chat_id = key[0]
        if result.outcome == "failed":
            slot.failures += 1
            delay = backoff(slot.failures, base=self.retry_seconds, ceiling=self.max_retry_seconds)
            log.warning(
                "summarizing chat %s failed (retry in %.1fs): %s", chat_id, delay, result.error
            )
            slot.retry = asyncio.get_running_loop().call_later(delay, self._retry, key)
        elif result.outcome == "skipped":
            if self.state(chat_id)[0] == "failed" and slot.retry is None:
                slot.failures = 0
                self.states.clear(chat_id)
        elif result.outcome in ("summarized", "unchanged"):
            slot.failures = 0

    def _retry(self, key: JobKey) -> None:
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.retry = None
        if not (slot.running or slot.queued):
            self._enqueue(key, slot)
