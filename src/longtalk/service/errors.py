"""Errors to HTTP statuses, in one place.

=============================  ======  ========================================
error                          status  when
=============================  ======  ========================================
invalid JSON, a bad ``Host``    400     the body is not JSON; a non-loopback host
``IdempotencyConflict``        400     a key or message ids reused for another request
``AuthError``, key in URL      401     no API key, an unknown one, or one in the URL
cross-site write               403     ``Origin``/``Sec-Fetch-Site`` of another site
``NotFoundError``              404     no such chat or summary for this tenant
``ConflictError``              409     a concurrent change won; retry
``InputTooLarge``              413     a field, message, batch or body over a limit
not JSON                       415     a body that is not ``application/json``
validation / ``UsageError``    422     wrong types, missing fields, unstorable text
``BackendError``               502     another backend failed (details in the log)
``StorageUnavailableError``    503     the database cannot be reached
=============================  ======  ========================================

Bodies are ``{"error": <kind>, "detail": <what to do>}`` (validation adds ``errors``).
Backend failures reach clients without URLs, credentials or upstream bodies
(:func:`public_error`); the whole text goes to the server log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.routing import Match

from longtalk.core.redact import public_error as public_error  # where the routes find it
from longtalk.errors import (
    BackendError,
    ConflictError,
    IdempotencyConflict,
    InputTooLarge,
    NotFoundError,
    StorageUnavailableError,
    UsageError,
)
from longtalk.service.auth import AuthError

log = logging.getLogger(__name__)


PayloadTooLarge = InputTooLarge
"""A field, message, batch or body over the configured limits (the gate's own error)."""


class ErrorOut(BaseModel):
    """Every error body."""

    error: str
    detail: str


class FieldError(BaseModel):
    """One invalid field of a request."""

    field: str
    message: str
    type: str


class ValidationErrorOut(ErrorOut):
    """A 422: the request's invalid fields."""

    errors: list[FieldError] = []


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorOut,
        "description": "Not JSON, a host this service does not serve, or an idempotency "
        "key or message ids already used for another request",
    },
    401: {"model": ErrorOut, "description": "No API key, an unknown one, or one in the URL"},
    403: {"model": ErrorOut, "description": "A cross-site request that would change data"},
    413: {"model": ErrorOut, "description": "A field, message, batch or body over a limit"},
    415: {"model": ErrorOut, "description": "A body that is not application/json"},
    422: {"model": ValidationErrorOut, "description": "Invalid fields"},
    502: {"model": ErrorOut, "description": "A backend (model, vector store) failed"},
    503: {"model": ErrorOut, "description": "The database cannot be reached"},
}
"""Statuses every route can answer, documented in the OpenAPI schema."""
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such chat or summary for this tenant"}
}
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorOut, "description": "Taken, or a concurrent change won"}
}


def error_response(
    status: int,
    kind: str,
    detail: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """The error body every refusal uses."""
    body = {"error": kind, "detail": _printable(detail), **extra}
    return JSONResponse(body, status, headers=dict(headers) if headers else None)


_STATUS: tuple[tuple[type[Exception], int, str], ...] = (
    (AuthError, 401, "unauthorized"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (StorageUnavailableError, 503, "storage_unavailable"),
    (InputTooLarge, 413, "too_large"),
    (IdempotencyConflict, 400, "idempotency_conflict"),
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

    async def longtalk_error(request: Request, exc: Exception) -> JSONResponse:
        status, name = status_of(exc)
        detail = str(exc)
        if status >= 500:
            log.warning("%s %s failed: %s", request.method, request.url.path, exc)
            detail = f"{type(exc).__name__}: {public_error(detail)} (details in the server log)"
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return error_response(status, name, detail, headers=headers)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return error_response(exc.status_code, kind, str(exc.detail), headers=headers)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [_describe(error) for error in exc.errors()]
        if any(error["type"] == "json_invalid" for error in exc.errors()):
            return error_response(400, "invalid_json", errors[0]["message"])
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return error_response(422, "invalid", detail, errors=errors)

    for kind in (AuthError, UsageError, BackendError):
        app.add_exception_handler(kind, longtalk_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route of the request's path answers (a 405's ``Allow``)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def _describe(error: Any) -> dict[str, str]:
    location = [str(part) for part in error.get("loc", ()) if part != "body"]
    return {
        "field": ".".join(location) or "body",
        "message": _printable(str(error.get("msg", "invalid"))),
        "type": str(error.get("type", "")),
    }


def _printable(text: str) -> str:
    """Text a JSON body can carry (a lone surrogate echoed back would fail the answer)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
