"""What a chat's facts can show, and whose relations they are.

A retraction is kept (it is the claim's latest statement, and its history) but never
shown. A fact a speaker stated of someone else is that person's (``Tom is allergic to
peanuts``: Tom's, ``said_by`` the speaker); a relation's fact is its owner's, filed under
the relation (``sister:home``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from longtalk.facts.durable_fact import DurableFact

__all__ = ["related_to", "resolve"]


def resolve(facts: Sequence[DurableFact], *, speakers: Iterable[str] = ()) -> list[DurableFact]:
    """``facts`` as a chat shows them: every current claim, retractions left out.

    A tentative statement that has not taken an earlier claim's place is left out too.

    ``speakers`` is accepted for callers that name the messages' speakers; every stated
    holder is shown, since the parse tells a person's name from a word.
    """
    del speakers
    return [fact for fact in facts if not (fact.retracts or fact.tentative)]


def related_to(facts: Iterable[DurableFact], holders: Iterable[str]) -> set[str]:
    """Whom (case-folded) ``holders`` stated facts about: the people they told of."""
    wanted = {holder.casefold() for holder in holders}
    return {
        fact.holder.casefold()
        for fact in facts
        if fact.hearsay and fact.said_by.casefold() in wanted
    }
