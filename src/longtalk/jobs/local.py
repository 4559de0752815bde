"""The in-process job queue: one summary job per chat at a time, coalesced, bounded, retried.

What the library and a single-node service schedule summaries with. ``notify(chat)`` is
O(1) and touches no storage, so an append never waits for a summary. A chat is queued at
most once; an append that arrives while its job runs marks it dirty and the chat is queued
again when the job ends, so later appends coalesce into ONE next job and none is lost.
``workers`` tasks take chats off the queue and run them through the :class:`JobRunner`. A
failed (or backing-off) chat is not run again before the ``retry_at`` its job path set, in
whichever door the failure happened. ``recover()`` queues every chat with unsummarized
messages, so work pending when the process stopped is picked up at start-up. While more
than ``CATCH_UP_QUEUED`` chats wait, jobs run at the process's priority instead of yielding
to requests, so a load that never lets up cannot starve summaries.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from longtalk.embed.priority import catching_up
from longtalk.engine import MemoryEngine
from longtalk.jobs.background import stop_tasks
from longtalk.jobs.runner import JobReporter, JobResult, JobRunner

log = logging.getLogger(__name__)
RECOVER_PAGE = 200
CATCH_UP_QUEUED = 16
"""Chats waiting for a summary past which jobs stop yielding the CPU to requests."""
JobKey = tuple[str, str]
"""(chat id, incarnation): a job belongs to one incarnation of a chat."""


@dataclass(slots=True)
class _Slot:
    queued: bool = False
    running: bool = False
    dirty: bool = False
    force: bool = False
    retry: asyncio.TimerHandle | None = None
    waiters: list[asyncio.Future[JobResult]] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        return bool(self.queued or self.running or self.retry is not None or self.waiters)


class LocalJobs:
    """Summary jobs of one process, run by ``workers`` tasks."""

    def __init__(
        self, engine: MemoryEngine, *, workers: int = 1, reporter: JobReporter | None = None
    ) -> None:
        self.engine = engine
        self.workers = workers
        self.runner = JobRunner(engine, reporter)
        self._slots: dict[JobKey, _Slot] = {}
        self._queue: asyncio.Queue[JobKey] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def runs(self) -> int:
        """Jobs that ran the summarizer."""
        return self.runner.runs

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the workers (idempotent)."""
        if self._tasks:
            return
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
                        self._notify((chat.id, chat.incarnation))
                        queued += 1
                if len(page) < RECOVER_PAGE:
                    break
                offset += RECOVER_PAGE
        return queued

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        await self._queue.join()

    # -- what the doors call ------------------------------------------------------------------

    async def notify(self, chat_id: str, tenant: str = "", *, incarnation: str = "") -> None:
        """New messages in a chat: queue a job, or mark the running one dirty."""
        self._notify((chat_id, incarnation))

    def _notify(self, key: JobKey) -> None:
        slot = self._slots.setdefault(key, _Slot())
        if slot.running:
            slot.dirty = True
        elif not slot.queued and slot.retry is None:
            self._enqueue(key, slot)

    async def run_now(self, chat_id: str, tenant: str = "", *, incarnation: str = "") -> JobResult:
        """Summarize now, even below the trigger, through the chat's queue; wait for it."""
        key = (chat_id, incarnation)
        slot = self._slots.setdefault(key, _Slot())
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
        """Drop a deleted chat's slot; its queued or running job finds the chat gone."""
        slot = self._slots.get((chat_id, incarnation))
        if slot is not None and not (slot.running or slot.queued):
            if slot.retry is not None:
                slot.retry.cancel()
            self._slots.pop((chat_id, incarnation), None)

    def counts(self) -> tuple[int, int]:
        """Chats queued and running now."""
        slots = self._slots.values()
        return sum(slot.queued for slot in slots), sum(slot.running for slot in slots)

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
        behind = self._queue.qsize() > CATCH_UP_QUEUED
        try:
            with catching_up(behind):
                result = await self.runner.run(chat_id, force=force, incarnation=incarnation)
        finally:
            slot.running = False
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(result)
        self.settled(chat_id, result)
        if result.outcome == "gone":
            self._slots.pop(key, None)
            return
        if result.retry_at is not None:
            self._retry_at(key, slot, result.retry_at)
        elif (slot.dirty or slot.force or result.again) and slot.retry is None:
            self._enqueue(key, slot)
        elif not slot.busy:
            self._slots.pop(key, None)

    def settled(self, chat_id: str, result: JobResult) -> None:
        """A job of the chat ended (a hook for what a scheduler keeps about chats)."""

    def _retry_at(self, key: JobKey, slot: _Slot, when: datetime) -> None:
        """Look at the chat again at ``when`` (its backoff), not before."""
        if slot.retry is not None:
            slot.retry.cancel()
        delay = max(0.0, (when - datetime.now(UTC)).total_seconds())
        slot.retry = asyncio.get_running_loop().call_later(delay, self._retry, key)

    def _retry(self, key: JobKey) -> None:
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.retry = None
        if not (slot.running or slot.queued):
            self._enqueue(key, slot)
