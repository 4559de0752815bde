"""What the service makes of summary jobs: chat events, metrics and log lines.

Every scheduler runs jobs through :class:`longtalk.jobs.JobRunner`; the service gives it this
reporter, which announces ``summarizing`` when a job starts calling the summarizer and
``summarized`` or ``failed`` when it ends, and counts jobs and tokens.
"""

from __future__ import annotations

import logging
import time

from longtalk.jobs import JobResult
from longtalk.service.event_hub import ChatEvent, EventHub
from longtalk.service.metrics import ServiceMetrics
from longtalk.storage.base import ChatRecord

log = logging.getLogger(__name__)


class ServiceReporter:
    """Turns jobs into chat events and metrics."""

    def __init__(self, hub: EventHub, metrics: ServiceMetrics) -> None:
        self.hub = hub
        self.metrics = metrics
        self._started: dict[str, float] = {}

    def summarizing(self, chat: ChatRecord) -> None:
        """Announce the run and count it as running."""
        self._started[chat.id] = time.perf_counter()
        self.metrics.running.inc()
        event = ChatEvent("summarizing", chat.id, "summarizing", incarnation=chat.incarnation)
        self.hub.publish(event)

    def finished(self, chat_id: str, incarnation: str, result: JobResult) -> None:
        """Count the job and its tokens; announce the new summary or the failure."""
        started = self._started.pop(chat_id, None)
        if started is not None:
            self.metrics.running.dec()
            self.metrics.job_seconds.observe(time.perf_counter() - started)
        summary = result.summary
        chat = summary.chat if summary is not None else None
        if summary is not None and chat is not None:
            usage = summary.plan.usage
            self.metrics.tokens.labels(chat.tenant, "input").inc(usage.input_tokens)
            self.metrics.tokens.labels(chat.tenant, "output").inc(usage.output_tokens)
        self.metrics.jobs.labels(result.outcome).inc()
        if result.outcome == "failed":
            log.warning("summarizing chat %s failed: %s", chat_id, result.error)
            failed = ChatEvent(
                "failed", chat_id, "failed", error=result.error, incarnation=incarnation
            )
            self.hub.publish(failed)
        elif result.outcome in ("summarized", "unchanged"):
            version = chat.summary_version if chat is not None else None
            event = ChatEvent(
                "summarized",
                chat_id,
                "idle",
                result.episode_ranges,
                summary_version=version,
                incarnation=incarnation,
            )
            self.hub.publish(event)
