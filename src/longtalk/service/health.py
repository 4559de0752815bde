"""``/healthz`` and ``/metrics``: what works right now, part by part; Prometheus.

Each part of ``/healthz`` is ``ok``, ``degraded`` or ``down`` (``disabled`` for a part the
configuration does not use), and so is the whole:

* ``storage``: a read and a write (a probe chat created and deleted in the ``__healthz__``
  tenant). Unreachable: ``down``, and the service is ``down`` (503). Readable but not
  writable (a full disk, a read-only file): ``degraded``.
* ``vectors``: a search, and whether a write would succeed (the embedded store's free-space
  check). A store that failed to open or fails now is ``down``; the service answers from
  the running summary and is ``degraded``.
* ``llm``: the summary model: what its last calls did (outcomes, latencies, a call in flight
  past its timeout; see ``service.llm_watch``) and its server, probed cheaply at most once
  per ``LLM_PROBE_SECONDS``. Calls that hang, trickle past their deadline or keep failing are
  ``down`` whatever the probe says; the last call failing or calls slower than half their
  timeout ``degraded``.
* ``index``: turns not yet recallable and the chats they are in; ``degraded`` while the
  background indexer fails.
* ``jobs``: the summary job queue; ``degraded`` while a chat's summary job keeps failing.

The service is ``down`` when storage is down, ``degraded`` when any part is not ``ok``,
else ``ok``.

With API keys configured, a call without a valid key gets only the liveness bit
(``{"status": "alive"}``, 200) and runs no probe; the parts need a key. Probes are rate
limited: calls that arrive while one runs share its answer, so however many come at once,
storage and the vector store see one probe at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
import uuid
from collections.abc import Awaitable
from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError, StorageUnavailableError
from longtalk.service.auth import AuthError, request_key
from longtalk.service.errors import public_error
from longtalk.service.metrics import CONTENT_TYPE
from longtalk.service.state import Service
from longtalk.vectors.base import NullVectorReader, RecallScope, WriteCheck


class HealthOut(BaseModel):
    """``GET /healthz``."""

    status: Literal["ok", "degraded", "down"]
    checks: dict[str, dict[str, Any]]


router = APIRouter(tags=["operations"])
CHECK_TIMEOUT = 5.0
LLM_PROBE_SECONDS = 30.0
PROBE_TENANT = "__healthz__"
Status = Literal["ok", "degraded", "down", "disabled"]
WORKING = ("ok", "disabled")
SEVERITY = ("disabled", "ok", "degraded", "down")


@router.get("/healthz")
async def healthz(request: Request) -> JSONResponse:
    """Each part and the whole: ``ok``/``degraded`` (200) or ``down`` (503).

    With API keys configured, only the liveness bit without a valid key.
    """
    service: Service = request.app.state.service
    if service.auth.enabled and not _keyed(service, request):
        return JSONResponse({"status": "alive"})
    running = service.health_probe
    if running is None or running.done():
        running = service.health_probe = asyncio.ensure_future(_probe(service))
    body, status = await asyncio.shield(running)
    return JSONResponse(body, status)


def _keyed(service: Service, request: Request) -> bool:
    try:
        service.auth.tenant_for(request_key(request))
    except AuthError:
        return False
    return True


async def _probe(service: Service) -> tuple[dict[str, Any], int]:
    """Every part probed once: the body and status every caller waiting on it gets."""
    checks = {
        "storage": await _storage(service.engine),
        "vectors": await _check(_vectors(service.engine)),
        "llm": await _llm_check(service),
        "index": await _check(_index(service)),
        "jobs": _jobs(service),
    }
    status = overall(checks)
    return {"status": status, "checks": checks}, 503 if status == "down" else 200


def overall(checks: dict[str, dict[str, Any]]) -> Status:
    """``down`` when storage is down, ``degraded`` when any part is not working, else ok."""
    if checks["storage"]["status"] == "down":
        return "down"
    if any(check["status"] not in WORKING for check in checks.values()):
        return "degraded"
    return "ok"


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus exposition (the index lag read at scrape time)."""
    service: Service = request.app.state.service
    if service.indexer.enabled:
        with contextlib.suppress(LongtalkError):  # storage down: the rest still answers
            await _index_lag(service)
    return Response(service.metrics.render(), media_type=CONTENT_TYPE)


async def _check(probe: Awaitable[dict[str, Any]], failed: Status = "down") -> dict[str, Any]:
    """Run a probe with a time limit; a failure is the part ``failed``, with the error."""
    started = time.perf_counter()
    try:
        detail = await asyncio.wait_for(probe, CHECK_TIMEOUT)
    except (LongtalkError, OSError, TimeoutError) as exc:
        # /healthz answers without a key: no URL, credential or upstream body in the text
        detail = {"status": failed, "error": public_error(f"{type(exc).__name__}: {exc}")}
    detail["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return detail


async def _storage(engine: MemoryEngine) -> dict[str, Any]:
    """Down when reads fail; degraded when only writes do."""
    storage = engine.storage
    backend = type(storage).__name__
    read = await _check(_storage_read(engine))
    if read["status"] != "ok":
        return {**read, "backend": backend, "readable": False, "writable": False}
    write = await _check(_storage_write(engine), failed="degraded")
    if write["status"] != "ok":
        if write.get("error", "").startswith(StorageUnavailableError.__name__):
            return {**write, "status": "down", "backend": backend}
        return {**write, "backend": backend, "readable": True, "writable": False}
    return {"status": "ok", "backend": backend, "readable": True, "writable": True,
            "ms": round(read["ms"] + write["ms"], 2)}  # fmt: skip


async def _storage_read(engine: MemoryEngine) -> dict[str, Any]:
    await engine.storage.list_chats(tenant=PROBE_TENANT, limit=1)
    return {"status": "ok"}


async def _storage_write(engine: MemoryEngine) -> dict[str, Any]:
    """A real commit (what a full disk or a read-only file refuses), then cleaned up."""
    chat = await engine.storage.create_chat(f"healthz-{uuid.uuid4().hex}", tenant=PROBE_TENANT)
    await engine.storage.delete_chat(chat.id, tenant=PROBE_TENANT)
    return {"status": "ok"}


async def _vectors(engine: MemoryEngine) -> dict[str, Any]:
    recall = engine.recall
    backend = type(recall).__name__
    if isinstance(recall, NullVectorReader):
        if recall.unavailable and engine.uses_recall:
            return {"status": "down", "backend": backend, "error": recall.unavailable}
        return {"status": "disabled", "backend": backend}
    if not engine.uses_recall:
        return {"status": "disabled", "backend": backend}
    scope = RecallScope(chat_id="__healthz__", tenant=PROBE_TENANT)
    await recall.get_relevant_history("health check", scope, k=1)
    store = getattr(recall, "store", recall)
    if isinstance(store, WriteCheck):
        await store.check_writable()
    return {"status": "ok", "backend": backend, "writable": isinstance(store, WriteCheck) or None}


async def _index(service: Service) -> dict[str, Any]:
    """The recall index's backlog and the background indexer's last failure."""
    indexer = service.indexer
    if not indexer.enabled:
        return {"status": "disabled"}
    lag, chats = await _index_lag(service)
    detail: dict[str, Any] = {"status": "ok", "lag_turns": lag, "lagging_chats": chats}
    if indexer.last_error is not None:
        detail.update(
            status="degraded", error=public_error(indexer.last_error), failures=indexer.failures
        )
    return detail


def _jobs(service: Service) -> dict[str, Any]:
    """The summary job queue; degraded while a chat's job keeps failing (it is retried)."""
    backlog = service.jobs.backlog()
    status: Status = "degraded" if backlog["failing"] else "ok"
    last_error = backlog["last_error"]
    backlog["last_error"] = public_error(last_error if isinstance(last_error, str) else None)
    return {"status": status, "workers": service.jobs.workers, **backlog}


async def _llm_check(service: Service) -> dict[str, Any]:
    """The model's last calls, and its probe: the worse of the two is the part's status."""
    probe = await _cached_llm_check(service)
    if service.llm_watch is None or probe["status"] == "disabled":
        return probe
    calls = service.llm_watch.report()
    status = max(probe["status"], calls.pop("status"), key=SEVERITY.index)
    detail = {**probe, "status": status, "calls": calls}
    if "error" not in detail and "problem" in calls:
        detail["error"] = calls["problem"]
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
    """The summary model's server, reached with its cheap probe (wrappers looked through).

    Offline summaries need no server (``disabled``); a model without a probe is ``ok``
    (``"probed": false``).
    """
    llm = getattr(engine.writer, "llm", None)
    if llm is None:
        return {"status": "disabled", "backend": type(engine.writer).__name__}
    while (inner := getattr(llm, "llm", None)) is not None:  # MeteredLLM and the like
        llm = inner
    probe = getattr(llm, "ping", None) or getattr(llm, "health", None)
    if probe is None:
        return {"status": "ok", "backend": type(llm).__name__, "probed": False}
    result = probe()
    if inspect.isawaitable(result):
        await result
    return {"status": "ok", "backend": type(llm).__name__, "probed": True}
