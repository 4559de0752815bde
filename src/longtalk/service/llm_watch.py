"""What the summary model's last calls did, for ``/healthz``: outcomes, latencies, hangs.

A cheap probe (``GET /models``) says the server is up; it cannot say that completions hang
or trickle. :class:`WatchedLLM` wraps the engine's model and records every call in an
:class:`LLMWatch`: the last ``RECENT_CALLS`` outcomes and latencies, and the calls still in
flight with their start. A call in flight longer than the model's timeout counts as failing
before it ends.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from longtalk.engine import MemoryEngine
from longtalk.llm.base import LLM, LLMRequest, LLMResponse
from longtalk.service.errors import public_error

RECENT_CALLS = 20
"""How many finished calls ``/healthz`` judges from."""
FAILING_IN_A_ROW = 2
"""The last calls all failing (this many at least): the model is down."""
SLOW_SHARE = 0.5
"""Calls that take over this share of the timeout (median): the model is degraded."""
DEFAULT_TIMEOUT = 60.0
"""A model's timeout when it does not say (``llm.timeout_seconds``' default)."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One finished call: when it ended, how long it took, its error if it failed."""

    ended: float
    seconds: float
    error: str | None = None


class LLMWatch:
    """The last calls' outcomes and the calls in flight (bounded; one per process)."""

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT, keep: int = RECENT_CALLS) -> None:
        self.timeout = timeout
        self.recent: deque[CallOutcome] = deque(maxlen=keep)
        self._in_flight: dict[int, float] = {}
        self._numbers = itertools.count()

    def started(self) -> int:
        """Record a call's start; returns its token for :meth:`finished`."""
        token = next(self._numbers)
        self._in_flight[token] = time.monotonic()
        return token

    def finished(self, token: int, error: str | None = None) -> None:
        """Record a call's end (``error`` when it failed)."""
        began = self._in_flight.pop(token, None)
        if began is not None:
            now = time.monotonic()
            self.recent.append(CallOutcome(now, now - began, error))

    def abandoned(self, token: int) -> None:
        """Forget a call that was cancelled (it neither worked nor failed)."""
        self._in_flight.pop(token, None)

    def report(self) -> dict[str, Any]:
        """The ``calls`` detail and the status they say: ok, degraded or down."""
        now = time.monotonic()
        oldest = max((now - began for began in self._in_flight.values()), default=0.0)
        recent = list(self.recent)
        failed = [call for call in recent if call.error is not None]
        detail: dict[str, Any] = {
            "recent": len(recent),
            "failed": len(failed),
            "in_flight": len(self._in_flight),
            "oldest_in_flight_ms": round(oldest * 1000),
            "timeout_seconds": self.timeout,
        }
        if recent:
            latencies = [call.seconds for call in recent]
            detail["p50_ms"] = round(statistics.median(latencies) * 1000)
            detail["max_ms"] = round(max(latencies) * 1000)
            detail["last"] = "failed" if recent[-1].error else "ok"
        if failed:
            detail["last_error"] = public_error(failed[-1].error)
        detail["status"], problem = self._judge(recent, oldest)
        if problem:
            detail["problem"] = problem
        return detail

    def _judge(self, recent: list[CallOutcome], oldest: float) -> tuple[str, str | None]:
        if oldest > self.timeout:
            return "down", (
                f"a call has been in flight {oldest:.0f} s, past the {self.timeout:g} s "
                "timeout (llm.timeout_seconds)"
            )
        tail = recent[-FAILING_IN_A_ROW:]
        if len(tail) == FAILING_IN_A_ROW and all(call.error for call in tail):
            return "down", f"the last {len(tail)} calls failed"
        if recent and recent[-1].error:
            return "degraded", "the last call failed"
        if recent and statistics.median(c.seconds for c in recent) > SLOW_SHARE * self.timeout:
            return "degraded", "calls take over half their timeout"
        return "ok", None


class WatchedLLM:
    """An LLM whose every call an :class:`LLMWatch` records (it wraps the engine's model)."""

    def __init__(self, llm: LLM, watch: LLMWatch) -> None:
        self.llm = llm
        self.watch = watch

    def __repr__(self) -> str:
        return f"WatchedLLM({self.llm!r})"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete through the wrapped model, recording the outcome."""
        token = self.watch.started()
        try:
            response = await self.llm.complete(request)
        except Exception as exc:
            self.watch.finished(token, f"{type(exc).__name__}: {exc}")
            raise
        except BaseException:  # cancelled: the caller went away, the model did not fail
            self.watch.abandoned(token)
            raise
        self.watch.finished(token)
        return response


@runtime_checkable
class _WithLLM(Protocol):
    llm: LLM


def watch_llm(engine: MemoryEngine) -> LLMWatch | None:
    """Wrap the engine's summary (and title) model in a :class:`WatchedLLM`; its watch.

    None when summaries need no model (the offline summarizer).
    """
    writer = engine.writer
    if not isinstance(writer, _WithLLM):
        return None
    llm = writer.llm
    if isinstance(llm, WatchedLLM):
        return llm.watch
    watch = LLMWatch(timeout=_timeout_of(llm))
    watched = WatchedLLM(llm, watch)
    writer.llm = watched
    if engine.title_llm is llm:
        engine.title_llm = watched
    return watch


def _timeout_of(llm: object) -> float:
    """The model's per-call timeout, looking through wrappers (``llm.timeout_seconds``)."""
    while True:
        timeout = getattr(llm, "timeout", None)
        if isinstance(timeout, int | float) and timeout > 0:
            return float(timeout)
        inner = getattr(llm, "llm", None)
        if inner is None:
            return DEFAULT_TIMEOUT
        llm = inner
