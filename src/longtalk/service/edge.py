"""The edge gate (pure ASGI): who may reach the service, from where, and the response headers.

- ``Host``: without API keys the service is a local tool, so only loopback names and
  addresses (``localhost``, ``*.localhost``, ``127.0.0.0/8``, ``::1``) and
  ``service.allowed_hosts`` are served; a page on another name that resolves to 127.0.0.1
  (DNS rebinding) gets 400. With keys, ``service.allowed_hosts`` (when set) is enforced.
- Cross-site writes: a request other than GET/HEAD/OPTIONS whose ``Sec-Fetch-Site`` is
  ``cross-site``/``same-site`` or whose ``Origin`` is not the ``Host`` is 403.
- ``?api_key=`` is refused (401): keys go in headers, never in URLs that end up in logs.
- ``/metrics`` needs a key when keys are configured, and shows a tenant only its own series.
- Every response carries ``X-Content-Type-Options: nosniff``, a CSP with
  ``frame-ancestors 'none'``, ``X-Frame-Options: DENY`` and ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from longtalk.config import ServiceConfig
from longtalk.core.hosts import is_loopback_host
from longtalk.service.auth import Authenticator, AuthError, header_key
from longtalk.service.errors import error_response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
KEY_IN_URL = "api_key"
_TENANT_LABEL = re.compile(r'tenant="((?:[^"\\]|\\.)*)"')


def host_name(host: str) -> str:
    """The name of a ``Host`` value without its port (``[::1]:80`` -> ``::1``)."""
    return urlsplit(f"//{host}").hostname or ""


class EdgeGate:
    """Host, origin and URL-key checks; the metrics gate; security headers."""

    def __init__(self, app: ASGIApp, config: ServiceConfig) -> None:
        self.app = app
        self.auth = Authenticator(config.api_keys)
        self.allowed = {name.lower().rstrip(".") for name in config.allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse, or pass on with the security headers added."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, kind, detail = refusal
            extra = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            response = error_response(status, kind, detail, headers=extra)
            await response(scope, receive, _with_headers(scope, send))
            return
        if scope["path"] == "/metrics" and self.auth.enabled:
            tenant = self.auth.tenant_for(header_key(headers))
            await self.app(scope, receive, _own_series(_with_headers(scope, send), tenant))
            return
        await self.app(scope, receive, _with_headers(scope, send))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, str] | None:
        host = host_name(headers.get("host", ""))
        if "host" in headers and not self._host_allowed(host):
            return 400, "bad_host", f"this service does not answer for host {host!r}"
        if scope["method"] not in SAFE_METHODS:
            site = headers.get("sec-fetch-site", "")
            if site in ("cross-site", "same-site"):
                return 403, "cross_site", "cross-site requests may not change anything"
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != headers.get("host"):
                return 403, "cross_site", f"requests from origin {origin!r} are refused"
        query = scope.get("query_string", b"").decode("latin-1")
        if any(name == KEY_IN_URL for name, _ in parse_qsl(query, keep_blank_values=True)):
            return (
                401,
                "unauthorized",
                "API keys are not accepted in the URL: send the key in a header, "
                "'Authorization: Bearer <key>' or 'X-API-Key: <key>'",
            )
        if scope["path"] == "/metrics" and self.auth.enabled:
            try:
                self.auth.tenant_for(header_key(headers))
            except AuthError as exc:
                return 401, "unauthorized", str(exc)
        return None

    def _host_allowed(self, host: str) -> bool:
        if self.auth.enabled and not self.allowed:
            return True
        return is_loopback_host(host) or host.lower().rstrip(".") in self.allowed


def _with_headers(scope: Scope, send: Send) -> Send:
    csp = STRICT_CSP  # the API docs page too: its script is the package's own
    extra = [
        (b"x-content-type-options", b"nosniff"),
        (b"content-security-policy", csp.encode()),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
    ]

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_with_headers


def _own_series(send: Send, tenant: str) -> Send:
    """Buffer the exposition and drop the series labelled with another tenant."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def filtered(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = filter_tenant_series(b"".join(chunks).decode("utf-8"), tenant).encode("utf-8")
        assert start is not None
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return filtered


def filter_tenant_series(exposition: str, tenant: str) -> str:
    """The Prometheus text without samples whose ``tenant`` label is another tenant."""
    kept = []
    for line in exposition.splitlines():
        match = None if line.startswith("#") else _TENANT_LABEL.search(line)
        if match is None or _unescape(match.group(1)) == tenant:
            kept.append(line)
    return "\n".join(kept) + "\n"


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
