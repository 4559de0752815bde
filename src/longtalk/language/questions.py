"""Whom a question asks about when it names someone only as the owner of a relation.

"What must Maya's partner keep away from?" names Maya, but asks about her partner: the
answer is a fact Maya told of someone else ("Tom is allergic to peanuts"). "What should
Maya's friend Sam never eat?" asks about Sam, whom it names. The parse finds the owner (a
possessive) and the relation (a noun naming a person, :data:`PEOPLE_NOUNS`); the name said
right after the relation, if any, is the person asked about.
"""

from __future__ import annotations

from dataclasses import dataclass

from longtalk.language.nlp import owner_of, parse
from longtalk.language.relations import PEOPLE_NOUNS

__all__ = ["RelationAsked", "relations_asked"]


@dataclass(frozen=True, slots=True)
class RelationAsked:
    """``owner``'s ``relation`` (a lemma), called ``name`` when the question says it, or ``""``."""

    owner: str
    relation: str
    name: str


def relations_asked(question: str) -> tuple[RelationAsked, ...]:
    """The people ``question`` asks about as someone's relation, in the order it names them."""
    doc = parse(question)
    found = []
    for relation in doc:
        owner = owner_of(relation)
        if owner is None or relation.lemma_.lower() not in PEOPLE_NOUNS:
            continue
        after = doc[relation.i + 1] if relation.i + 1 < len(doc) else None
        name = after.text if after is not None and after.pos_ == "PROPN" else ""
        found.append(RelationAsked(owner.text, relation.lemma_.lower(), name))
    return tuple(found)
