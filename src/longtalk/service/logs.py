"""Keep secrets out of the server's log: credentials in any line are masked where it is written.

Errors are built without credentials where they arise (``longtalk.core.redact``); this is the
net under that: :class:`RedactSecrets` masks URL passwords, key-like query parameters and
bearer tokens in every record the service's log handlers write (uvicorn's access and error
logs, the root logger's handlers, and Python's last-resort handler that writes warnings when
nothing is configured). A key sent in a URL is refused, and not logged either.
"""

from __future__ import annotations

import logging

from longtalk.core.redact import RedactSecrets, install_filter, redact
from longtalk.core.redact import redact_logs as redact_handlers

ACCESS_LOGGER = "uvicorn.access"
LOGGERS = ("", "uvicorn", "uvicorn.error", ACCESS_LOGGER)


def redact_url(text: str) -> str:
    """``text`` with its credentials replaced by ``***`` (see ``longtalk.core.redact``)."""
    return redact(text)


__all__ = ["RedactKeys", "RedactSecrets", "redact_access_log", "redact_logs", "redact_url"]

RedactKeys = RedactSecrets
"""The access log's filter, by the name it had when it only masked query parameters."""


def redact_access_log() -> None:
    """Install :class:`RedactSecrets` on the access logger (once)."""
    install_filter(logging.getLogger(ACCESS_LOGGER))


def redact_logs() -> None:
    """Install :class:`RedactSecrets` on every handler the service's records reach (once).

    Call it after logging is configured (uvicorn configures it before the app starts).
    """
    redact_access_log()
    redact_handlers(LOGGERS)
