"""The episode-summary service's writes, as its Node client sends them.

That client posts ``JSON.stringify({sessionId, content, tokenCount, episodeRange})`` with
``fetch`` and no ``Content-Type`` header, so the body arrives labelled
``text/plain;charset=UTF-8`` (or unlabelled). :class:`SummaryJSONBodies` reads such bodies
of ``POST /summaries`` and ``PATCH /summaries/{id}`` as JSON; every other request passes
untouched, and a body that is not JSON still gets the usual error naming the problem.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_SUMMARY_ROW = re.compile(r"^/summaries/[^/]+/?$")
_PLAIN = {b"", b"text/plain"}


def is_summary_write(method: str, path: str) -> bool:
    """True for the episode-summary service's two write routes."""
    if method == "POST":
        return path.rstrip("/") == "/summaries"
    return method == "PATCH" and bool(_SUMMARY_ROW.match(path))


class SummaryJSONBodies:
    """ASGI middleware: plain-text or unlabelled summary writes are read as JSON."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Relabel the body of a plain-text summary write, then pass the request on."""
        if scope["type"] == "http" and is_summary_write(scope["method"], scope["path"]):
            headers: list[tuple[bytes, bytes]] = list(scope["headers"])
            label = next((v for k, v in headers if k == b"content-type"), b"")
            if label.split(b";")[0].strip().lower() in _PLAIN:
                kept = [(k, v) for k, v in headers if k != b"content-type"]
                scope = {**scope, "headers": [*kept, (b"content-type", b"application/json")]}
        await self.app(scope, receive, send)
