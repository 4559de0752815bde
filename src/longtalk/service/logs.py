"""Keep secrets out of the access log: a key sent in a URL is refused, and not logged either."""

from __future__ import annotations

import logging
import re

ACCESS_LOGGER = "uvicorn.access"
_KEY_IN_QUERY = re.compile(r"([?&](?:api_key|key|token|access_token)=)[^&\s]*", re.IGNORECASE)


def redact_url(text: str) -> str:
    """``text`` with the values of key-like query parameters replaced by ``***``."""
    return _KEY_IN_QUERY.sub(r"\1***", text)


class RedactKeys(logging.Filter):
    """Redacts key-like query parameters in a log record's arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the arguments in place; never drops the record."""
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_url(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


def redact_access_log() -> None:
    """Install :class:`RedactKeys` on uvicorn's access logger (once)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, RedactKeys) for f in logger.filters):
        logger.addFilter(RedactKeys())
