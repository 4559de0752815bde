"""Background summarization: one job per chat at a time, coalesced, bounded, retried.

``notify(chat_id, tenant)`` is what the write path calls; it is synchronous and O(1), so a
write never waits for a summary. A chat is queued at most once; a write that arrives while
its job runs sets a dirty flag and the chat is queued again when the job ends, so later
writes coalesce into ONE next job and none is lost. ``workers`` tasks take chats off the
queue. A job first checks the trigger (cheap: storage and token counting only); only a
due chat runs the summarizer, announced by ``summarizing`` and ended by ``summarized`` or
``failed`` events. A failed job is retried after ``retry_seconds`` doubling per failure (up
to ``max_retry_seconds``). ``recover()`` queues every chat with unsummarized messages, so
work pending when the service stopped is picked up again at start-up.

A job belongs to one incarnation of a chat (``ChatRecord.incarnation``): it is keyed by
(chat id, incarnation), summarizes only that incarnation and publishes its events only to
that incarnation's streams, so a chat deleted and created again under its id gets none of
the old chat's work.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from memstrata.engine import MemoryEngine, SummarizeOutcome
from memstrata.errors import BackendError, NotFoundError
from memstrata.service.events import ChatEvent, EventHub, SummaryState
from memstrata.service.metrics import ServiceMetrics

log = logging.getLogger(__name__)

JobOutcome = Literal["summarized", "unchanged", "skipped", "failed", "gone"]
RECOVER_PAGE = 200
JobKey = tuple[str, str]
"""(chat id, incarnation)."""


@dataclass(frozen=True, slots=True)
class JobResult:
    """What one job did."""

    outcome: JobOutcome
    episode_ranges: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None


@dataclass(slots=True)
class _Slot:
    tenant: str
    state: SummaryState = "idle"
    queued: bool = False
    running: bool = False
    dirty: bool = False
    force: bool = False
    failures: int = 0
    last_error: str | None = None
    retry: asyncio.TimerHandle | None = None
    waiters: list[asyncio.Future[JobResult]] = field(default_factory=list)

    @property
    def disposable(self) -> bool:
        busy = self.queued or self.running or self.retry is not None or self.waiters
        return not busy and self.state == "idle"


class SummaryJobs:
    """The background summarization job manager of one service."""

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
        self.metrics = metrics
        self.workers = workers
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self._slots: dict[JobKey, _Slot] = {}
        self._queue: asyncio.Queue[JobKey] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self.runs = 0  # jobs that ran the summarizer

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
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
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
                        self.notify(chat.id, chat.tenant, incarnation=chat.incarnation)
                        queued += 1
                if len(page) < RECOVER_PAGE:
                    break
                offset += RECOVER_PAGE
        return queued

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        await self._queue.join()

    # -- the write path's side ---------------------------------------------------------------

    def notify(self, chat_id: str, tenant: str, *, incarnation: str = "") -> None:
        """New messages in a chat: queue a job, or mark the running one dirty."""
        key = (chat_id, incarnation)
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
        slot = self._slots.get((chat_id, incarnation))
        if slot is not None and not (slot.running or slot.queued):
            if slot.retry is not None:
                slot.retry.cancel()
            self._slots.pop((chat_id, incarnation), None)

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        slot = self._slots.get((chat_id, incarnation))
        if slot is None:
            return "idle", None
        return slot.state, slot.last_error

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event."""
        state, error = self.state(chat_id, incarnation=incarnation)
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
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.queued, slot.running, slot.dirty = False, True, False
        force, slot.force = slot.force, False
        waiters, slot.waiters = (slot.waiters, []) if force else ([], slot.waiters)
        try:
            result = await self._run(key, slot, force=force)
        finally:
            slot.running = False
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(result)
        again = slot.dirty or slot.force or result.outcome == "summarized"
        if result.outcome == "gone":
            self._slots.pop(key, None)
        elif again and slot.retry is None:
            self._enqueue(key, slot)
        elif slot.disposable:
            self._slots.pop(key, None)

    async def _run(self, key: JobKey, slot: _Slot, *, force: bool) -> JobResult:
        chat_id, incarnation = key
        try:
            if not force and not await self._due(key):
                if slot.state == "failed" and slot.retry is None:
                    slot.state, slot.last_error, slot.failures = "idle", None, 0
                self.metrics.jobs.labels("skipped").inc()
                return JobResult("skipped")
            started = ChatEvent("summarizing", chat_id, "summarizing", incarnation=incarnation)
            self._set(slot, "summarizing", started)
            outcome = await self._summarize(key, force=force)
        except NotFoundError:
            return JobResult("gone")
        except BackendError as exc:
            return self._failed(key, slot, str(exc))
        except Exception as exc:  # a bug must not kill the worker; the job is retried
            log.exception("summarization job for chat %s crashed", chat_id)
            return self._failed(key, slot, f"{type(exc).__name__}: {exc}")
        usage = outcome.plan.usage
        self.metrics.tokens.labels(slot.tenant, "input").inc(usage.input_tokens)
        self.metrics.tokens.labels(slot.tenant, "output").inc(usage.output_tokens)
        if outcome.plan.error is not None:
            return self._failed(key, slot, str(outcome.plan.error))
        return self._succeeded(key, slot, outcome)

    async def _summarize(self, key: JobKey, *, force: bool) -> SummarizeOutcome:
        self.metrics.running.inc()
        started = time.perf_counter()
        try:
            return await self.engine.summarize(key[0], force=force, incarnation=key[1])
        finally:
            self.runs += 1
            self.metrics.running.dec()
            self.metrics.job_seconds.observe(time.perf_counter() - started)

    async def _due(self, key: JobKey) -> bool:
        """Whether the trigger holds: loads the state, runs no summarizer."""
        return await self.engine.summary_due(key[0], incarnation=key[1])

    def _succeeded(self, key: JobKey, slot: _Slot, outcome: SummarizeOutcome) -> JobResult:
        ranges = [(row.episode_first, row.episode_last) for row in outcome.plan.rows]
        slot.failures, slot.last_error = 0, None
        version = outcome.chat.summary_version if outcome.chat else None
        event = ChatEvent(
            "summarized", key[0], "idle", ranges, summary_version=version, incarnation=key[1]
        )
        self._set(slot, "idle", event)
        kind: JobOutcome = "summarized" if outcome.changed else "unchanged"
        self.metrics.jobs.labels(kind).inc()
        return JobResult(kind, ranges)

    def _failed(self, key: JobKey, slot: _Slot, error: str) -> JobResult:
        slot.failures += 1
        slot.last_error = error
        event = ChatEvent("failed", key[0], "failed", error=error, incarnation=key[1])
        self._set(slot, "failed", event)
        self.metrics.jobs.labels("failed").inc()
        delay = min(self.max_retry_seconds, self.retry_seconds * 2 ** (slot.failures - 1))
        log.warning("summarizing chat %s failed (retry in %.1fs): %s", key[0], delay, error)
        slot.retry = asyncio.get_running_loop().call_later(delay, self._retry, key)
        return JobResult("failed", error=error)

    def _retry(self, key: JobKey) -> None:
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.retry = None
        if not (slot.running or slot.queued):
            self._enqueue(key, slot)

    def _set(self, slot: _Slot, state: SummaryState, event: ChatEvent) -> None:
        slot.state = state
        self.hub.publish(event)
