"""Who a word refers to: "I" is the speaker, "you" the other participant, "we" the speaker's side.

A conversation has a speaker and, usually, one other participant (a person's name, or an
assistant). Pronouns are resolved against them; a proper name stands for that person; a
noun owned by a pronoun (``my sister``) is the owner's relation. Third-person pronouns
(``he``, ``she``, ``they``) are not resolved here: a word alone could be anyone (a
statement resolves one against the people its message named before it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from longtalk.language.nlp import entity_type, owner_of

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = [
    "ASSISTANT",
    "CHAT_EXCLAMATIONS",
    "FIRST",
    "GROUP",
    "SECOND",
    "Participants",
    "Referent",
    "names_the_noun",
    "owned",
    "refer",
]

ASSISTANT = "assistant"
"""The holder name of an AI assistant (the listener of an unnamed assistant role)."""

CHAT_EXCLAMATIONS = frozenset(
    "lol lmao lmfao rofl haha hahaha omg jk ugh tbh idk ngl btw smh ikr".split()
)
"""Chat's exclamations, which the small parser, trained on edited text, takes for names."""

FIRST = frozenset({"i", "me", "my", "mine", "myself"})
GROUP = frozenset({"we", "us", "our", "ours", "ourselves", "'s"})
SECOND = frozenset({"you", "your", "yours", "yourself", "yourselves", "u", "ya"})
_THIRD = frozenset({"he", "him", "his", "she", "her", "hers", "they", "them", "their", "it"})
_AI_WORDS = frozenset({"assistant", "ai", "bot", "chatbot", "model", "gpt", "chatgpt"})


@dataclass(frozen=True, slots=True)
class Participants:
    """The speaker of a message and whom they speak to (``assistant`` for an AI)."""

    speaker: str
    listener: str = ASSISTANT

    @property
    def to_assistant(self) -> bool:
        """True when the listener is an AI assistant, not a person."""
        return self.listener.casefold() in _AI_WORDS


@dataclass(frozen=True, slots=True)
class Referent:
    """What a subject token stands for.

    ``holder`` the person (or ``assistant``); ``relation`` the owned noun when the subject
    is someone's relation or thing (``sister`` in ``my sister``); ``group`` for "we".
    """

    holder: str
    relation: str = ""
    group: bool = False

    @property
    def is_assistant(self) -> bool:
        """True when the referent is the AI assistant."""
        return self.holder == ASSISTANT and not self.relation


def refer(token: Token, people: Participants) -> Referent | None:
    """Whom ``token`` (a subject or owner) stands for; None when it cannot be told."""
    word = token.lower_
    if word in FIRST:
        return Referent(people.speaker)
    if word in GROUP and token.pos_ == "PRON":
        return Referent(people.speaker, group=True)
    if word in SECOND:
        return Referent(people.listener)
    if word in _THIRD or token.pos_ == "PRON":
        return None
    if word in _AI_WORDS and owner_of(token) is None:
        # "my assistant at work" is a person, read below; "a Tesla Model 3" a product
        if not _product(token):
            return Referent(ASSISTANT)
    if word == "user" and owner_of(token) is None:
        return Referent("user")  # "the user prefers...", as a summary writes
    if token.pos_ == "PROPN":
        no_one = token.tag_ == "NNPS" or entity_type(token) in _NO_ONE
        return None if no_one else Referent(name_of(token))
    return owned(token, people)


_NO_ONE = frozenset(
    {"GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "PRODUCT", "LANGUAGE", "LAW"}
)
"""Entities that are no one (places, peoples, titles, events, products): ``Chicago sounds
great`` and ``"The Santa Clause" is a classic`` say nothing a person holds. Nor does a name
in the plural (``German Shepherds are awesome``, ``the Lakers``): a breed, a team, a kind."""


def _product(token: Token) -> bool:
    """A product's name that holds an AI word: ``a Tesla Model 3``, ``the Ford Model T``."""
    return (
        any(c.dep_ in ("compound", "nummod") and c.lower_ not in _AI_WORDS for c in token.children)
        and token.pos_ == "PROPN"
    )


def a_participant(name: Token, people: Participants) -> bool:
    """True when the proper name ``name`` is the speaker's or the listener's."""
    return name_of(name).casefold() in (people.speaker.casefold(), people.listener.casefold())


def name_of(token: Token) -> str:
    """A proper name with its compound parts (``Ana Lima``).

    A capitalised word that opens the sentence is only part of the name if the tagger still
    reads it as a name when it is written in lower case: ``Sadly Kiwi passed away`` is
    about Kiwi.
    """
    word = _hyphenated(token)
    parts = [
        t
        for t in token.lefts
        if t.dep_ == "compound" and t.pos_ == "PROPN" and not word.start <= t.i < word.end
    ]
    if parts and parts[0].i == parts[0].sent.start and not _still_a_name(parts[0]):
        parts = parts[1:]
    return " ".join([*(t.text for t in parts), word.text])


def _hyphenated(token: Token) -> Span:
    """The word as written when hyphens join it to others: ``Spider-Man``, ``Jean-Luc``.

    The tokenizer splits a hyphenated name in three, and the parser may hang its halves
    apart; written with no space, it is one word.
    """
    doc, start, end = token.doc, token.i, token.i
    while start >= 2 and _hyphen_between(doc[start - 1]) and doc[start - 2].pos_ == "PROPN":
        start -= 2
    while end + 2 < len(doc) and _hyphen_between(doc[end + 1]) and doc[end + 2].pos_ == "PROPN":
        end += 2
    return doc[start : end + 1]


def _hyphen_between(hyphen: Token) -> bool:
    """A hyphen written with no space on either side."""
    doc = hyphen.doc
    return hyphen.text == "-" and not doc[hyphen.i - 1].whitespace_ and not hyphen.whitespace_


def _still_a_name(first: Token) -> bool:
    from longtalk.language.nlp import parse

    sentence = first.sent.text
    lowered = parse(sentence[:1].lower() + sentence[1:])
    return len(lowered) > 0 and lowered[0].pos_ in ("PROPN", "NOUN")


def owned(token: Token, people: Participants) -> Referent | None:
    """``my sister``, ``Ana's budget``, ``a friend of mine``: the owner and the owned noun."""
    owner = owner_of(token) or _of_whose(token)
    if owner is None or token.pos_ not in ("NOUN", "PROPN"):
        return None
    named = [t for t in token.children if names_the_noun(t)]
    if named:  # "my sister, Lena,": Lena herself
        return Referent(name_of(named[0]))
    whose = refer(owner, people)
    if whose is None or len(whose.relation.split()) > 1:
        return None
    owned = f"{whose.relation} {noun_key(token)}".strip()  # "my dog's name": "dog name"
    return Referent(whose.holder, relation=owned, group=whose.group)


def _of_whose(token: Token) -> Token | None:
    """``mine`` in ``a favorite of mine``: an owner said after the noun, as ``my favorite``."""
    for preposition in token.children:
        if preposition.dep_ == "prep" and preposition.lower_ == "of":
            for owner in preposition.children:
                if owner.dep_ == "pobj" and owner.lower_ in _OWNERS_AFTER:
                    return owner
    return None


_OWNERS_AFTER = frozenset({"mine", "yours", "ours", "his", "hers", "theirs"})


def names_the_noun(name: Token) -> bool:
    """``name`` is a proper name set beside its noun as that noun's name (``my wife, Rosa``).

    Not when the name is coordinated (``my girlfriend, Toby and I``): the parse then reads a
    list of people, and whether the noun is Toby the words do not settle.
    """
    return (
        name.dep_ == "appos"
        and name.pos_ == "PROPN"
        and not any(c.dep_ == "conj" for c in name.children)
    )


def noun_key(token: Token) -> str:
    """A noun's key: its compounds and lemma, lower case (``car budget``)."""
    parts = [t.lemma_.lower() for t in token.lefts if t.dep_ == "compound"]
    return " ".join([*parts, token.lemma_.lower()])
