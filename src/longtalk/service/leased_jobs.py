"""The PostgreSQL job queue: summarization jobs leased per chat across every replica.

Implements ``summary_queue.SummaryQueue`` on a ``storage.leases.JobQueue`` (PostgreSQL's
``longtalk_jobs`` table, ``storage.postgres.job_table``). An
append requests its chat's job in its own commit (the service sets ``NewMessages.enqueue``
to :attr:`LeasedSummaryJobs.kind`), and a new job row is announced on a ``NOTIFY`` channel,
so :meth:`LeasedSummaryJobs.notify` has nothing left to do. Each replica runs one
dispatcher: woken by the announcement (or by its safety poll every ``poll_seconds``), it
claims the oldest due chat nobody holds together with the chat's state (one statement) and
runs the job in one of ``workers`` slots; the claim also says how many more are due and
when the next lease or retry falls due, so an idle replica sleeps until then. The job's
lease is renewed while it runs; then the row is dropped, or released when more was
requested meanwhile. A replica killed mid-job stops renewing; after ``lease_seconds``
another replica's dispatcher claims the chat and finishes it. Failures back off durably
(the row's ``due_at``), so a retry survives restarts too.

Summary states (``summarizing``, ``failed``) follow the chat events of every replica; every
``poll_seconds`` the states no event changed meanwhile are checked against the job rows, so
a job whose replica was killed before it could report does not look busy forever.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError
from longtalk.jobs import JobResult, JobRunner
from longtalk.jobs.background import stop_tasks, wait_event
from longtalk.service.event_hub import ChatEvent, EventHub, SummaryState, SummaryStates
from longtalk.service.job_reports import ServiceReporter
from longtalk.service.metrics import ServiceMetrics
from longtalk.storage.base import ChatState
from longtalk.storage.leases import Claim, JobQueue, JobStatus, Lease

log = logging.getLogger(__name__)
SUMMARY_KIND = "summary"
DRAIN_POLL_SECONDS = 0.1
MAX_RUNS = 8
"""Runs of one chat's job in a row under one lease while each leaves more due."""


class LeasedSummaryJobs:
    """Summarization jobs of a replica, coordinated with the others through PostgreSQL."""

    def __init__(
        self,
        engine: MemoryEngine,
        table: JobQueue,
        *,
        hub: EventHub,
        metrics: ServiceMetrics,
        workers: int = 2,
        poll_seconds: float = 2.0,
    ) -> None:
        self.workers = workers
        self.poll_seconds = poll_seconds
        self.table = table
        self.runner = JobRunner(engine, ServiceReporter(hub, metrics))
        self.states = SummaryStates()
        hub.watch(self.states.observe)
        self._wake = asyncio.Event()
        self._released = asyncio.Event()
        self._announced = True  # look once at start: work may be waiting already
        self._deadline = 0.0
        self._slots = asyncio.Semaphore(workers)
        self._tasks: list[asyncio.Task[None]] = []
        self._running: set[asyncio.Task[None]] = set()
        self._held: set[str] = set()
        self.engine = engine

    @property
    def kind(self) -> str:
        """The job kind an append requests in its commit (``NewMessages.enqueue``)."""
        return self.table.kind

    @property
    def runs(self) -> int:
        """Jobs of this replica that ran the summarizer."""
        return self.runner.runs

    def wake(self, _payload: str = "") -> None:
        """Work was queued or released somewhere: the dispatcher claims it now."""
        self._announced = True
        self._wake.set()
        self._released.set()

    def _look_at(self, seconds: float) -> None:
        """Have the dispatcher claim again within ``seconds`` (a retry falls due then)."""
        self._deadline = min(self._deadline, time.monotonic() + max(0.0, seconds))
        self._wake.set()

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the dispatcher (it runs up to ``workers`` jobs at once)."""
        self._tasks.append(asyncio.create_task(self._dispatch(), name="summary-dispatcher"))
        self._tasks.append(asyncio.create_task(self._check_states(), name="summary-states"))

    async def stop(self) -> None:
        """Stop the dispatcher and its jobs (one cut short is claimed when its lease ends)."""
        await stop_tasks([*self._tasks, *self._running])
        self._tasks.clear()
        self._running.clear()

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages (idempotent)."""
        queued = await self.table.recover(tenants)
        self.wake()
        return queued

    async def drain(self) -> None:
        """Wait until no job of any replica is due or running (retries in backoff excepted)."""
        while await self.table.pending():
            await asyncio.sleep(DRAIN_POLL_SECONDS)

    # -- the write path's side ---------------------------------------------------------------

    async def notify(self, chat_id: str, tenant: str, *, incarnation: str = "") -> None:
        """New messages in a chat: nothing to do, the append's commit requested the job.

        (The service appends with ``enqueue=self.kind``; the new row is announced to every
        replica's dispatcher, this one's included.)
        """

    async def run_now(self, chat_id: str, tenant: str, *, incarnation: str = "") -> JobResult:
        """Lease the chat (waiting while another worker holds it), summarize, release."""
        while True:
            lease = await self.table.claim_chat(chat_id, tenant)
            if lease is not None:
                return await self._take(lease, force=True, incarnation=incarnation)
            self._released.clear()
            await wait_event(self._released, self.poll_seconds)

    def forget(self, chat_id: str, *, incarnation: str = "") -> None:
        """Drop a deleted chat's state (its job row went with the chat)."""
        self.states.clear(chat_id)

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state as this replica's events tell it."""
        return self.states.get(chat_id, incarnation)

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event (of that incarnation)."""
        state, error = self.state(chat_id, incarnation=incarnation)
        return ChatEvent("state", chat_id, state, error=error, incarnation=incarnation)

    def backlog(self) -> dict[str, int | str | None]:
        """Jobs this replica holds, chats failing here, the last error (queued ones are rows)."""
        failing = self.states.failing()
        return {
            "running": len(self._held),
            "failing": len(failing),
            "last_error": failing[-1] if failing else None,
        }

    # -- states -------------------------------------------------------------------------------

    async def _check_states(self) -> None:
        """Every ``poll_seconds``, set the states no event changed from the job rows."""
        while True:
            await asyncio.sleep(self.poll_seconds)
            checked = time.monotonic()
            chat_ids = self.states.observed_before(checked)
            if not chat_ids:
                continue
            try:
                found = await self.table.status(chat_ids)
            except LongtalkError as exc:
                log.warning("checking %d summary states failed: %s", len(chat_ids), exc)
                continue
            for chat_id in chat_ids:
                state, error = _state_of(found.get(chat_id))
                self.states.settle(chat_id, state, error, checked=checked)

    # -- the dispatcher -----------------------------------------------------------------------

    async def _dispatch(self) -> None:
        while True:
            await self._until_due()
            self._announced = False
            await self._slots.acquire()
            try:
                claim = await self.table.claim()
            except LongtalkError as exc:  # the database is away: keep trying
                self._slots.release()
                log.warning("claiming a summary job failed: %s", exc)
                self._deadline = time.monotonic() + self.poll_seconds
                continue
            soon = self.poll_seconds if claim.next_in is None else claim.next_in
            self._deadline = time.monotonic() + min(self.poll_seconds, max(0.0, soon))
            if claim.lease is None:
                self._slots.release()
                continue
            if claim.more:
                self._deadline = 0.0  # more are due: claim the next once a slot frees
            task = asyncio.create_task(self._run_claimed(claim), name="summary-job")
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _until_due(self) -> None:
        """Sleep until work is announced or the next deadline passes."""
        while not self._announced:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                return
            self._wake.clear()
            await wait_event(self._wake, remaining)

    async def _run_claimed(self, claim: Claim) -> None:
        assert claim.lease is not None
        try:
            await self._take(claim.lease, force=False, state=claim.state)
        except LongtalkError as exc:  # the lease expires and the job runs again
            log.warning("settling the job of chat %s failed: %s", claim.lease.chat_id, exc)
        finally:
            self._slots.release()

    async def _take(
        self,
        lease: Lease,
        *,
        force: bool,
        incarnation: str = "",
        state: ChatState | None = None,
    ) -> JobResult:
        async def record(error: str, retry_at: datetime | None) -> None:
            failure = await self.table.fail(lease, error, retry_at=retry_at)
            self._look_at(failure.delay)
            log.warning(
                "summarizing chat %s failed %d time(s) (retry in %.1fs): %s",
                lease.chat_id,
                failure.attempts,
                failure.delay,
                error,
            )

        async with self._holding(lease):
            result = await self.runner.run(
                lease.chat_id, force=force, record=record, incarnation=incarnation, state=state
            )
            for _ in range(MAX_RUNS - 1):  # a run that stopped at its cap leaves more due
                if not self._more_due(result):
                    break
                result = await self.runner.run(
                    lease.chat_id, force=False, record=record, incarnation=incarnation
                )
        if result.outcome == "skipped" and result.retry_at is not None:
            await self.table.defer(lease, result.retry_at)
            self._look_at((result.retry_at - datetime.now(UTC)).total_seconds())
        elif result.outcome not in ("failed", "gone"):
            if result.outcome == "skipped" and self.states.get(lease.chat_id)[0] == "failed":
                self.states.clear(lease.chat_id)
            await self.table.finish(lease, again=self._more_due(result))
        return result

    def _more_due(self, result: JobResult) -> bool:
        """Whether a run left work due: it summarized and stopped at its extension cap."""
        if result.outcome != "summarized" or result.summary is None:
            return False
        return result.summary.plan.extensions >= self.engine.config.max_extensions_per_run

    @asynccontextmanager
    async def _holding(self, lease: Lease) -> AsyncIterator[None]:
        """Renew the lease in the background while the job runs."""
        renewer = asyncio.create_task(self._renew(lease), name=f"lease-{lease.chat_id}")
        self._held.add(lease.chat_id)
        try:
            yield
        finally:
            self._held.discard(lease.chat_id)
            await stop_tasks([renewer])

    async def _renew(self, lease: Lease) -> None:
        while True:
            await asyncio.sleep(self.table.lease / 3)
            try:
                held = await self.table.renew(lease)
            except LongtalkError as exc:
                log.warning("renewing the lease of chat %s failed: %s", lease.chat_id, exc)
                continue
            if not held:
                log.warning(
                    "the lease of chat %s expired; another worker may run it (the summary "
                    "compare-and-swap keeps one result)",
                    lease.chat_id,
                )
                return


def _state_of(status: JobStatus | None) -> tuple[SummaryState, str | None]:
    """The summary state a job row implies: held is running, an error unheld is failing."""
    if status is None:
        return "idle", None
    if status.held:
        return "summarizing", None
    return ("failed", status.error) if status.error else ("idle", None)
