"""When a statement holds: its relative time words resolved against the message date."""

from __future__ import annotations

from datetime import datetime

from longtalk.core.relative_dates import resolve_relative_dates

__all__ = ["WHEN_WORDS", "statement_time"]

WHEN_WORDS = frozenset(
    """day days week weeks weekend weekends month months year years morning mornings
    afternoon evening evenings night nights today tonight tomorrow yesterday now ago
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december every each daily weekly
    monthly yearly always often usually sometimes""".split()
)
"""Words that say when or how often, not what: two claims said of the same week are not one."""


def statement_time(text: str, said_at: datetime | None) -> str:
    """The first time phrase of ``text`` resolved (``7 May 2023``), else ``""``.

    Without a message date nothing is resolved; a vague phrase (``last week``) is left to
    the date the statement carries.
    """
    resolved = resolve_relative_dates(text, said_at)
    return resolved[0][1] if resolved else ""
