"""Keep secrets out of the server's log: credentials in any line are masked where it is written.

Errors are built without credentials where they arise (``longtalk.core.redact``); this is the
net under that: :class:`RedactSecrets` masks URL passwords, key-like query parameters and
bearer tokens in every record the service's log handlers write (uvicorn's access and error
logs, the root logger's handlers, and Python's last-resort handler that writes warnings when
nothing is configured). A key sent in a URL is refused, and not logged either.
"""

from __future__ import annotations

import logging

from longtalk.core.redact import redact

ACCESS_LOGGER = "uvicorn.access"
LOGGERS = ("", "uvicorn", "uvicorn.error", ACCESS_LOGGER)


def redact_url(text: str) -> str:
    """``text`` with its credentials replaced by ``***`` (see ``longtalk.core.redact``)."""
    return redact(text)


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


RedactKeys = RedactSecrets
"""The access log's filter, by the name it had when it only masked query parameters."""


def redact_access_log() -> None:
    """Install :class:`RedactSecrets` on the access logger (once)."""
    _install(logging.getLogger(ACCESS_LOGGER))


def redact_logs() -> None:
    """Install :class:`RedactSecrets` on every handler the service's records reach (once).

    Call it after logging is configured (uvicorn configures it before the app starts).
    """
    redact_access_log()
    handlers = [handler for name in LOGGERS for handler in logging.getLogger(name).handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        _install(handler)


def _install(target: logging.Filterer) -> None:
    if not any(isinstance(f, RedactSecrets) for f in target.filters):
        target.addFilter(RedactSecrets())
