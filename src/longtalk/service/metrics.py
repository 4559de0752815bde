"""Prometheus metrics of one service instance (its own registry, so apps never collide)."""

from __future__ import annotations

import functools
import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class ServiceMetrics:
    """Requests, latencies, summarization jobs and LLM tokens per tenant."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        counter = functools.partial(Counter, registry=self.registry)
        gauge = functools.partial(Gauge, registry=self.registry)
        histogram = functools.partial(Histogram, registry=self.registry)
        self.requests = counter(
            "longtalk_http_requests",
            "HTTP requests by method, route and status.",
            ["method", "route", "status"],
        )
        self.latency = histogram(
            "longtalk_http_request_seconds",
            "HTTP request latency by method and route.",
            ["method", "route"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.jobs = counter(
            "longtalk_summary_jobs",
            "Background summarization jobs by outcome (summarized, unchanged, failed).",
            ["outcome"],
        )
        self.job_seconds = histogram(
            "longtalk_summary_job_seconds",
            "Duration of summarization jobs that ran the summarizer.",
        )
        self.index_runs = counter(
            "longtalk_index_runs",
            "Background indexing runs by outcome (indexed, failed).",
            ["outcome"],
        )
        self.indexed_turns = counter(
            "longtalk_indexed_turns", "Turns the background indexer stored for recall."
        )
        self.index_lag = gauge(
            "longtalk_index_lag_turns",
            "Stored messages not yet in the recall index (over the chats that lag most).",
        )
        self.running = gauge("longtalk_summary_jobs_running", "Summarization jobs running now.")
        self.tokens = counter(
            "longtalk_llm_tokens",
            "LLM tokens spent on summaries, by tenant and direction (input, output).",
            ["tenant", "direction"],
        )

    def render(self) -> bytes:
        """The exposition text."""
        return generate_latest(self.registry)

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Record one finished request (any method but the standard ones is ``OTHER``)."""
        method = method if method in METHODS else "OTHER"  # labels stay a bounded set
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The request methods labelled by name; a client can send any other string."""


class MetricsMiddleware:
    """Pure ASGI middleware: counts requests by route template, times them."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on and record its status and latency."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.observe_request(
                scope["method"], template, status, time.perf_counter() - started
            )
