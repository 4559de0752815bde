"""Offline chat titles: a short natural phrase, not a keyword list.

Tried in order, each at most ``MAX_TITLE_WORDS`` words:

1. the main topic as the text says it with a name after it (``Trip to Lisbon``);
2. a participant's possessive phrase around the topic (``Caroline's adoption plans``);
3. the topic in a place (``Hiking in Lisbon``), or two topics joined (``Hiking and painting``);
4. the first user message's opening clause.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from longtalk.core.messages import Message, Role
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline_entities import mentions
from longtalk.summary.offline_text import STOPWORDS, upper_first

__all__ = ["MAX_TITLE_WORDS", "natural_title"]

MAX_TITLE_WORDS = 6
_NAME = r"[^\W\d_][\w'’\-]*(?: [^\W\d_][\w'’\-]*){0,2}"
_DETERMINER = "(?:a|an|the|my|our|this|that|his|her)"
_PREPOSITIONS = "to|in|at|for|with|about|from|of|on"
_GREETING = re.compile(r"^(?:(?:hi|hello|hey|so|ok|okay|well|yes|yeah)\b[\s,!.]*)+", re.I)


def natural_title(summary: ConversationSummary | None, messages: Sequence[Message] = ()) -> str:
    """A short phrase naming what the conversation is about; ``""`` when nothing fits."""
    texts = [m.content for m in messages if m.role == Role.USER and m.content.strip()]
    topics = _topics(summary)
    if summary is not None:
        texts = [summary.narrative, *summary.decisions, *texts]
    places = _places(summary)
    candidates = (
        _with_name(topics, texts),
        _possessive(topics, texts, summary),
        _around_place(places, texts),
    )
    for title in candidates:
        if title:
            return title
    return _from_topics(topics, places) or _opening(messages)


def _topics(summary: ConversationSummary | None) -> list[str]:
    """Topic phrases that are not names, dates or numbers."""
    if summary is None:
        return []
    names = {e.name.casefold() for e in summary.entities}
    return [t for t in summary.topics if t.casefold() not in names and _kind(t) == "thing"]


def _kind(word: str) -> str:
    """A lone word's type as the entity cues see it (``lisbon`` is a place)."""
    found = mentions(f"about {word.title()}")
    return found[0].kind if found and len(found[0].name) == len(word) else "thing"


def _places(summary: ConversationSummary | None) -> list[str]:
    if summary is None:
        return []
    places = [e.name for e in summary.entities if e.type == "place"]
    return places + [t.title() for t in summary.topics if _kind(t) == "place"]


def _around_place(places: Sequence[str], texts: Sequence[str]) -> str:
    """``a trip to Lyon`` -> ``Trip to Lyon``: a noun after a determiner, then the place."""
    for place in places[:2]:
        pattern = rf"\b{_DETERMINER} (?:[\w\-]+ )?([a-z]{{3,}}) (to|in) {re.escape(place)}\b"
        for text in texts:
            match = re.search(pattern, text)
            if match and match.group(1) not in STOPWORDS:
                return upper_first(f"{match.group(1)} {match.group(2)} {place}")
    return ""


def _with_name(topics: Sequence[str], texts: Sequence[str]) -> str:
    """``trip to Lisbon`` as the text says it."""
    for topic in topics[:3]:
        pattern = rf"\b({re.escape(topic)}) ({_PREPOSITIONS}) (?:the )?({_NAME})"
        for text in texts:
            for match in re.finditer(pattern, text, re.IGNORECASE):
                name = _proper(match.group(3))
                if name:
                    return upper_first(f"{match.group(1).lower()} {match.group(2).lower()} {name}")
    return ""


def _possessive(
    topics: Sequence[str], texts: Sequence[str], summary: ConversationSummary | None
) -> str:
    """``Caroline's adoption plans``: a person's phrase that contains the topic."""
    people = [e.name for e in summary.entities if e.type == "person"] if summary else []
    for topic in topics[:3]:
        for person in people:
            pattern = rf"\b{re.escape(person)}'s ((?:\w+ )?{re.escape(topic)}(?: \w+)?)\b"
            for text in texts:
                match = re.search(pattern, text, re.IGNORECASE)
                if match:
                    tail = [w for w in match.group(1).split() if w.lower() not in STOPWORDS]
                    return f"{person}'s {' '.join(tail)}"
    return ""


def _from_topics(topics: Sequence[str], places: Sequence[str]) -> str:
    if not topics:
        return ""
    if places:
        return _cut(f"{upper_first(topics[0])} in {places[0]}")
    if len(topics) > 1:
        return _cut(f"{upper_first(topics[0])} and {topics[1]}")
    return upper_first(topics[0])


_INTRODUCTION = re.compile(r"^(?:i'm|i am|my name is|this is|it's|it is)\s+\S+$", re.I)


def _opening(messages: Sequence[Message]) -> str:
    """The first user message's first clause that is not a greeting or an introduction."""
    first = next((m.content for m in messages if m.role == Role.USER and m.content.strip()), "")
    clauses = re.split(r"[.!?;:]\s|[,]\s(?:and|but|so)\s|\n", _GREETING.sub("", first.strip()))
    for clause in (c.strip(" ,.!?") for c in clauses):
        if clause and not _INTRODUCTION.match(clause):
            return upper_first(_cut(clause))
    return ""


def _proper(name: str) -> str:
    """The capitalised words at the start of ``name`` (``Lisbon next`` -> ``Lisbon``)."""
    words = []
    for word in name.split():
        if not word[:1].isupper():
            break
        words.append(word)
    return " ".join(words)


def _cut(text: str) -> str:
    return " ".join(text.split()[:MAX_TITLE_WORDS])
