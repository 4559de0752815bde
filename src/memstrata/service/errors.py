"""Errors to HTTP statuses, in one place.

=============================  ======  ========================================
error                          status  when
=============================  ======  ========================================
``AuthError``                  401     no API key, or an unknown one
``NotFoundError``              404     no such chat or summary for this tenant
``ConflictError``              409     a concurrent change won; retry
``PayloadTooLarge``            413     message or batch over the limits
invalid JSON                   400     the body is not JSON
validation / ``UsageError``    422     wrong types, missing fields, bad values
``StorageUnavailableError``    503     the database cannot be reached
``BackendError``               502     another backend failed
=============================  ======  ========================================

Bodies are ``{"error": <kind>, "detail": <what to do>}`` (validation adds ``errors``).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from memstrata.errors import (
    BackendError,
    ConflictError,
    NotFoundError,
    StorageUnavailableError,
    UsageError,
)
from memstrata.service.auth import AuthError

log = logging.getLogger(__name__)


class PayloadTooLarge(UsageError):
    """A message or batch over the configured limits."""


_STATUS: tuple[tuple[type[Exception], int, str], ...] = (
    (AuthError, 401, "unauthorized"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (StorageUnavailableError, 503, "storage_unavailable"),
    (PayloadTooLarge, 413, "too_large"),
    (UsageError, 422, "invalid"),
    (BackendError, 502, "backend_error"),
)


def status_of(exc: Exception) -> tuple[int, str]:
    """The HTTP status and error kind of an exception."""
    for kind, status, name in _STATUS:
        if isinstance(exc, kind):
            return status, name
    return 500, "internal"


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping on ``app``."""

    async def memstrata_error(request: Request, exc: Exception) -> JSONResponse:
        status, name = status_of(exc)
        if status >= 500:
            log.warning("%s %s failed: %s", request.method, request.url.path, exc)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"error": name, "detail": str(exc)}, status, headers=headers)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [_describe(error) for error in exc.errors()]
        if any(error["type"] == "json_invalid" for error in exc.errors()):
            return JSONResponse({"error": "invalid_json", "detail": errors[0]["message"]}, 400)
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return JSONResponse({"error": "invalid", "detail": detail, "errors": errors}, 422)

    for kind in (AuthError, UsageError, BackendError):
        app.add_exception_handler(kind, memstrata_error)
    app.add_exception_handler(RequestValidationError, validation_error)


def _describe(error: Any) -> dict[str, str]:
    location = [str(part) for part in error.get("loc", ()) if part != "body"]
    return {
        "field": ".".join(location) or "body",
        "message": str(error.get("msg", "invalid")),
        "type": str(error.get("type", "")),
    }
