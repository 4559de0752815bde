"""Cues of plans: decisions, dated commitments and open questions.

A decision and the open question it settles share the subject ``decision:<topic>`` (the
first content word that is not a common verb), so the decision supersedes the question. A
commitment or a booking counts only with a date (``by Friday``, ``next month``, ``on May
26th``): the day it was said is shown with it. A plan about ``it`` or ``that`` says nothing
out of its turn and is left out.
"""

from __future__ import annotations

import re

from longtalk.facts.cue import (
    DATE,
    MONTH,
    NOT_OBJECTS,
    TRANSIENT,
    VAGUE,
    Cue,
    Found,
    found,
    pattern,
)
from longtalk.facts.phrases import head, slot, third_person_slot

__all__ = ["PLAN_CUES", "topic"]


_NOT_CHOICES = frozenset("flow it that this one option idea plan thing same".split())


_DATED = re.compile(
    r"\b(?:(?:on|by|before|until|next|this|every) (?:monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday|weekend|week|month|year|summer|winter|spring|fall|autumn)"
    rf"|tomorrow|(?:in|by|before|on|until|from) {MONTH}\b|on {DATE}|in \d+ (?:days|weeks|months)"
    r"|(?:by|before|at) \d{1,2}(?::\d{2})? ?(?:am|pm)|(?:by|before) the end of)",
    re.IGNORECASE,
)


_IDLE_PLANS = re.compile(
    r"^(?:let (?:you|ya) know|talk|see|chat|catch up|check (?:it|that|them) out|keep you"
    r"|try|think about|have to go|go now|be there|text you|call you|get back"
    r"|message you|share|show you|tell you|do my best|be fine|miss|keep (?:that|it) in mind)",
    re.IGNORECASE,
)


_SUBJECT_SKIP = frozenset(
    """go get take make do have keep start stop try give put buy sell move find look work
    going getting taking making doing having keeping starting trying giving putting buying
    selling moving finding looking working back more new first next last again send call
    whether prefer prefers like likes love loves want wants chose chosen decided decide
    pay visit finish book meet see bring write read learn join watch help plan apply sign
    drop pick fix clean build paint cook bake run walk drive fly travel ask tell show
    return renew cancel submit order""".split()
)


def topic(phrase: str) -> str:
    """The key word of a plan: its first content word that is not a common verb."""
    words = [w.lower() for w in re.findall(r"[\w'-]+", phrase)]
    for word in words:
        if word not in _SUBJECT_SKIP and head(word):
            return head(word)
    return head(phrase)


def _decided(m: re.Match[str], s: str) -> Found | None:
    what = slot(s, m.end(), words=14, kind="long")
    if not what or TRANSIENT.search(what) or len(what.split()) < 2 or VAGUE.search(what):
        return None
    who = "{h}" if m.group("s").lower() == "i" else "{h} and family"
    link = m.group("l") or "to "
    text = f"{who} decided {link.lower()}{third_person_slot(what)}."
    return found("decision", f"decision:{topic(what)}", what, text, m)


def _chose(m: re.Match[str], s: str) -> Found | None:
    what = slot(s, m.end(), words=8)
    if not what or NOT_OBJECTS.match(what) or len(what.split()) < 2 or TRANSIENT.search(what):
        return None
    if head(what) in _NOT_CHOICES or VAGUE.search(what):
        return None
    who = "{h}" if m.group("s").lower() == "i" else "{h} and family"
    text = f"{who} chose {third_person_slot(what)}."
    return found("decision", f"decision:{topic(what)}", what, text, m)


def _commitment(m: re.Match[str], s: str) -> Found | None:
    what = slot(s, m.end(), words=14, kind="long")
    if not what or not _DATED.search(what) or _IDLE_PLANS.match(what) or VAGUE.search(what):
        return None
    if re.search(r"\b(?:tonight|today|this (?:morning|afternoon|evening))\b", what, re.I):
        return None
    said = " ".join(m.group("v").lower().split())
    verb = {
        "will": "will",
        "am going to": "is going to",
        "are going to": "are going to",
        "promised to": "promised to",
        "have promised to": "promised to",
        "have to": "has to",
        "need to": "needs to",
        "must": "must",
        "plan to": "plans to",
        "am planning to": "is planning to",
        "intend to": "intends to",
    }.get(said, said)
    who = "{h}" if m.group("s").lower() == "i" else "{h} and family"
    text = f"{who} {verb} {third_person_slot(what)}."
    return found("commitment", f"commitment:{topic(what)}", what, text, m)


def _booked(m: re.Match[str], s: str) -> Found | None:
    what = slot(s, m.end(), words=14, kind="long")
    if not what or not _DATED.search(what) or VAGUE.search(what):
        return None
    who = "{h}" if (m.group("s") or "I").lower() == "i" else "{h} and family"
    text = f"{who} booked {third_person_slot(what)}."
    return found("commitment", f"commitment:{topic(what)}", what, text, m)


def _undecided(m: re.Match[str], s: str) -> Found | None:
    what = slot(s, m.end(), words=12, kind="long")
    if not what or len(what.split()) < 3 or re.match(r"(?:you|your)\b", what, re.I):
        return None
    if re.match(r"to (?:say|do|think|expect|write|feel)\b", what, re.I):
        return None
    link = m.group("w").lower()
    link = "whether" if link == "if" else link
    text = f"{{h}} is unsure {link} {third_person_slot(what)}."
    return found("question", f"decision:{topic(what)}", what, text, m)


def _should_i(m: re.Match[str], s: str) -> Found | None:
    what = m.group("x").strip()
    if len(what.split()) < 3:
        return None
    text = f"{{h}} has not decided whether to {third_person_slot(what)}."
    return found("question", f"decision:{topic(what)}", what, text, m)


PLAN_CUES: tuple[Cue, ...] = (
    Cue(
        "decided",
        pattern(
            r"\b(?P<s>I|we) (?:have |had |finally |just |recently |already |officially )*"
            r"(?:decided|made up (?:my|our) minds?|made the decision|resolved|chose(?= to))"
            r" (?P<l>to |that |on |against )?"
        ),
        _decided,
    ),
    Cue(
        "chose",
        pattern(
            r"\b(?P<s>I|we) (?:have |finally |just )*(?:chose|picked|opted for|settled on"
            r"|went with|are going with|am going with|have chosen|have picked) "
        ),
        _chose,
    ),
    Cue(
        "undecided",
        pattern(
            r"\bI (?:am (?:still )?(?:not sure|unsure|undecided|torn|debating|trying to decide"
            r"|trying to figure out|wondering)|(?:still )?have not (?:yet )?(?:decided"
            r"|made up my mind|figured out|worked out)|cannot decide|can not decide)"
            r" (?P<w>whether|if|between|which|where|what to|when to|how to)\b"
        ),
        _undecided,
    ),
    Cue(
        "should-i",
        pattern(
            r"^(?:so |hmm,? |and |but )?should I (?P<x>(?:move|take|accept|buy|sell|quit|switch"
            r"|go back|study|marry|adopt|rent|change|leave|start|stay|keep)\b[^?]{3,80})\?"
        ),
        _should_i,
    ),
    Cue(
        "booked",
        pattern(r"^(?:(?P<s>I|we) )?(?:have |just |finally |already |also )*booked:? "),
        _booked,
    ),
    Cue(
        "commitment",
        pattern(
            r"\b(?P<s>I|we) (?P<v>will|am going to|are going to|promised to|have promised to"
            r"|have to|need to|must|plan to|am planning to|intend to) "
        ),
        _commitment,
    ),
)
