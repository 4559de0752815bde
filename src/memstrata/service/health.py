"""``/healthz`` and ``/metrics``: storage, vector store and LLM reachability; Prometheus."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from memstrata.engine import MemoryEngine
from memstrata.errors import MemstrataError
from memstrata.service.metrics import CONTENT_TYPE
from memstrata.service.state import Service
from memstrata.vectors.base import NullVectorReader, RecallScope

router = APIRouter(tags=["operations"])
CHECK_TIMEOUT = 5.0
LLM_PROBE_SECONDS = 30.0
PROBE_TENANT = "__healthz__"


@router.get("/healthz")
async def healthz(request: Request) -> JSONResponse:
    """``ok`` (200), ``degraded`` (200: recall or LLM down) or ``down`` (503: storage down)."""
    service: Service = request.app.state.service
    engine = service.engine
    checks = {
        "storage": await _check(_storage(engine)),
        "vectors": await _check(_vectors(engine)),
        "llm": await _cached_llm_check(service),
    }
    statuses = {name: check["status"] for name, check in checks.items()}
    if statuses["storage"] != "ok":
        status, code = "down", 503
    elif "error" in statuses.values():
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    checks["jobs"] = {"status": "ok", "workers": service.jobs.workers}
    checks["index"] = await _check(_index(service))
    if checks["index"]["status"] == "error" and status == "ok":
        status = "degraded"
    return JSONResponse({"status": status, "checks": checks}, code)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus exposition (the index lag read at scrape time)."""
    service: Service = request.app.state.service
    if service.indexer.enabled:
        with contextlib.suppress(MemstrataError):  # storage down: the rest still answers
            await _index_lag(service)
    return Response(service.metrics.render(), media_type=CONTENT_TYPE)


async def _check(probe: Any) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        detail: dict[str, Any] = await asyncio.wait_for(probe, CHECK_TIMEOUT)
    except (MemstrataError, OSError, TimeoutError) as exc:
        detail = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
    detail["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return detail


async def _storage(engine: MemoryEngine) -> dict[str, Any]:
    await engine.storage.list_chats(tenant=PROBE_TENANT, limit=1)
    return {"status": "ok", "backend": type(engine.storage).__name__}


async def _vectors(engine: MemoryEngine) -> dict[str, Any]:
    if isinstance(engine.recall, NullVectorReader) or not engine.uses_recall:
        return {"status": "disabled", "backend": type(engine.recall).__name__}
    scope = RecallScope(chat_id="__healthz__", tenant=PROBE_TENANT)
    await engine.recall.get_relevant_history("health check", scope, k=1)
    return {"status": "ok", "backend": type(engine.recall).__name__}


async def _index(service: Service) -> dict[str, Any]:
    """The recall index's backlog and the background indexer's last failure."""
    indexer = service.indexer
    if not indexer.enabled:
        return {"status": "disabled"}
    lag, chats = await _index_lag(service)
    detail: dict[str, Any] = {"status": "ok", "lag_turns": lag, "lagging_chats": chats}
    if indexer.last_error is not None:
        detail.update(status="error", error=indexer.last_error, failures=indexer.failures)
    return detail


async def _cached_llm_check(service: Service) -> dict[str, Any]:
    """The LLM probe, at most once per ``LLM_PROBE_SECONDS`` (it is a network call)."""
    cached = service.llm_probe
    now = time.monotonic()
    if cached is not None and now - cached[0] < LLM_PROBE_SECONDS:
        return {**cached[1], "cached": True}
    detail = await _check(_llm(service.engine))
    service.llm_probe = (now, detail)
    return detail


async def _index_lag(service: Service) -> tuple[int, int]:
    """Turns not yet recallable and the chats they are in (the 64 that lag most); sets the gauge."""
    backlog = await service.engine.storage.index_backlog(limit=64)
    lag = sum(chat.index_lag for chat in backlog)
    service.metrics.index_lag.set(lag)
    return lag, len(backlog)


async def _llm(engine: MemoryEngine) -> dict[str, Any]:
    """The summary model's server, reached with its cheap probe (wrappers looked through)."""
    llm = getattr(engine.writer, "llm", None)
    if llm is None:
        return {"status": "offline", "backend": type(engine.writer).__name__}
    while (inner := getattr(llm, "llm", None)) is not None:  # MeteredLLM and the like
        llm = inner
    probe = getattr(llm, "ping", None) or getattr(llm, "health", None)
    if probe is None:
        return {"status": "configured", "backend": type(llm).__name__}
    result = probe()
    if inspect.isawaitable(result):
        await result
    return {"status": "ok", "backend": type(llm).__name__}
