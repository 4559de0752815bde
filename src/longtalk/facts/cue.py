"""The parts every cue is built from: what a cue finds, and the shared pattern fragments.

A :class:`Cue` pairs a pattern over a spoken sentence (see :func:`phrases.spoken`) with a
builder that cuts the slot the cue points at and writes the fact: its kind, its subject key
(what a later statement supersedes), its value (what a repetition shares) and one short
third-person sentence, ``{h}`` standing for the holder. A builder returns None when the slot
is empty, too long, or not about the speaker (``I love that``): precision first, since a
fact is shown in every context.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from longtalk.facts.model import FactKind
from longtalk.facts.phrases import value_of

__all__ = [
    "ADV",
    "DATE",
    "MONTH",
    "NAME",
    "NOT_NAMES",
    "NOT_OBJECTS",
    "OCCUPATIONS",
    "PLACE",
    "TRANSIENT",
    "VAGUE",
    "Builder",
    "Cue",
    "Found",
    "found",
    "name_ok",
    "pattern",
    "x_group",
]


@dataclass(frozen=True, slots=True)
class Found:
    """A fact a cue found in one sentence, before provenance is attached.

    ``holder`` is whose it is when not the speaker's (``Tom`` in ``Tom is allergic to
    peanuts``); ``{h}`` in ``text`` always stands for the speaker.
    """

    kind: FactKind
    subject: str
    value: str
    text: str
    span: tuple[int, int]
    holder: str | None = None


Builder = Callable[[re.Match[str], str], "Found | None"]


@dataclass(frozen=True, slots=True)
class Cue:
    """A pattern and the builder of its fact (``{h}`` in texts stands for the holder)."""

    name: str
    pattern: re.Pattern[str]
    build: Builder


def pattern(source: str) -> re.Pattern[str]:
    """A cue pattern: case-insensitive (names and places switch that off for themselves)."""
    return re.compile(source, re.IGNORECASE)


ADV = (
    r"(?:(?:really|very|so|quite|severely|super|extremely|also|still|now|always|actually"
    r"|totally|absolutely|just|deathly|pretty|highly|seriously|incredibly|truly|mildly"
    r"|kind of|sort of|a bit|a little|definitely|honestly|basically|mostly|fully|strictly"
    r"|mainly|officially|completely|100%|usually|generally|normally|typically) )*"
)


MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)"
)


DAY_OF_MONTH = r"\d{1,2}(?:st|nd|rd|th)?"


DATE = (
    rf"(?:(?:the )?{DAY_OF_MONTH}(?: of)? {MONTH}|{MONTH} (?:the )?{DAY_OF_MONTH})"
    r"(?:,? \d{4})?"
)


NAME = r"(?-i:(?P<n>[A-Z][a-zà-ÿ'-]+(?: [A-Z][a-zà-ÿ'-]+)?))"


PLACE = (
    r"(?-i:(?P<x>(?:the )?[A-Z][\w'-]+(?:[ -](?:de |da |del |of |on |upon |la )?[A-Z][\w'-]+)"
    r"{0,3}))"
)


OCCUPATIONS = (
    r"(?:nurse|doctor|physician|surgeon|dentist|teacher|professor|lecturer|engineer|developer"
    r"|programmer|designer|architect|lawyer|attorney|accountant|pharmacist|paramedic|firefighter"
    r"|police officer|cop|chef|cook|baker|waiter|waitress|barista|bartender|cashier|mechanic"
    r"|electrician|plumber|carpenter|farmer|pilot|flight attendant|journalist|writer|author"
    r"|editor|photographer|artist|painter|musician|singer|dancer|actor|actress|student"
    r"|researcher|scientist|biologist|chemist|physicist|psychologist|therapist|counselor"
    r"|counsellor|social worker|librarian|veterinarian|vet|consultant|manager|analyst"
    r"|entrepreneur|freelancer|salesperson|realtor|real estate agent|translator|tutor"
    r"|coach|trainer|personal trainer|soldier|veteran|officer|midwife|caregiver|carer"
    r"|data scientist|software engineer|web developer|graphic designer|project manager"
    r"|stay-at-home (?:mom|dad|parent)|homemaker|retiree|intern|apprentice|receptionist"
    r"|secretary|clerk|driver|truck driver|streamer|youtuber|gamer|filmmaker|screenwriter)"
)


NOT_NAMES = frozenset(
    """I The A An And But So My Our We You He She It They This That Monday Tuesday Wednesday
    Thursday Friday Saturday Sunday January February March April May June July August
    September October November December Christmas Easter God Mom Dad Lol Haha Yes No Oh
    Well Hey Hi Thanks Also Just Really Too Now Then Today Tomorrow""".split()
)


NOT_OBJECTS = re.compile(
    r"^(?:it|its|that|this|these|those|you|your|yours|him|her|them|his|their|our|my|me|us"
    r"|the way|the idea|the fact|how|what|when|where|why|who|which|whatever|hearing|seeing"
    r"|reading about|to hear|to see|to know|being|so|too|a lot|the sound|the feeling|having you"
    r"|talking|chatting|that you|what you|everything|anything|something|nothing|one|ones"
    r"|all of|each|both|some of|the thought|the vibe|the energy|the pic|the photo|the picture"
    r"|the pics|the photos|the one|a good|to help|helping|sharing|to share|doing that|is|are"
    r"|was|were|be|been|makes|made|has|have|had|gets|got|does|did|can|will|would|they|he|she"
    r"|up|out|off|on|to)\b",
    re.IGNORECASE,
)


VAGUE = re.compile(
    r"\b(?:this|that|these|those|it|you|your|them|him|her|they|he|she|here|there)\b",
    re.IGNORECASE,
)


TRANSIENT = re.compile(
    r"\b(?:today|tonight|yesterday|this morning|this afternoon|this evening|last night"
    r"|right now|at the moment|this time|earlier)\b",
    re.IGNORECASE,
)


def x_group(m: re.Match[str]) -> str:
    """Group ``x``, or ``x2`` where a cue has a second spelling."""
    groups = m.groupdict()
    return groups.get("x") or groups.get("x2") or ""


def name_ok(name: str | None) -> bool:
    """True for a capitalised word that is a name, not ``Monday`` or ``The``."""
    if not name:
        return False
    return all(part not in NOT_NAMES for part in name.split())


def found(kind: FactKind, subject: str, value: str, text: str, m: re.Match[str]) -> Found:
    """A found fact, its value normalised, its span the cue's match."""
    return Found(kind, subject, value_of(value), text, (m.start(), m.end()))
