"""Someone's relation named in passing: ``my wife Rosa``, ``our corgi, Biscuit``.

People name their relations by apposition far more often than they state the name
(``my wife Hana just started a new job`` rather than ``my wife is called Hana``). The
apposition says what the relation is called whatever the clause around it says, so it is a
claim of its own: the owner's relation's name.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from longtalk.language.nlp import entity_type, owner_of
from longtalk.language.speakers import (
    Participants,
    Referent,
    a_participant,
    name_of,
    names_the_noun,
    noun_key,
    refer,
)

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["NAMED", "Naming", "namings"]

NAMED = "name"
"""The predicate of a name claim: a relation's (``daughter:name``, ``my daughter Sara``) or
the holder's own (``I'm Maya``)."""


@dataclass(frozen=True, slots=True)
class Naming:
    """``owner``'s ``relation`` is called ``name``; ``phrase`` the words that say so."""

    owner: Referent
    relation: str
    name: str
    phrase: tuple[Token, ...]
    described: str


def namings(sentence: Span, people: Participants) -> Iterator[Naming]:
    """Every owned noun of ``sentence`` named by a proper name set beside it."""
    for token in sentence:
        noun = _named_noun(token)
        if noun is None:
            continue
        owner_token = owner_of(noun)
        owner = refer(owner_token, people) if owner_token is not None else None
        if owner is None or owner.is_assistant or owner.relation:
            continue
        if a_participant(token, people):  # one spoken to: "your kids, John"
            continue
        phrase = _phrase(noun, token)
        described = [t for t in noun.subtree if t.i < noun.i and t.dep_ in ("amod", "compound")]
        yield Naming(
            owner,
            noun_key(noun),
            name_of(token),
            phrase,
            " ".join([*(t.text for t in described), noun.text]),
        )


def _named_noun(token: Token) -> Token | None:
    """The noun a proper name is set beside: ``my wife, Rosa`` or ``my corgi Waffles``.

    The parser hangs the name under the noun (apposition) or the noun under the name (a
    compound: ``my corgi`` modifies ``Waffles``), or leaves the two apart, written side by
    side (:func:`_noun_before`); either way the owner is the noun's.
    """
    if token.pos_ != "PROPN":
        return None
    if token.dep_ == "appos":
        if not names_the_noun(token):
            return None  # "my girlfriend, Toby and I": a list of people
        if token.head.pos_ == "NOUN":
            return token.head
    compounded = next(
        (
            c
            for c in token.children
            if c.dep_ == "compound" and c.pos_ == "NOUN" and owner_of(c) is not None
        ),
        None,
    )
    return compounded or _noun_before(token)


def _noun_before(name: Token) -> Token | None:
    """The owned noun a name is written right after, however the parser hung the two.

    In ``my cousin Rafa plays bass`` or ``at my daughter Mia's swimming lesson`` the small
    parser often makes the name the clause's subject or an owner and leaves the noun
    apart; written side by side, with no comma, the name is still the noun's. Not
    ``I told my mum Jake was coming``: a noun told or given something, and a name that
    starts a clause of its own.
    """
    if name.dep_ == "compound" and name.head.pos_ == "PROPN":
        return None  # a part of a longer name, read at its last word
    if not (name.is_alpha and name.text[:1].isupper()):
        return None
    parts = [t.i for t in name.lefts if t.dep_ == "compound" and t.pos_ == "PROPN"]
    first = min([name.i, *parts])
    if first == 0:
        return None
    noun = name.doc[first - 1]
    if noun.pos_ != "NOUN" or owner_of(noun) is None:
        return None
    told = noun.dep_ in ("dobj", "dative") and name.dep_ in ("nsubj", "nsubjpass")
    # last: the entity recogniser runs on demand, only for a doc that asks it
    return None if told or entity_type(name) in _NOT_NAMES else noun


_NOT_NAMES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT"})
"""Capitalised words that name no one: ``my shift Monday``."""


def _phrase(noun: Token, name: Token) -> tuple[Token, ...]:
    """The words that name the relation: the noun with its owner, then the name."""
    start = min(t.i for t in noun.subtree if t.i <= noun.i)
    return tuple(name.doc[start : name.i + 1])
