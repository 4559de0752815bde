"""Query-side cues for recall: who a question is about, and whether it asks when."""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD = re.compile(r"[a-z0-9]+")

WHEN_QUESTION = re.compile(
    r"^\s*when\b|\bhow long\b|\b(?:what|which) (?:year|month|day|date|time|week)\b", re.I
)
TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|weekend|recently|lately|since"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july"
    r"|august|september|october|november|december|(?:19|20)\d\d|weeks?|months?|years?)\b",
    re.I,
)


def asks_when(query: str) -> bool:
    """True for a question about the time of something."""
    return bool(WHEN_QUESTION.search(query))


def says_when(text: str) -> bool:
    """True for a turn that places something in time."""
    return bool(TIME_WORDS.search(text))


def first_name(name: object) -> str | None:
    """A speaker's first name, lowercased (None for no name)."""
    return str(name).split()[0].lower() if isinstance(name, str) and name.strip() else None


def named_speaker(query: str, names: Iterable[object]) -> str | None:
    """The one speaker (by first name, lowercased) the query mentions, if exactly one."""
    speakers = {first_name(name) for name in names} - {None}
    words = set(WORD.findall(query.lower()))
    named = [speaker for speaker in speakers if speaker in words]
    return named[0] if len(named) == 1 else None


__all__ = ["asks_when", "first_name", "named_speaker", "says_when"]
