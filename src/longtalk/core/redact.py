"""Secrets masked in anything printed or logged: the one masking function every output uses.

:func:`redact` takes any text (a URL, a log line, an error message, a model server's error
body, a configuration value) and replaces by ``***``:

- the password of every URL in it (``scheme://user:PASSWORD@host``, also nested as
  ``pgvector:postgresql://...`` or ``qdrant:http://...``);
- the values of secret-looking query parameters and fields (``?api_key=``, ``&token=``,
  ``password=``...) and libpq's ``password=...``;
- credential headers and fields, as a header line, JSON or a Python mapping shows them:
  ``Authorization`` and ``Proxy-Authorization`` (``Bearer``, ``Basic``, any scheme),
  ``x-api-key``, ``api-key``, ``token``, ``x-auth-token``, ``cookie``; and bearer tokens and
  ``sk-…`` keys wherever they stand;
- the literal values of the keys this process was configured with (:func:`add_secrets`:
  the model's key, the service's API keys, the client's key), however they are quoted.

User names, hosts and paths stay readable. :class:`RedactSecrets` applies it to log records,
and :func:`redact_logs` installs it on the handlers a process writes through. Idempotent
(masking twice changes nothing).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

REDACTED = "***"
MIN_SECRET_CHARS = 6
"""Configured values shorter than this are not masked by value (they would mask words)."""
_KNOWN: set[str] = set()

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
_HEADER_NAMES = (
    r"(?:proxy-)?authorization|x-api-key|api-key|x-auth-token|x-access-token|auth-token|token"
    r"|cookie|set-cookie|x-goog-api-key|ocp-apim-subscription-key"
)
_HEADER = re.compile(
    rf"(?P<name>(?<![A-Za-z0-9_-])[\"']?(?:{_HEADER_NAMES})[\"']?\s*[:=]\s*[\"']?"
    r"(?:(?:bearer|basic|digest|token|negotiate|ntlm|aws4-hmac-sha256)\s+)?)"
    r"(?P<value>[^\s\"',;}\]]+)",
    re.I,
)
_OPENAI_KEY = re.compile(r"\b(?P<name>sk-)(?P<value>[A-Za-z0-9_\-]{6,})")


def redact(text: str) -> str:
    """``text`` with every credential in it replaced by ``***`` (see the module docstring)."""
    if not text:
        return text
    for secret in sorted(_KNOWN, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _NETLOC.sub(_mask_netloc, text)
    text = _HEADER.sub(_mask_header, text)
    text = _SECRET_PARAM.sub(_mask_value, text)
    text = _BEARER.sub(_mask_value, text)
    return _OPENAI_KEY.sub(_mask_header, text)


def add_secrets(values: Iterable[str | None]) -> None:
    """Mask these configured values by their literal text from now on, in this process.

    Called where a key enters the process (the model's key, the service's API keys, the
    client's key); values under :data:`MIN_SECRET_CHARS` characters are too short to mask.
    """
    for value in values:
        if value and len(value.strip()) >= MIN_SECRET_CHARS:
            _KNOWN.add(value.strip())


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


def _mask_header(match: re.Match[str]) -> str:
    value = match.group("value")
    return match.group(0) if value == REDACTED else f"{match.group('name')}{REDACTED}"


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


class RedactSecrets(logging.Filter):
    """Masks credentials in a record's message and arguments; never drops the record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and arguments in place (formatters read both)."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_masked(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _masked(arg) for key, arg in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def _masked(arg: object) -> object:
    """An argument with credentials masked: text redacted, another object only if it shows one."""
    if isinstance(arg, str):
        return redact(arg)
    if isinstance(arg, int | float | bool) or arg is None:
        return arg
    shown = str(arg)
    masked = redact(shown)
    return arg if masked == shown else masked


def redact_logs(loggers: Iterable[str] = ("",)) -> None:
    """Install :class:`RedactSecrets` on every handler of ``loggers`` and the last resort (once).

    Call it after logging is configured; the last-resort handler is what writes a library's
    warnings when nothing is configured (the command line's case).
    """
    handlers = [handler for name in loggers for handler in logging.getLogger(name).handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        install_filter(handler)


def install_filter(target: logging.Filterer) -> None:
    """Add :class:`RedactSecrets` to ``target`` unless it has one."""
    if not any(isinstance(f, RedactSecrets) for f in target.filters):
        target.addFilter(RedactSecrets())
