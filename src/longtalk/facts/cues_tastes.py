"""Cues of tastes: likes, dislikes, favourites and seats.

A like and a dislike of one thing share the subject ``taste:<thing>``, so the later opinion
stands. What is liked must be a thing named in the sentence: ``I love that``, ``I love the
colours`` (of what was just shown) and ``I love you`` are left alone.
"""

from __future__ import annotations

import re

from longtalk.facts.cue import (
    ADV,
    NOT_OBJECTS,
    VAGUE,
    Cue,
    Found,
    found,
    name_ok,
    pattern,
    x_group,
)
from longtalk.facts.model import FactKind
from longtalk.facts.phrases import head, slot, third_person_slot

__all__ = ["TASTE_CUES"]


_LIKES = {
    "love": "loves",
    "like": "likes",
    "enjoy": "enjoys",
    "adore": "adores",
    "prefer": "prefers",
}


_DISLIKES = {
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
    "cannot stand": "cannot stand",
    "can not stand": "cannot stand",
    "cannot bear": "cannot bear",
    "do not like": "does not like",
    "do not enjoy": "does not enjoy",
    "do not care for": "does not care for",
    "am not a fan of": "is not a fan of",
    "am not a big fan of": "is not a big fan of",
    "am not into": "is not into",
}


def _seat(m: re.Match[str], s: str) -> Found | None:
    seat = x_group(m).lower().replace(" ", "-")
    return found("preference", "seat", seat, f"{{h}} prefers the {seat} seat.", m)


def _favourite(m: re.Match[str], s: str) -> Found | None:
    what = " ".join(m.group("c").lower().split())
    if head(what) in ("part", "moment", "memory", "bit", "scene", "photo", "picture", "one"):
        return None
    thing = slot(s, m.end(), words=5, kind="list")
    if not thing or NOT_OBJECTS.match(thing):
        return None
    text = f"{{h}}'s favourite {what} is {third_person_slot(thing)}."
    return found("preference", f"favourite:{head(what)}", thing, text, m)


def _favourite_named(m: re.Match[str], s: str) -> Found | None:
    thing, what = m.group("t"), m.group("c").lower()
    if not name_ok(thing) or head(what) in ("part", "moment", "memory", "one", "thing"):
        return None
    text = f"{{h}}'s favourite {what} is {thing}."
    return found("preference", f"favourite:{head(what)}", thing, text, m)


def _taste(m: re.Match[str], s: str, verbs: dict[str, str], kind: FactKind) -> Found | None:
    verb = " ".join(m.group("v").lower().split())
    thing = slot(s, m.end(), words=5, kind="list")
    if not thing or NOT_OBJECTS.match(thing) or not head(thing):
        return None
    if VAGUE.search(thing) or re.match(r"(?:all )?the\b", thing, re.IGNORECASE):
        return None  # "I love the colours" is about what was just shown
    to = "to " if m.group(0).lower().endswith(" to") else ""
    text = f"{{h}} {verbs[verb]} {to}{third_person_slot(thing)}."
    opinion = "dislikes" if kind == "dislike" else "likes"
    return found(kind, f"taste:{head(thing)}", opinion, text, m)


def _likes(m: re.Match[str], s: str) -> Found | None:
    return _taste(m, s, _LIKES, "preference")


def _dislikes(m: re.Match[str], s: str) -> Found | None:
    return _taste(m, s, _DISLIKES, "dislike")


def _fan(m: re.Match[str], s: str) -> Found | None:
    thing = slot(s, m.end(), words=5, kind="list")
    if not thing or NOT_OBJECTS.match(thing) or not head(thing):
        return None
    if VAGUE.search(thing):
        return None
    said = " ".join(m.group("v").lower().split())
    verb = "a fan of" if said == "fan of" else said
    text = f"{{h}} is {verb} {third_person_slot(thing)}."
    return found("preference", f"taste:{head(thing)}", "likes", text, m)


TASTE_CUES: tuple[Cue, ...] = (
    Cue(
        "seat",
        pattern(
            r"\bI (?:always |usually |normally |only |typically |tend to |like to )?"
            r"(?:book|take|get|choose|pick|prefer|want|ask for|go for|reserve|request|sit in"
            r"|grab) (?:an? |the )?"
            r"(?P<x>aisle|window|middle|exit[- ]row|front-row|front row)(?: seats?)?\b"
            r"|\b(?P<x2>aisle|window) seats? for me\b"
        ),
        _seat,
    ),
    Cue(
        "favourite",
        pattern(
            r"\bmy (?:all-time |absolute |personal |very )?favou?rite (?P<c>[\w-]+(?: [\w-]+)?)"
            r" (?:is|has to be|would be|of all time is)"
        ),
        _favourite,
    ),
    Cue(
        "favourite-named",
        pattern(
            r"\b(?-i:(?P<t>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3})) (?:is|are) (?:definitely |still )?"
            r"my (?:all-time |absolute |personal )?favou?rites? (?P<c>[\w-]+)\b"
        ),
        _favourite_named,
    ),
    Cue(
        "dislikes",
        pattern(
            rf"\bI {ADV}(?P<v>hate|dislike|detest|loathe|cannot stand|can not stand|cannot bear"
            r"|do not like|do not enjoy|do not care for|am not a fan of|am not a big fan of"
            r"|am not into)(?: to)?\b"
        ),
        _dislikes,
    ),
    Cue(
        "likes",
        pattern(rf"\bI {ADV}(?:do )?(?P<v>love|like|enjoy|adore|prefer)(?: to)?\b"),
        _likes,
    ),
    Cue(
        "fan",
        pattern(
            rf"\bI am {ADV}(?:a |an )?(?:big |huge |massive |great |real |die-hard |lifelong )?"
            r"(?P<v>fan of|into|all about|obsessed with|passionate about|crazy about|keen on"
            r"|fond of|a sucker for)\b"
        ),
        _fan,
    ),
)
