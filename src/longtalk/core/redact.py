"""Secrets masked in anything printed or logged: the one masking function every output uses.

:func:`redact` takes any text (a URL, a log line, an error message, a configuration value)
and replaces by ``***``: the password of every URL in it (``scheme://user:PASSWORD@host``,
also nested as ``pgvector:postgresql://...`` or ``qdrant:http://...``), the values of
secret-looking query parameters (``?api_key=``, ``&token=``, ``password=``...), libpq's
``password=...`` and bearer tokens. User names, hosts and paths stay readable.

Pure; idempotent (masking twice changes nothing).
"""

from __future__ import annotations

import re

REDACTED = "***"

_NETLOC = re.compile(r"(?P<scheme>\b[a-z][a-z0-9+.\-]*://)(?P<netloc>[^\s/?#'\"<>]+)", re.I)
_SECRET_WORDS = (
    "password|passwd|pass|pwd|secret|token|api_?key|apikey|key|auth|sig|signature|credentials?"
)
_SECRET_PARAM = re.compile(
    rf"(?P<name>(?<![A-Za-z0-9_])(?:[A-Za-z0-9]+[_.\-])*(?:{_SECRET_WORDS}))"
    r"=(?P<value>[^&\s#'\"<>;,]+)",
    re.I,
)
_BEARER = re.compile(r"\b(?P<name>bearer\s+)(?P<value>[A-Za-z0-9._~+/=\-]{4,})", re.I)


def redact(text: str) -> str:
    """``text`` with every credential in it replaced by ``***`` (see the module docstring)."""
    if not text:
        return text
    text = _NETLOC.sub(_mask_netloc, text)
    text = _SECRET_PARAM.sub(_mask_value, text)
    return _BEARER.sub(_mask_value, text)


def redact_url(url: str) -> str:
    """``url`` with its password and secret-looking query parameters replaced by ``***``."""
    return redact(url)


def _mask_netloc(match: re.Match[str]) -> str:
    netloc = match.group("netloc")
    userinfo, at, host = netloc.rpartition("@")
    if not at or ":" not in userinfo:
        return match.group(0)
    user = userinfo.partition(":")[0]
    return f"{match.group('scheme')}{user}:{REDACTED}@{host}"


def _mask_value(match: re.Match[str]) -> str:
    separator = "" if match.group(0).lower().startswith("bearer") else "="
    return f"{match.group('name')}{separator}{REDACTED}"


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", re.IGNORECASE)
_SECRET = re.compile(r"\b(bearer\s+|sk-|api[_-]?key[=:]\s*)\S+", re.IGNORECASE)
_UPSTREAM_BODY = re.compile(r"(\(HTTP \d{3}\)).*", re.DOTALL)
PUBLIC_ERROR_CHARS = 300


def public_error(text: str | None) -> str | None:
    """An error text fit for clients: no URLs, keys or upstream bodies, one short line."""
    if text is None:
        return None
    text = _UPSTREAM_BODY.sub(r"\1", text)
    text = _URL.sub("<url>", text)
    text = _SECRET.sub(lambda m: m.group(1) + "***", text)
    text = " ".join(text.split())
    return text if len(text) <= PUBLIC_ERROR_CHARS else text[: PUBLIC_ERROR_CHARS - 1] + "…"
