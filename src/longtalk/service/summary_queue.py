"""Background summarization in the service: the queue seam and the single-node queue.

:class:`SummaryQueue` is the seam the service talks to. Two queues implement it:
:class:`SummaryJobs` here (in-process, one node: the library's :class:`LocalJobs` with the
summary states the service reports) and ``leased_jobs.LeasedSummaryJobs`` (PostgreSQL: jobs
are rows leased by one worker across every replica). Both run jobs through the engine's one
job path, which also decides a failing chat's backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol

from longtalk.engine import MemoryEngine
from longtalk.jobs import JobOutcome, JobResult, JobRunner, LocalJobs
from longtalk.service.event_hub import ChatEvent, EventHub, SummaryState, SummaryStates
from longtalk.service.job_reports import ServiceReporter
from longtalk.service.metrics import ServiceMetrics

__all__ = [
    "JobOutcome",
    "JobRequests",
    "JobResult",
    "QueueLifecycle",
    "QueueStatus",
    "SummaryJobs",
    "SummaryQueue",
]

log = logging.getLogger(__name__)


class QueueLifecycle(Protocol):
    """A queue's workers: started, stopped, drained, counted."""

    workers: int

    def start(self) -> None:
        """Start the workers."""
        ...

    async def stop(self) -> None:
        """Stop the workers; unfinished work stays in storage."""
        ...

    async def drain(self) -> None:
        """Wait until nothing is queued or running (scheduled retries excepted)."""
        ...

    @property
    def runs(self) -> int:
        """Jobs of this process that ran the summarizer."""
        ...


class JobRequests(Protocol):
    """What the service asks of a queue for chats: look at one, run one now, forget one."""

    async def notify(self, chat_id: str, tenant: str, *, incarnation: str = "") -> None:
        """New messages in a chat: make sure a job will look at it."""
        ...

    async def run_now(self, chat_id: str, tenant: str, *, incarnation: str = "") -> JobResult:
        """Summarize now, even below the trigger, one job per chat at a time; wait for it."""
        ...

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages; returns how many."""
        ...

    def forget(self, chat_id: str, *, incarnation: str = "") -> None:
        """Drop a deleted chat's state; its queued or running job finds the chat gone."""
        ...


class QueueStatus(Protocol):
    """What a queue reports: each chat's summary state, and the backlog for ``/healthz``."""

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        ...

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event (of that incarnation)."""
        ...

    def backlog(self) -> dict[str, int | str | None]:
        """The queue for ``/healthz``: jobs running here, chats failing, the last error."""
        ...


class SummaryQueue(QueueLifecycle, JobRequests, QueueStatus, Protocol):
    """Where the service sends summarization work (in-process or PostgreSQL-leased).

    The intersection of the three seams above, with the runner its jobs go through.
    """

    runner: JobRunner


class SummaryJobs(LocalJobs):
    """The in-process queue of one service node, with the summary states it reports."""

    def __init__(
        self, engine: MemoryEngine, *, hub: EventHub, metrics: ServiceMetrics, workers: int = 2
    ) -> None:
        super().__init__(engine, workers=workers, reporter=ServiceReporter(hub, metrics))
        self.states = SummaryStates()
        hub.watch(self.states.observe)

    def forget(self, chat_id: str, *, incarnation: str = "") -> None:
        """Drop a deleted chat's state; its queued or running job finds the chat gone."""
        self.states.clear(chat_id)
        super().forget(chat_id, incarnation=incarnation)

    def settled(self, chat_id: str, result: JobResult) -> None:
        """A run that found nothing to do for a chat no longer failing: it is idle again."""
        chat = result.summary.chat if result.summary is not None else None
        if result.outcome == "skipped" and chat is not None and not chat.stats.failures:
            self.states.clear(chat_id)

    def backlog(self) -> dict[str, int | str | None]:
        """The queue for ``/healthz``: chats queued, running, failing, and the last error."""
        failing = self.states.failing()
        queued, running = self.counts()
        return {
            "queued": queued,
            "running": running,
            "failing": len(failing),
            "last_error": failing[-1] if failing else None,
        }

    def state(self, chat_id: str, *, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's summary state and last error."""
        return self.states.get(chat_id, incarnation)

    def event(self, chat_id: str, *, incarnation: str = "") -> ChatEvent:
        """The chat's current state as a ``state`` event (of that incarnation)."""
        state, error = self.state(chat_id, incarnation=incarnation)
        return ChatEvent("state", chat_id, state, error=error, incarnation=incarnation)
