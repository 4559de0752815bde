"""What a summary says of an entity offline: a short clause about it, never a sentence dump.

A person reading ``Tom (person): Maya's partner; allergic to peanuts; loves castles`` learns
who Tom is; ``Maya: Lisbon for sure, and maybe Porto (2 March 2026).`` under ``Porto`` teaches
nothing. So a detail is, in this order:

1. a relation: ``my partner Tom`` makes Tom ``Maya's partner``;
2. a predicate: the rest of the clause when the name is its subject (``Tom is allergic to
   peanuts`` -> ``allergic to peanuts``; ``Tom's birthday is on May 28th`` -> ``birthday is on
   May 28th``);
3. the clause a participant says the name in, when it says more than names (``booked surf
   lessons for Tom``) and is neither a question nor a list of names (``Lisbon 4, Ericeira 3,
   Coimbra 2``). The AI assistant's clauses count only as predicates (``Pena Palace opens at
   9:30``): what it says about a person is hearsay.

The AI assistant's acknowledgements and clauses about itself (``I'll remember…``), and
clauses made of names and filler, give no detail. Clauses are cut to :data:`MAX_DETAIL_WORDS` words.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from longtalk.summary.offline_entities import mentions
from longtalk.summary.offline_text import (
    Sentence,
    asks,
    clause_at,
    content_words,
    dated,
    normalize_spacing,
    resolve_pronouns,
)

__all__ = ["MAX_DETAIL_WORDS", "detail", "is_ai_assistant", "relation"]

MAX_DETAIL_WORDS = 12

_KIN = (
    r"(?:sister|brother|mother|father|mom|mum|dad|wife|husband|son|daughter|friend|best friend"
    r"|boss|colleague|partner|uncle|aunt|cousin|girlfriend|boyfriend|grandma|grandpa"
    r"|grandmother|grandfather|neighbou?r|fiancée?|roommate|kid|baby|dog|cat|puppy|kitten"
    r"|teacher|coach|doctor|manager|niece|nephew)"
)
_ADJECTIVE = r"(?:(?:little|older|younger|big|elder|new|old|oldest|youngest|best|dear) )?"
_LEADING = re.compile(r"^(?:(?:but|so|and|then|also|which|because|while|though|or)\b[\s,]*)+")
_COPULA = re.compile(r"^(?:is|are|was|were)\s+")
_VERB_AFTER = re.compile(
    r"^(?:'s\s|’s\s|(?:(?:really|also|still|just|always|never|often|usually|already|now)\s)?"
    r"(?:is|are|was|were|has|have|had|will|would|can|could|does|did|doesn't|didn't|isn't"
    r"|wasn't|won't|can't|[a-z]+(?<!s)s|[a-z]+ed)\b)"
)
_AI = frozenset("assistant ai bot system tool".split())
_SELF = re.compile(
    r"\b(?:I'll|I'd|I will|I would|I can|I could|I think|I remember|I'm|I am|me|my)\b", re.I
)
_VACUOUS = frozenset(
    """agree totally congrats congratulations wow awesome cool amazing glad nice sounds
    sound love happy hear talk talking chat catch bye cheers care appreciate must""".split()
)


def is_ai_assistant(speaker: str) -> bool:
    """An unnamed assistant (``Assistant``, ``AI``...), as opposed to a named participant."""
    return speaker.casefold() in _AI


def relation(sentence: Sentence, name: str) -> str:
    """``Maya's partner`` from Maya's ``my partner Tom`` (``""`` when no relation is said)."""
    if not sentence.speaker or is_ai_assistant(sentence.speaker):
        return ""
    text = normalize_spacing(sentence.text)
    named = re.escape(name)
    before = re.search(rf"\b(?:my|our) {_ADJECTIVE}({_KIN}),? {named}\b", text, re.I)
    after = re.search(rf"\b{named},? (?:is |was )?(?:my|our) {_ADJECTIVE}({_KIN})\b", text, re.I)
    found = before or after
    return f"{sentence.speaker}'s {found.group(1).lower()}" if found else ""


def detail(sentence: Sentence, name: str, people: Collection[str] = ()) -> str:
    """A short clause about ``name`` from ``sentence``, dated; ``""`` when it says nothing."""
    kin = relation(sentence, name)
    if kin or sentence.echo:
        return kin
    text = normalize_spacing(sentence.text)
    start = text.find(name)
    if start < 0:
        return ""
    if called(text, name):
        return ""  # "Wow, Mel, ..." speaks to Mel; it says nothing of her
    clause = clause_at(text, start, start + len(name))
    if is_ai_assistant(sentence.speaker) and _SELF.search(clause):
        return ""  # the assistant speaking of itself
    told = _LEADING.sub(
        "", resolve_pronouns(Sentence(clause, sentence.speaker, sentence.addressee))
    )
    said = _predicate(told, name)
    named = [m.name for m in mentions(clause, people) if m.kind not in ("date", "amount")]
    if not said:
        if is_ai_assistant(sentence.speaker) or asks(text, clause) or len(named) > 2:
            return ""  # hearsay, a question, or a list of names is not about one name
        said = told
    said = _cut(said)
    names = {w.casefold() for n in (name, *named, *people) for w in n.split()}
    rest = [
        w
        for w in content_words(said)
        if w not in names and w not in _VACUOUS and not any(c.isdigit() for c in w)
    ]
    if len(rest) < 2 or said.casefold() == name.casefold():
        return ""
    return dated(said, sentence.when)


def called(text: str, name: str) -> bool:
    """True when ``name`` stands in ``text`` only as a vocative: ``Thanks, Mel!``, ``Mel, look``.

    A name opening the sentence or following a comma, and followed by a comma, an end mark
    or the end, is the listener being spoken to.
    """
    named = re.escape(name)
    spoken_to = re.compile(rf"(?:^|,\s*){named}\s*(?:[,!?.;]|$)")
    elsewhere = re.sub(spoken_to, " ", text)
    return bool(spoken_to.search(text)) and not re.search(rf"\b{named}\b", elsewhere)


def _predicate(told: str, name: str) -> str:
    """What the clause says of ``name`` when ``name`` is its subject, without the name."""
    at = told.find(name)
    if at < 0 or len(told[:at].split()) > 3:
        return ""
    rest = told[at + len(name) :].lstrip()
    if not _VERB_AFTER.match(rest):
        return ""
    rest = re.sub(r"^(?:'s|’s)\s", "", rest)
    return _COPULA.sub("", rest).strip()


def _cut(text: str) -> str:
    words = text.split()
    if len(words) <= MAX_DETAIL_WORDS:
        return text.rstrip(" ,;:")
    return " ".join(words[:MAX_DETAIL_WORDS]).rstrip(" ,;:") + "…"
