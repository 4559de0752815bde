"""Taking back what one said, by naming its topic: ``forget the marathon thing``.

People withdraw an earlier statement without repeating it: ``Forget what I said about my
sister``, ``Scratch the marathon thing``, ``I was wrong about the gluten thing``, ``I take
back what I said about Porto``. The clause names a topic, not a claim; what it withdraws
is the speaker's latest claim about that topic (:mod:`longtalk.facts.merge` finds it by
the words they share).

The verbs of withdrawing are a closed class of English, read from the parse: the
imperative ``forget``/``scratch``/``ignore``/``disregard`` (its object, or what follows
``about``), ``take back`` with its object, and ``wrong about`` said of oneself. The small
parser sometimes tags a sentence-initial ``Scratch`` as a noun; at the start of a sentence
with no subject of its own it is read as the verb.

Leaving ends a claim instead of withdrawing it: ``I left accounting``, ``we left Bristol``
say that what held (``I work as an accountant``, ``I live in Bristol``) held until now. The
topic is what was left; only a claim that names it ends, so ``I left my phone at home``
ends nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from longtalk.language.modality import imperative, negated
from longtalk.language.speakers import FIRST

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["ended_topic", "withdrawn_topic"]

_WITHDRAW = frozenset({"forget", "scratch", "ignore", "disregard"})
_VAGUE = frozenset({"thing", "things", "stuff", "part", "bit", "idea", "plan", "business"})
_SAYING = frozenset({"say", "tell", "mention", "write"})


def withdrawn_topic(head: Token) -> list[Token]:
    """The words of the topic ``head``'s clause withdraws; empty when it withdraws nothing."""
    lemma = head.lemma_.lower()
    if negated(head):  # "don't forget the tickets": remember them
        return []
    if lemma in _WITHDRAW and _ordered(head):
        return _topic(head)
    if lemma == "take" and any(c.lower_ == "back" for c in head.children):
        return _topic(head) if _by_speaker(head) else []
    wrong = next((c for c in head.children if c.lower_ == "wrong" and c.dep_ == "acomp"), None)
    if wrong is not None and _by_speaker(head):
        return _about(wrong)
    return []


def ended_topic(head: Token) -> list[Token]:
    """What the speaker says they left (``I left accounting``); empty when nothing was left.

    A habit or a place left for a moment (``I left work early``, ``I left at 5``) is no end:
    a clause with an adverb or a time of day beside its verb ends nothing.
    """
    if head.lemma_.lower() != "leave" or negated(head) or not _by_speaker(head):
        return []
    if head.tag_ not in ("VBD", "VBN"):
        return []
    if any(c.dep_ in ("advmod", "npadvmod") for c in head.children):
        return []
    obj = next((c for c in head.children if c.dep_ == "dobj"), None)
    return _content(obj.subtree) if obj is not None else []


def _ordered(head: Token) -> bool:
    """An imperative, or a sentence-initial verb the tagger took for a noun."""
    if imperative(head):
        return True
    opens = head.i == head.sent.start and head.dep_ in ("ROOT", "advcl")
    return opens and not any(c.dep_ in ("nsubj", "nsubjpass") for c in head.children)


def _by_speaker(head: Token) -> bool:
    subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
    return subject is not None and subject.lower_ in FIRST


def _topic(head: Token) -> list[Token]:
    """``the marathon thing``; ``what I said about my sister``: my sister; ``about X``: X."""
    about = _about(head)
    if about:
        return about
    saying = next((t for t in head.subtree if t.lemma_.lower() in _SAYING and t != head), None)
    if saying is not None:
        return _about(saying)
    obj = next((c for c in head.children if c.dep_ == "dobj"), None)
    return _content(obj.subtree) if obj is not None else []


def _about(token: Token) -> list[Token]:
    prep = next((c for c in token.children if c.dep_ == "prep" and c.lower_ == "about"), None)
    if prep is None:
        return []
    obj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    return _content(obj.subtree) if obj is not None else []


def _content(tokens: Iterable[Token]) -> list[Token]:
    return [
        t
        for t in tokens
        if t.is_alpha and not t.is_stop and t.lower_ not in _VAGUE and t.lower_ not in FIRST
    ]
