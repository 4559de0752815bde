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

A speaker also takes back what they have just said without naming it at all: ``jk``, ``I'm
kidding``, ``just messing with you``, ``I made that up``, ``I lied``, ``scratch that``,
``ignore me``. Said by the speaker of themselves and not negated (``I'm not joking`` insists,
``no kidding`` agrees, ``are you kidding?`` asks), such a sentence recants their latest
claim (:func:`recanting`); which one, the merge finds by when it was said.

Leaving ends a claim instead of withdrawing it: ``I left accounting``, ``we left Bristol``
say that what held (``I work as an accountant``, ``I live in Bristol``) held until now. The
topic is what was left; only a claim that names it ends, so ``I left my phone at home``
ends nothing. An end may name nothing either: ``I quit``, ``gave up after two weeks``,
``sold it in the spring``, ``not anymore``. Said of the speaker and of no thing of its own
(a pronoun at most, a time), it ends what they have just said (:func:`ends_unnamed`,
:func:`no_longer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from longtalk.language.families import CEASING
from longtalk.language.modality import imperative, negated
from longtalk.language.nlp import entity_type
from longtalk.language.speakers import FIRST

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["ceases", "ended_topic", "ends_unnamed", "no_longer", "recanting", "withdrawn_topic"]

_WITHDRAW = frozenset({"forget", "scratch", "ignore", "disregard"})
_VAGUE = frozenset({"thing", "things", "stuff", "part", "bit", "idea", "plan", "business"})
_SAYING = frozenset({"say", "tell", "mention", "write"})
_CHAT_JEST = frozenset({"jk", "j/k", "jks", "jkjk"})
"""Chat's "just kidding"."""
_JESTING = frozenset({"kid", "joke", "mess"})
"""Verbs of saying what one did not mean (``kidding``, ``joking``, ``messing with you``)."""
_JESTS = frozenset({"kidding", "joking", "messing"})
"""Their forms the small tagger sometimes takes for nouns (``lol no, joking``)."""
_DEICTIC = frozenset({"that", "this", "it", "me", "everything"})
"""What a bare take-back points at: what was just said."""
_NEGATORS = frozenset({"not", "n't", "no", "never"})
_PARTING = frozenset({"sell"})
"""Verbs of parting with what one had: an end when said of the past (``sold it``)."""
_NO_LONGER = frozenset({"anymore", "longer"})
_POINTING = frozenset({"it", "that", "this", "them"})
"""Objects that name nothing: what they stand for was said before."""
_TIMES = frozenset({"DATE", "TIME"})


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


def recanting(sentence: Span) -> Token | None:
    """The word by which ``sentence`` says its speaker's last words were not meant, or None.

    None in a question, for a negated jest, for one of another subject (``you're
    kidding``), and for a verb with words of its own (``joking around with my kids``,
    ``I lied down``, ``I made up a story``).
    """
    if sentence.text.rstrip().endswith("?"):
        return None
    for token in sentence:
        if token.lower_ in _CHAT_JEST:
            return token
        if _recants(token) and not _negated_before(token) and _of_speaker(token):
            return token
    return None


def _recants(token: Token) -> bool:
    lemma = token.lemma_.lower()
    if token.lower_ in _JESTS or (lemma in _JESTING and token.pos_ == "VERB"):
        return not any(_of_its_own(c) for c in token.children)
    if lemma == "pull":  # "pulling your leg"
        return any(c.dep_ == "dobj" and c.lower_ == "leg" for c in token.children)
    if lemma == "make":  # "I made that up", not "made it up on the spot" (a recipe)
        up = any(c.dep_ == "prt" and c.lower_ == "up" for c in token.children)
        pointed = any(t.lower_ in _DEICTIC for t in token.subtree if t != token)
        return up and pointed and _by_speaker(token) and not _prepositions(token)
    if lemma == "lie":  # "I lied", "I was lying", not "lying there"
        return (
            token.tag_ in ("VBD", "VBG", "VBN")
            and _by_speaker(token)
            and not _prepositions(token)
            and not any(_of_its_own(c) or c.dep_ == "advmod" for c in token.children)
        )
    if lemma == "be":  # "I was wrong", about nothing named
        wrong = [c for c in token.children if c.lower_ == "wrong" and c.dep_ == "acomp"]
        return bool(wrong) and not _about(wrong[0]) and _by_speaker(token)
    if lemma in _WITHDRAW and _opens(token):  # "scratch that", "ignore me"
        after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
        return after is not None and after.lower_ in _DEICTIC
    return False


def _prepositions(token: Token) -> bool:
    return any(c.dep_ == "prep" for c in token.children)


def _opens(token: Token) -> bool:
    """An order that opens its sentence, after an exclamation at most (``ugh ignore that``)."""
    before = token.doc[token.sent.start : token.i]
    return _ordered(token) and all(t.is_punct or t.pos_ == "INTJ" for t in before)


def _of_its_own(child: Token) -> bool:
    """An object, a particle or company of the verb's own: ``joking around with my kids``."""
    if child.dep_ in ("dobj", "prt"):
        return True
    return child.dep_ == "prep" and child.lower_ == "with" and not _to_listener(child)


def _to_listener(child: Token) -> bool:
    """``messing with you``: said to the listener, the jest is the whole of it."""
    return all(c.lower_ in ("you", "u", "ya") for c in child.children if c.dep_ == "pobj")


def _negated_before(token: Token) -> bool:
    """``not joking``, ``no kidding``, ``I didn't lie``: the jest is denied.

    Only the word right before it or a negation of its own: in ``lol no, joking`` the ``no``
    answers, and in ``since never, I'm kidding`` the ``never`` is the jest's.
    """
    before = token.doc[token.i - 1] if token.i > token.sent.start else None
    if before is not None and before.lower_ in _NEGATORS:
        return True
    return any(c.dep_ == "neg" for c in token.children)


def _of_speaker(token: Token) -> bool:
    """No subject of its own (``just kidding``), or the speaker (``I'm kidding``)."""
    subject = _subject(token, ("nsubj", "nsubjpass"))
    return subject is None or subject.lower_ in FIRST


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
    subject = _subject(head, ("nsubj",))
    return subject is not None and subject.lower_ in FIRST


def _subject(head: Token, deps: tuple[str, ...]) -> Token | None:
    return next((c for c in head.children if c.dep_ in deps), None)


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


def ceases(head: Token) -> bool:
    """``I quit the orchestra``, ``I gave up coffee``: what the speaker did before has ended.

    A ceasing verb denied goes on (``I won't quit``, ``I can't stop thinking about it``).
    """
    lemma = head.lemma_.lower()
    if any(c.dep_ == "neg" or c.lower_ == "never" for c in head.children):
        return False
    # the small parser tags the particle of "dropped out of" as a preposition
    particle = {c.lower_ for c in head.children if c.dep_ in ("prt", "prep")}
    return lemma in ("quit", "stop") or bool(CEASING.get(lemma, frozenset()) & particle)


def ends_unnamed(head: Token) -> bool:
    """Whether ``head``'s clause ends something of the speaker's without naming it.

    ``I quit``, ``gave up after two weeks``, ``sold it in the spring``: a ceasing or
    parting verb said of the past, by the speaker or with no subject (chat drops the
    ``I``), with no thing of its own: no object but a pronoun, no phrase but a time.
    ``I stopped by the bakery``, ``I quit smoking``, ``quit it!``, ``I'm quitting`` and
    ``I'd have given up`` are not such ends; a question asks.
    """
    lemma = head.lemma_.lower()
    parting = lemma in _PARTING and not negated(head) and _points(head)
    if not (ceases(head) or parting) or head.sent.text.rstrip().endswith("?"):
        return False
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in head.children):
        return False  # "I'd have given up after ten minutes": what would have been
    subject = _subject(head, ("nsubj", "nsubjpass"))
    if subject is not None and subject.lower_ not in FIRST:
        return False
    ordered = subject is None and _has_object(head)
    quit_now = lemma == "quit" and head.tag_ in ("VB", "VBP") and not ordered
    if not (head.tag_ in ("VBD", "VBN") or quit_now):
        return False  # "quit it!" is said to another; "I quit" ends
    return all(_acts_on_nothing(child) for child in head.children)


def _points(head: Token) -> bool:
    """``sold it``: the object points at what was said before (``sold out`` parts with nothing)."""
    return any(c.dep_ == "dobj" and c.lower_ in _POINTING for c in head.children)


def _has_object(head: Token) -> bool:
    return any(c.dep_ == "dobj" for c in head.children)


def _acts_on_nothing(child: Token) -> bool:
    """A dependent that names no thing the verb acts on: a pronoun, a time, a word of manner."""
    if child.dep_ in ("dobj", "pobj"):
        return child.lower_ in _POINTING
    if child.dep_ == "prep":
        objects = [c for c in child.children if c.dep_ == "pobj"]
        return bool(objects) and all(
            o.lower_ in _POINTING or entity_type(o) in _TIMES for o in objects
        )
    if child.dep_ == "npadvmod":
        return entity_type(child) in _TIMES
    return child.dep_ not in ("xcomp", "ccomp", "attr", "acomp", "oprd", "dative", "agent")


def no_longer(sentence: Span) -> Token | None:
    """The ``anymore`` of a sentence that opens on ``not anymore`` or ``no longer`` alone.

    ``well not anymore — friday was my last day``, ``nope, not anymore``: said in reply,
    it ends what the speaker just said without naming it. ``no longer renters`` names what
    it ends, and ``not anymore?`` asks.
    """
    if sentence.text.rstrip().endswith("?"):
        return None
    words = [t for t in sentence if not (t.is_punct or t.pos_ == "INTJ" or t.lower_ == "nope")]
    if len(words) < 2 or words[0].lower_ not in ("not", "no") or words[1].lower_ not in _NO_LONGER:
        return None
    after = words[1].doc[words[1].i + 1] if words[1].i + 1 < len(words[1].doc) else None
    return words[1] if after is None or after.is_punct or after.i >= sentence.end else None
