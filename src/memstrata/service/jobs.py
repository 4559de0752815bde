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
        self._slots: dict[str, _Slot] = {}
        self._queue: asyncio.Queue[str] = asyncio.Queue()
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
                        self.notify(chat.id, chat.tenant)
                        queued += 1
                if len(page) < RECOVER_PAGE:
                    break
                offset += RECOVER_PAGE
        return queued

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        await self._queue.join()

    # -- the write path's side ---------------------------------------------------------------

    def notify(self, chat_id: str, tenant: str) -> None:
        """New messages in a chat: queue a job, or mark the running one dirty."""
        slot = self._slots.setdefault(chat_id, _Slot(tenant))
        if slot.running:
            slot.dirty = True
        elif not slot.queued and slot.retry is None:
            self._enqueue(chat_id, slot)

    async def run_now(self, chat_id: str, tenant: str) -> JobResult:
        """Summarize now, even below the trigger, through the chat's job queue; wait for it."""
        slot = self._slots.setdefault(chat_id, _Slot(tenant))
        waiter: asyncio.Future[JobResult] = asyncio.get_running_loop().create_future()
        slot.waiters.append(waiter)
        slot.force = True
        if slot.retry is not None:
            slot.retry.cancel()
            slot.retry = None
        if slot.running:
            slot.dirty = True
        elif not slot.queued:
            self._enqueue(chat_id, slot)
        return await waiter

    def forget(self, chat_id: str) -> None:
        """Drop a deleted chat's state."""
        slot = self._slots.get(chat_id)
        if slot is not None and not (slot.running or slot.queued):
            if slot.retry is not None:
                slot.retry.cancel()
            self._slots.pop(chat_id, None)

    def backlog(self) -> dict[str, int | str | None]:
        """The queue for ``/healthz``: chats queued, running, failing, and the last error."""
        failing = [slot for slot in self._slots.values() if slot.failures]
        return {
            "queued": sum(slot.queued for slot in self._slots.values()),
            "running": sum(slot.running for slot in self._slots.values()),
            "failing": len(failing),
            "last_error": failing[-1].last_error if failing else None,
        }

    def state(self, chat_id: str) -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        slot = self._slots.get(chat_id)
        if slot is None:
            return "idle", None
        return slot.state, slot.last_error

    def event(self, chat_id: str) -> ChatEvent:
        """The chat's current state as a ``state`` event."""
        state, error = self.state(chat_id)
        return ChatEvent("state", chat_id, state, error=error)

    # -- workers ------------------------------------------------------------------------------

    def _enqueue(self, chat_id: str, slot: _Slot) -> None:
        slot.queued = True
        self._queue.put_nowait(chat_id)

    async def _work(self) -> None:
        while True:
            chat_id = await self._queue.get()
            try:
                await self._take(chat_id)
            finally:
                self._queue.task_done()

    async def _take(self, chat_id: str) -> None:
        slot = self._slots.get(chat_id)
        if slot is None:
            return
        slot.queued, slot.running, slot.dirty = False, True, False
        force, slot.force = slot.force, False
        waiters, slot.waiters = (slot.waiters, []) if force else ([], slot.waiters)
        try:
            result = await self._run(chat_id, slot, force=force)
        finally:
            slot.running = False
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(result)
        again = slot.dirty or slot.force or result.outcome == "summarized"
        if result.outcome == "gone":
            self._slots.pop(chat_id, None)
        elif again and slot.retry is None:
            self._enqueue(chat_id, slot)
        elif slot.disposable:
            self._slots.pop(chat_id, None)

    async def _run(self, chat_id: str, slot: _Slot, *, force: bool) -> JobResult:
        try:
            if not force and not await self._due(chat_id):
                if slot.state == "failed" and slot.retry is None:
                    slot.state, slot.last_error, slot.failures = "idle", None, 0
                self.metrics.jobs.labels("skipped").inc()
                return JobResult("skipped")
            started = ChatEvent("summarizing", chat_id, "summarizing")
            self._set(chat_id, slot, "summarizing", started)
            outcome = await self._summarize(chat_id, force=force)
        except NotFoundError:
            return JobResult("gone")
        except BackendError as exc:
            return self._failed(chat_id, slot, str(exc))
        except Exception as exc:  # a bug must not kill the worker; the job is retried
            log.exception("summarization job for chat %s crashed", chat_id)
            return self._failed(chat_id, slot, f"{type(exc).__name__}: {exc}")
        usage = outcome.plan.usage
        self.metrics.tokens.labels(slot.tenant, "input").inc(usage.input_tokens)
        self.metrics.tokens.labels(slot.tenant, "output").inc(usage.output_tokens)
        if outcome.plan.error is not None:
            return self._failed(chat_id, slot, str(outcome.plan.error))
        return self._succeeded(chat_id, slot, outcome)

    async def _summarize(self, chat_id: str, *, force: bool) -> SummarizeOutcome:
        self.metrics.running.inc()
        started = time.perf_counter()
        try:
            return await self.engine.summarize(chat_id, force=force)
        finally:
            self.runs += 1
            self.metrics.running.dec()
            self.metrics.job_seconds.observe(time.perf_counter() - started)

    async def _due(self, chat_id: str) -> bool:
        """Whether the trigger holds: loads the state, runs no summarizer."""
        return await self.engine.summary_due(chat_id)

    def _succeeded(self, chat_id: str, slot: _Slot, outcome: SummarizeOutcome) -> JobResult:
        ranges = [(row.episode_first, row.episode_last) for row in outcome.plan.rows]
        slot.failures, slot.last_error = 0, None
        version = outcome.chat.summary_version if outcome.chat else None
        event = ChatEvent("summarized", chat_id, "idle", ranges, summary_version=version)
        self._set(chat_id, slot, "idle", event)
        kind: JobOutcome = "summarized" if outcome.changed else "unchanged"
        self.metrics.jobs.labels(kind).inc()
        return JobResult(kind, ranges)

    def _failed(self, chat_id: str, slot: _Slot, error: str) -> JobResult:
        slot.failures += 1
        slot.last_error = error
        self._set(chat_id, slot, "failed", ChatEvent("failed", chat_id, "failed", error=error))
        self.metrics.jobs.labels("failed").inc()
        delay = min(self.max_retry_seconds, self.retry_seconds * 2 ** (slot.failures - 1))
        log.warning("summarizing chat %s failed (retry in %.1fs): %s", chat_id, delay, error)
        slot.retry = asyncio.get_running_loop().call_later(delay, self._retry, chat_id)
        return JobResult("failed", error=error)

    def _retry(self, chat_id: str) -> None:
        slot = self._slots.get(chat_id)
        if slot is None:
            return
        slot.retry = None
        if not (slot.running or slot.queued):
            self._enqueue(chat_id, slot)

    def _set(self, chat_id: str, slot: _Slot, state: SummaryState, event: ChatEvent) -> None:
        slot.state = state
        self.hub.publish(event)
