"""The request-body gate (pure ASGI): size, content type, and JSON storage can hold.

Before a route sees a body: over ``service.max_body_bytes`` is 413; a body that is not
``application/json`` is 415 (a browser can send ``text/plain`` or a form across sites
without asking, JSON it cannot); JSON that does not parse is 400; text with lone surrogates,
NaN or infinities, or nesting past the metadata depth (plus the body's own levels) is 422.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from longtalk.service.errors import error_response
from longtalk.service.limits import Limits, json_problem

BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class _Refused(Exception):
    def __init__(self, status: int, kind: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail, self.extra = status, kind, detail, extra


class BodyGate:
    """Reads the whole body once, checks it, and replays it to the app."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a bad body, or pass the request on with the body replayed."""
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read(scope, receive)
            self._check(scope, body)
        except _Refused as refused:
            response = error_response(refused.status, refused.kind, refused.detail, **refused.extra)
            await response(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, scope: Scope, receive: Receive) -> bytes:
        limit = self.limits.max_body_bytes
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _Refused(413, "too_large", _too_large(int(declared), limit))
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _Refused(413, "too_large", _too_large(size, limit, at_least=True))
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    def _check(self, scope: Scope, body: bytes) -> None:
        content_type = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if content_type and not _is_json(content_type):
            raise _Refused(
                415,
                "unsupported_media_type",
                f"the body must be application/json, not {content_type}",
            )
        if not body.strip():
            return
        try:
            value = json.loads(body)
        except RecursionError:
            raise _Refused(400, "invalid_json", "the body nests too deep to parse") from None
        except ValueError as exc:  # also invalid UTF-8 and over-long integers
            raise _Refused(400, "invalid_json", f"the body is not JSON: {exc}") from None
        problem = json_problem(value, max_depth=self.limits.body_depth)
        if problem is not None:
            field, _, message = problem.partition(": ")
            raise _Refused(
                422,
                "invalid",
                problem,
                errors=[{"field": field, "message": message, "type": "value_error"}],
            )


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _too_large(size: int, limit: int, *, at_least: bool = False) -> str:
    bytes_ = f"over {limit}" if at_least else str(size)
    return f"the request body is {bytes_} bytes; the limit is {limit} (service.max_body_bytes)"
