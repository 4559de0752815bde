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

__all__ = ["Naming", "namings"]


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
        owner_token = next((c for c in noun.children if c.dep_ == "poss"), None)
        owner = refer(owner_token, people) if owner_token is not None else None
        if owner is None or owner.is_assistant or owner.relation:
            continue
        if a_participant(token, people):  # one spoken to: "your kids, John"
            continue
        words = noun.subtree if token.head == noun else token.subtree
        phrase = tuple(t for t in words if not (t.is_punct and t.i > token.i) and t.i <= token.i)
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
    compound: ``my corgi`` modifies ``Waffles``); either way the owner is the noun's.
    """
    if token.pos_ != "PROPN":
        return None
    if token.dep_ == "appos":
        if not names_the_noun(token):
            return None  # "my girlfriend, Toby and I": a list of people
        if token.head.pos_ == "NOUN":
            return token.head
    return next(
        (
            c
            for c in token.children
            if c.dep_ == "compound"
            and c.pos_ == "NOUN"
            and any(g.dep_ == "poss" for g in c.children)
        ),
        None,
    )
