"""The FastAPI app factory: ``create_app(settings)``.

The lifespan opens the memory (``open_memory``) unless an engine is passed in, starts the
summarization workers, re-queues chats with unsummarized messages (work pending when the
service last stopped), and on shutdown ends the event streams and the workers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from longtalk.config import Settings
from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError
from longtalk.jobs.background import stop_tasks
from longtalk.service import (
    allocator,
    deletion_routes,
    forget_routes,
    health,
    memory_routes,
    routes,
)
from longtalk.service.body import BodyGate
from longtalk.service.compat_routes import SummaryJSONBodies
from longtalk.service.edge import EdgeGate
from longtalk.service.errors import install_error_handlers
from longtalk.service.limits import Limits
from longtalk.service.logs import redact_logs
from longtalk.service.metrics import MetricsMiddleware, ServiceMetrics
from longtalk.service.openapi import document
from longtalk.service.state import Service

log = logging.getLogger(__name__)
STATIC = Path(str(files("longtalk.service") / "static"))
RECOVERY_GRACE_SECONDS = 5.0


def create_app(settings: Settings | None = None, *, engine: MemoryEngine | None = None) -> FastAPI:
    """The longtalk HTTP service for ``settings`` (default: the embedded stack).

    With ``engine`` the app uses it (and does not close it); otherwise it opens the memory
    from ``settings`` at start-up. ``app.state.service`` is the running ``Service``.
    """
    settings = settings or Settings()
    metrics = ServiceMetrics()
    allocator.limit_arenas()  # before the worker threads start: see service.allocator

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redact_logs()  # the server configured its logging after the app was made
        async with AsyncExitStack() as stack:
            memory = engine
            if memory is None:
                from longtalk.factory import open_memory

                memory = await stack.enter_async_context(open_memory(settings))
            service = Service(memory, settings.service, metrics=metrics)
            app.state.service = service
            _announce(service)
            if service.replicas is not None:
                await service.replicas.open()
                stack.push_async_callback(service.replicas.close)
            service.jobs.start()
            stack.push_async_callback(service.jobs.stop)
            service.indexer.start()
            stack.push_async_callback(service.indexer.stop)
            stack.callback(service.hub.close)
            trimming = asyncio.create_task(allocator.trim_periodically(), name="longtalk-trim")
            stack.push_async_callback(stop_tasks, [trimming])
            recovery = asyncio.create_task(_recover(service))
            service.recovery = recovery
            yield
            # a recovery cancelled mid-query can leave the database connection unclosable
            await asyncio.wait([recovery], timeout=RECOVERY_GRACE_SECONDS)
            recovery.cancel()

    app = FastAPI(
        title="longtalk",
        summary="Conversation memory: running summaries, recall, bounded context.",
        version=_version(),
        lifespan=lifespan,
        docs_url=None,  # the package's own offline page below, never a CDN's scripts
        redoc_url=None,
    )
    install_error_handlers(app)
    app.state.limits = Limits.of(settings)
    document(app, settings.input_limits)
    # the last added runs first: the edge gate, the summary relabelling, the body gate, metrics
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(BodyGate, limits=app.state.limits)
    # the episode-summary service's Node client posts JSON labelled text/plain: relabelled
    # after the edge gate has refused cross-site requests, before the body gate's 415
    app.add_middleware(SummaryJSONBodies)
    app.add_middleware(EdgeGate, config=settings.service)
    redact_logs()
    app.include_router(routes.router)
    app.include_router(deletion_routes.router)
    app.include_router(forget_routes.router)
    app.include_router(memory_routes.router)
    app.include_router(health.router)
    app.mount("/ui", StaticFiles(directory=STATIC, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse("/ui/")

    if not settings.service.api_keys:  # off where the web view may hold a key

        @app.get("/docs", include_in_schema=False)
        @app.get("/redoc", include_in_schema=False)
        async def api_docs() -> FileResponse:
            return FileResponse(STATIC / "docs.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    return app


async def _recover(service: Service) -> None:
    try:
        finished = await service.engine.resume_forgets()
    except LongtalkError as exc:  # the record stays: the next start tries again
        log.error("finishing interrupted forgets failed: %s", exc)
    else:
        if finished:
            log.info("finished %d interrupted forgets", len(finished))
    try:
        queued = await service.jobs.recover(service.auth.tenants())
    except LongtalkError as exc:  # the service stays up; the work stays in storage
        log.error("re-queuing pending summarization work failed: %s", exc)
        return
    if queued:
        log.info("re-queued %d chats with unsummarized messages", queued)


def _announce(service: Service) -> None:
    if service.auth.enabled:
        log.info("API keys configured for tenants: %s", ", ".join(service.auth.tenants()))
    else:
        log.warning(
            "no API keys configured: every request is the 'default' tenant and the service "
            "binds to 127.0.0.1 only"
        )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("longtalk")
    except PackageNotFoundError:  # pragma: no cover
        return "0.0.0"
