"""One summarization job of one chat: the trigger check, the summarizer, events and metrics.

Shared by both job queues (in-process and PostgreSQL-leased): a queue decides *when* and
*where* a chat's job runs; :class:`SummaryRunner` runs it. A job first checks the trigger
(cheap: storage and token counting only); only a due chat runs the summarizer, announced by
``summarizing`` and ended by ``summarized`` or ``failed`` events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from longtalk.engine import MemoryEngine, SummarizeOutcome
from longtalk.errors import BackendError, NotFoundError
from longtalk.service.events import ChatEvent, EventHub
from longtalk.service.metrics import ServiceMetrics

log = logging.getLogger(__name__)

FailureHook = Callable[[str], Awaitable[None]]
JobOutcome = Literal["summarized", "unchanged", "skipped", "failed", "gone"]


@dataclass(frozen=True, slots=True)
class JobResult:
    """What one job did."""

    outcome: JobOutcome
    episode_ranges: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None

    @property
    def again(self) -> bool:
        """Whether the chat should be looked at once more (a run may leave more due)."""
        return self.outcome == "summarized"


class SummaryRunner:
    """Runs one chat's summarization job and reports it as events and metrics."""

    def __init__(self, engine: MemoryEngine, *, hub: EventHub, metrics: ServiceMetrics) -> None:
        self.engine = engine
        self.hub = hub
        self.metrics = metrics
        self.runs = 0  # jobs that ran the summarizer

    async def run(
        self,
        chat_id: str,
        tenant: str,
        *,
        force: bool,
        record: FailureHook | None = None,
        incarnation: str = "",
    ) -> JobResult:
        """Summarize the chat when due (always when ``force``); never raises.

        ``record`` stores a failure before the ``failed`` event goes out (so that another
        replica re-reading the event finds the error). A non-empty ``incarnation`` pins the
        chat: a chat deleted (and maybe created again under its id) is ``gone``.
        """
        pinned = incarnation or None
        try:
            if not force and not await self.engine.summary_due(chat_id, incarnation=pinned):
                self.metrics.jobs.labels("skipped").inc()
                return JobResult("skipped")
            started = ChatEvent("summarizing", chat_id, "summarizing", incarnation=incarnation)
            self.hub.publish(started)
            outcome = await self._summarize(chat_id, force=force, incarnation=pinned)
        except NotFoundError:
            return JobResult("gone")
        except BackendError as exc:
            return await self._failed(chat_id, incarnation, str(exc), record)
        except Exception as exc:  # a bug must not kill the worker; the job is retried
            log.exception("summarization job for chat %s crashed", chat_id)
            error = f"{type(exc).__name__}: {exc}"
            return await self._failed(chat_id, incarnation, error, record)
        usage = outcome.plan.usage
        self.metrics.tokens.labels(tenant, "input").inc(usage.input_tokens)
        self.metrics.tokens.labels(tenant, "output").inc(usage.output_tokens)
        if outcome.plan.error is not None:
            return await self._failed(chat_id, incarnation, str(outcome.plan.error), record)
        return self._succeeded(chat_id, outcome)

    async def _summarize(
        self, chat_id: str, *, force: bool, incarnation: str | None
    ) -> SummarizeOutcome:
        self.metrics.running.inc()
        started = time.perf_counter()
        try:
            return await self.engine.summarize(chat_id, force=force, incarnation=incarnation)
        finally:
            self.runs += 1
            self.metrics.running.dec()
            self.metrics.job_seconds.observe(time.perf_counter() - started)

    def _succeeded(self, chat_id: str, outcome: SummarizeOutcome) -> JobResult:
        ranges = [(row.episode_first, row.episode_last) for row in outcome.plan.rows]
        version = outcome.chat.summary_version if outcome.chat else None
        incarnation = outcome.chat.incarnation if outcome.chat else ""
        event = ChatEvent(
            "summarized", chat_id, "idle", ranges, summary_version=version, incarnation=incarnation
        )
        self.hub.publish(event)
        kind: JobOutcome = "summarized" if outcome.changed else "unchanged"
        self.metrics.jobs.labels(kind).inc()
        return JobResult(kind, ranges)

    async def _failed(
        self, chat_id: str, incarnation: str, error: str, record: FailureHook | None
    ) -> JobResult:
        if record is not None:
            await record(error)
        self.hub.publish(
            ChatEvent("failed", chat_id, "failed", error=error, incarnation=incarnation)
        )
        self.metrics.jobs.labels("failed").inc()
        return JobResult("failed", error=error)


def backoff(failures: int, *, base: float, ceiling: float) -> float:
    """Seconds before retry number ``failures`` (1-based): ``base`` doubling, capped."""
    return float(min(ceiling, base * 2 ** (failures - 1)))
