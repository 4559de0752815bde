"""When a statement holds: its relative time words resolved against the message date."""

from __future__ import annotations

from datetime import datetime

from longtalk.core.relative_dates import resolve_relative_dates

__all__ = ["statement_time"]


def statement_time(text: str, said_at: datetime | None) -> str:
    """The first time phrase of ``text`` resolved (``7 May 2023``), else ``""``.

    Without a message date nothing is resolved; a vague phrase (``last week``) is left to
    the date the statement carries.
    """
    resolved = resolve_relative_dates(text, said_at)
    return resolved[0][1] if resolved else ""
