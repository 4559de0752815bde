"""Which people a chat knows, and what its facts about them can show.

A speaker's statement about someone else (``Tom is allergic to peanuts``) is kept as said,
but shown only when the chat knows that person: a relation names them (``Maya's partner is
called Tom``; a named pet counts), they stated facts of their own, or they speak in the
messages read. A capitalised word before ``is vegan`` may be a restaurant; a person the
chat knows is not.

"We" is told of the speaker and family until the chat knows the speaker's partner by name:
then what a household shares (a diet, an allergy, a home, a budget) is told of the two of
them (``Maya and Tom are vegetarian``). Both are decided when facts are read, from all of
the chat's facts, since a message appended alone does not know who came before it; and a
relation another fact already names (``Ana's sister Lena moved to Rotterdam``) is not shown
twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from longtalk.facts.model import DurableFact
from longtalk.facts.phrases import holder_name

__all__ = ["PARTNERS", "known_people", "partner_of", "related_to", "resolve"]

PARTNERS = frozenset(
    "partner husband wife boyfriend girlfriend fiance fiancé fiancee fiancée spouse".split()
)
"""Relations whose "we" is the speaker and that person."""

_HOUSEHOLD_KINDS = frozenset({"constraint", "identity", "possession"})
_CALLED = re.compile(r"\bis called (?P<n>.+?)\.?$")


def resolve(facts: Sequence[DurableFact], *, speakers: Iterable[str] = ()) -> list[DurableFact]:
    """``facts`` as a chat can show them: about people it knows, "we" named where it can be.

    ``speakers`` are people known besides those the facts name (the messages' speakers).
    """
    known = known_people(facts) | {name.casefold() for name in speakers}
    shown = [
        _with_partner(fact, facts)
        for fact in facts
        if not (fact.hearsay and fact.holder.casefold() not in known)
    ]
    return [fact for fact in shown if not _said_again(fact, shown)]


def known_people(facts: Iterable[DurableFact]) -> set[str]:
    """Who ``facts`` know (case-folded): those a relation names, pets named, who spoke."""
    facts = list(facts)
    named = {_named(fact) for fact in facts if _names(fact) or _pet(fact)}
    speaking = {fact.holder.casefold() for fact in facts if not fact.hearsay}
    return named | speaking


def related_to(facts: Iterable[DurableFact], holders: Iterable[str]) -> set[str]:
    """Who (case-folded) ``holders``' relations and pets name: their family, friends, pets."""
    wanted = {holder.casefold() for holder in holders}
    return {
        _named(fact)
        for fact in facts
        if (_names(fact) or _pet(fact)) and fact.holder.casefold() in wanted
    }


def partner_of(holder: str, facts: Iterable[DurableFact]) -> str | None:
    """The name of ``holder``'s partner the facts know (the latest said), if any."""
    partners = [
        fact
        for fact in facts
        if _names(fact)
        and fact.holder.casefold() == holder.casefold()
        and fact.value.rpartition(" ")[2] in PARTNERS
    ]
    if not partners:
        return None
    latest = max(partners, key=lambda f: f.last_sequence)
    called = _CALLED.search(latest.text)
    name = _named(latest)
    return called.group("n") if called and called.group("n").casefold() == name else name.title()


def _names(fact: DurableFact) -> bool:
    """A relation naming a person (``person:tom``)."""
    return fact.kind == "relation" and fact.subject.casefold().startswith("person:")


def _pet(fact: DurableFact) -> bool:
    """A pet's name (``pet:biscuit``)."""
    return fact.kind == "possession" and fact.subject.casefold().startswith("pet:")


def _named(fact: DurableFact) -> str:
    return fact.subject.casefold().partition(":")[2]


def _said_again(fact: DurableFact, shown: Sequence[DurableFact]) -> bool:
    """True for a relation another shown fact already names.

    ``Ana's sister is called Lena`` beside ``Ana's sister Lena moved to Rotterdam``.
    """
    if not _names(fact):
        return False
    name = _named(fact)
    naming = f"{holder_name(fact.holder)}'s {fact.value} {name}".casefold()
    return any(
        other.holder.casefold() == name and naming in other.text.casefold() for other in shown
    )


def _with_partner(fact: DurableFact, facts: Sequence[DurableFact]) -> DurableFact:
    """``Maya and family are vegetarian`` as ``Maya and Tom are…`` once Tom is her partner."""
    family = f"{holder_name(fact.holder)} and family"
    if fact.kind not in _HOUSEHOLD_KINDS or not fact.text.startswith(family):
        return fact
    partner = partner_of(fact.holder, facts)
    if partner is None:
        return fact
    text = f"{holder_name(fact.holder)} and {partner}{fact.text[len(family) :]}"
    return replace(fact, text=text)
