"""Prometheus metrics of one service instance (its own registry, so apps never collide)."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class ServiceMetrics:
    """Requests, latencies, summarization jobs and LLM tokens per tenant."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "longtalk_http_requests",
            "HTTP requests by method, route and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "longtalk_http_request_seconds",
            "HTTP request latency by method and route.",
            ["method", "route"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.jobs = Counter(
            "longtalk_summary_jobs",
            "Background summarization jobs by outcome (summarized, unchanged, failed).",
            ["outcome"],
            registry=self.registry,
        )
        self.job_seconds = Histogram(
            "longtalk_summary_job_seconds",
            "Duration of summarization jobs that ran the summarizer.",
            registry=self.registry,
        )
        self.index_runs = Counter(
            "longtalk_index_runs",
            "Background indexing runs by outcome (indexed, failed).",
            ["outcome"],
            registry=self.registry,
        )
        self.indexed_turns = Counter(
            "longtalk_indexed_turns",
            "Turns the background indexer stored for recall.",
            registry=self.registry,
        )
        self.index_lag = Gauge(
            "longtalk_index_lag_turns",
            "Stored messages not yet in the recall index (over the chats that lag most).",
            registry=self.registry,
        )
        self.running = Gauge(
            "longtalk_summary_jobs_running",
            "Summarization jobs running now.",
            registry=self.registry,
        )
        self.tokens = Counter(
            "longtalk_llm_tokens",
            "LLM tokens spent on summaries, by tenant and direction (input, output).",
            ["tenant", "direction"],
            registry=self.registry,
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
