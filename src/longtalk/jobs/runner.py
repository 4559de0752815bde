"""One summary job of one chat, run through the engine's job path and reported.

Shared by every scheduler (the library's, the service's in-process queue, the replicas'
leased queue): a scheduler decides *when* and *where* a chat's job runs; :class:`JobRunner`
runs it (:meth:`MemoryEngine.summarize`), never raises, and tells a :class:`JobReporter`
what happened (the service turns that into events and metrics).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from longtalk.engine import MemoryEngine, SummarizeOutcome
from longtalk.errors import BackendError, NotFoundError
from longtalk.storage.base import ChatRecord, ChatState

log = logging.getLogger(__name__)

FailureHook = Callable[[str, datetime | None], Awaitable[None]]
JobOutcome = Literal["summarized", "unchanged", "skipped", "failed", "gone"]


@dataclass(frozen=True, slots=True)
class JobResult:
    """What one job did; ``retry_at`` is when a failing (or backing-off) chat is due again."""

    outcome: JobOutcome
    episode_ranges: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None
    retry_at: datetime | None = None
    summary: SummarizeOutcome | None = None

    @property
    def again(self) -> bool:
        """Whether the chat should be looked at once more (a run may leave more due)."""
        return self.outcome == "summarized"


class JobReporter(Protocol):
    """Told what jobs do (the service publishes events and counts metrics)."""

    def summarizing(self, chat: ChatRecord) -> None:
        """The chat's summary is being extended now."""
        ...

    def finished(self, chat_id: str, incarnation: str, result: JobResult) -> None:
        """A job ended (any outcome)."""
        ...


class JobRunner:
    """Runs one chat's job through the engine and reports it."""

    def __init__(self, engine: MemoryEngine, reporter: JobReporter | None = None) -> None:
        self.engine = engine
        self.reporter = reporter
        self.runs = 0  # jobs that ran the summarizer (counted when they end)
        self._running: set[str] = set()

    async def run(
        self,
        chat_id: str,
        *,
        force: bool,
        record: FailureHook | None = None,
        incarnation: str = "",
        state: ChatState | None = None,
    ) -> JobResult:
        """Summarize the chat when due (always when ``force``); never raises.

        ``record`` stores a failure (its error and when to retry) before it is reported, so
        another replica reading the report finds it. A non-empty ``incarnation`` pins the
        chat: a chat deleted (and maybe created again under its id) is ``gone``. ``state``
        is the chat's state when the scheduler read it with the job (one statement).
        """
        try:
            outcome = await self.engine.summarize(
                chat_id,
                force=force,
                incarnation=incarnation or None,
                listener=self,
                state=state,
            )
            result = _result(outcome)
        except NotFoundError:
            result = JobResult("gone")
        except BackendError as exc:
            result = JobResult("failed", error=str(exc))
        except Exception as exc:  # a bug must not kill the worker; the job is retried
            log.exception("summarization job for chat %s crashed", chat_id)
            result = JobResult("failed", error=f"{type(exc).__name__}: {exc}")
        finally:
            if chat_id in self._running:
                self._running.discard(chat_id)
                self.runs += 1
        if result.outcome == "failed" and record is not None:
            await record(result.error or "failed", result.retry_at)
        if self.reporter is not None:
            self.reporter.finished(chat_id, incarnation, result)
        return result

    def summarizing(self, chat: ChatRecord) -> None:
        """The engine is about to extend the summary: tell the reporter."""
        self._running.add(chat.id)
        if self.reporter is not None:
            self.reporter.summarizing(chat)


def _result(outcome: SummarizeOutcome) -> JobResult:
    """The job's result from the job path's outcome."""
    retry_at = outcome.chat.stats.retry_at if outcome.chat is not None else None
    if outcome.skipped is not None or outcome.deferred:
        return JobResult("skipped", retry_at=retry_at, summary=outcome)
    ranges = [(row.episode_first, row.episode_last) for row in outcome.plan.rows]
    if outcome.failed:
        error = outcome.chat.stats.last_error if outcome.chat is not None else None
        return JobResult(
            "failed", ranges, error or str(outcome.plan.error), retry_at, summary=outcome
        )
    kind: JobOutcome = "summarized" if outcome.changed else "unchanged"
    return JobResult(kind, ranges, summary=outcome)
