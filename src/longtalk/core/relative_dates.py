"""Relative time words in a message resolved against the message's own date (pure).

A recalled turn from months ago says "I went to a support group yesterday"; its date line
says 8 May 2023, so the reader (a model, or a word match) still has to work out that the
group met on 7 May 2023. :func:`resolve_relative_dates` does that arithmetic for the phrases
whose meaning is unambiguous: ``yesterday``, ``last night``, ``tomorrow``, ``N days ago``
(a day), ``last year``, ``N years ago`` (a year), ``last month``, ``next month`` (a month).
Vague ones (``last week``, ``recently``) are left as they are: the date line already says
what they are relative to. :func:`event_day` dates a sentence by what it tells of (the
offline summary's items). Measured on LoCoMo dev in ``docs/recall.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

__all__ = ["annotate_relative_dates", "event_day", "resolve_relative_dates"]

_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT = r"(\d{1,2}|a|an|one|two|three|four|five|six)"
MAX_DAYS_AGO = 31  # "40 days ago" is a figure of speech more often than a count


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS[word.lower()]


def _day(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _month(said: date, offset: int) -> str:
    index = said.year * 12 + said.month - 1 + offset
    return f"{date(index // 12, index % 12 + 1, 1):%B %Y}"


Rule = tuple[re.Pattern[str], Callable[[date, re.Match[str]], str | None]]


def _days_ago(day: date, match: re.Match[str]) -> str | None:
    count = _count(match.group(1))
    return _day(day - timedelta(days=count)) if count <= MAX_DAYS_AGO else None


def _years_ago(day: date, match: re.Match[str]) -> str | None:
    count = _count(match.group(1))
    return str(day.year - count) if 0 < count < day.year else None


_RULES: tuple[Rule, ...] = (
    (re.compile(r"\byesterday\b", re.I), lambda d, _: _day(d - timedelta(days=1))),
    (re.compile(r"\blast night\b", re.I), lambda d, _: _day(d - timedelta(days=1))),
    (re.compile(r"\btomorrow\b", re.I), lambda d, _: _day(d + timedelta(days=1))),
    (re.compile(rf"\b{_COUNT} days? ago\b", re.I), _days_ago),
    (re.compile(r"\blast year\b", re.I), lambda d, _: str(d.year - 1)),
    (re.compile(rf"\b{_COUNT} years? ago\b", re.I), _years_ago),
    (re.compile(r"\blast month\b", re.I), lambda d, _: _month(d, -1)),
    (re.compile(r"\bnext month\b", re.I), lambda d, _: _month(d, 1)),
)


def resolve_relative_dates(text: str, when: datetime | date | None) -> list[tuple[str, str]]:
    """``(phrase, what it means)`` for each relative time phrase of ``text``, in order.

    ``when`` is the message's date (None: nothing can be resolved). A phrase said twice is
    resolved once.
    """
    if when is None:
        return []
    day = when.date() if isinstance(when, datetime) else when
    found: dict[str, tuple[int, str]] = {}
    for pattern, meaning in _RULES:
        for match in pattern.finditer(text):
            phrase = match.group(0).lower()
            resolved = meaning(day, match)
            if resolved and phrase not in found:
                found[phrase] = (match.start(), resolved)
    return [(phrase, resolved) for phrase, (_, resolved) in sorted(found.items(), key=_start)]


def event_day(text: str, when: datetime | date | None) -> str:
    """The day (or month, or year) ``text`` tells of.

    Its first relative date resolved, else the day it was said (``8 May 2023``; ``""``
    without a date).
    """
    if when is None:
        return ""
    resolved = resolve_relative_dates(text, when)
    return resolved[0][1] if resolved else f"{when.day} {when:%B %Y}"


def _start(item: tuple[str, tuple[int, str]]) -> int:
    return item[1][0]


def annotate_relative_dates(line: str, text: str, when: datetime | date | None) -> str:
    """``line`` followed by what ``text``'s relative dates mean, in order: ``(7 May; 2022)``.

    Terse on purpose (every token counts against the recall share): the date line above the
    turn gives the year, so a date in the year the turn was said in is shown without it.
    """
    resolved = resolve_relative_dates(text, when)
    if not resolved or when is None:
        return line
    year = f" {when.year}"
    meanings = dict.fromkeys(m.removesuffix(year) if m != year[1:] else m for _, m in resolved)
    return f"{line} ({'; '.join(meanings)})"
