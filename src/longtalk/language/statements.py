"""Statements: who said what about whom, how, and when, as typed values.

Each sentence of a message is parsed once (:func:`longtalk.language.nlp.parse_many`, in
batches) and split into clauses (:func:`clause_heads`: a root, each conjoined clause with
its own subject, a reason said in passing).
A clause becomes a :class:`Statement` when its subject can be told (the speaker, the other
participant, a named person, someone's relation, or a pronoun that can stand for only one
person named before it in the message): the claim it makes (a predicate key, and
the subject's relation when it speaks of ``my sister``), the value, whether it is negated,
how it is said (:mod:`longtalk.language.modality`), when, and the speaker's own words.

``text`` is a third-person rewrite only where the parse supports one (the subject ``I``
named, ``am``/``have``/present verbs agreed by their lemma and tag, ``my`` made possessive);
otherwise it is empty and the quote stands for the statement.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from longtalk.core.recent import RecentCache
from longtalk.language.answers import answer_of
from longtalk.language.families import (
    CHANGE_VERBS,
    NOUN_CLAIMS,
    TASTE_VERBS,
    VERB_CLAIMS,
    adjective_claim,
    noun_claim,
    purposed,
)
from longtalk.language.modality import (
    Modality,
    hedged,
    imperative,
    modality,
    negated,
    standing_request,
)
from longtalk.language.naming import NAMED, Naming, namings
from longtalk.language.nlp import entities, entity_type, owner_of, parse_many
from longtalk.language.relations import PEOPLE_NOUNS
from longtalk.language.speakers import (
    ASSISTANT,
    CHAT_EXCLAMATIONS,
    FIRST,
    GROUP,
    Participants,
    Referent,
    a_participant,
    noun_key,
    owned,
    refer,
)
from longtalk.language.times import statement_time
from longtalk.language.withdrawal import (
    ceases,
    ended_topic,
    ends_unnamed,
    no_longer,
    recanting,
    withdrawn_topic,
)
from longtalk.language.wording import (
    clause_tokens,
    cuts_a_quote,
    display_name,
    rewrite,
    words_of,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "ENDED",
    "RECANTED",
    "SAID",
    "WITHDRAWN",
    "Claim",
    "Said",
    "Statement",
    "read_statements",
    "statements_of",
]

WITHDRAWN = "withdrawn"
"""The predicate of a statement that takes back what its speaker said about a topic."""
ENDED = "ended"
"""The predicate of a statement that ends what held of its speaker: ``I left accounting``."""
RECANTED = "recanted"
"""The predicate of a statement that takes back what its speaker just said: ``jk``."""
SAID = "said"
"""The predicate of a sentence no clause of which reads as a claim: quoted, filed by its words."""
READ_CACHE_SIZE = 2048
"""Messages whose statements are kept for reuse (the newest)."""

_COPULAS = frozenset({"be", "become", "feel", "seem", "stay", "remain", "get"})
_CHANGE_WORDS = frozenset({"anymore", "longer", "instead", "switch"})
_WRAPPERS = frozenset({"remember", "note", "know", "notice", "understand", "mind"})


@dataclass(frozen=True, slots=True)
class Said:
    """One message to read: its sequence, speaker, listener, words and date.

    ``asked`` is the question the message answers, when the message just before it, by
    another, ended on one (:func:`longtalk.language.answers.question_of`): ``Aberdeen,
    moved up for the job`` says where its speaker lives only beside ``where are you based
    these days?``.
    """

    sequence: int
    speaker: str
    text: str
    listener: str = "assistant"
    said_at: datetime | None = None
    asked: str = ""


@dataclass(frozen=True, slots=True)
class Claim:
    """What a statement is about: a holder's (or their relation's) predicate.

    ``relation`` is the owned noun when the statement speaks of ``my sister``; ``predicate``
    the key two statements on one claim share (``home``, ``allergic:peanut``, ``budget``).
    """

    holder: str
    relation: str
    predicate: str

    @property
    def key(self) -> str:
        """``relation:predicate`` (or the predicate alone), case-folded."""
        return (f"{self.relation}:{self.predicate}" if self.relation else self.predicate).lower()


@dataclass(frozen=True, slots=True)
class Statement:
    """A clause read as a claim, with how and when it was said and by whom.

    ``polarity`` False for a negated clause (``not vegetarian anymore``); ``change`` when the
    clause marks an update (``anymore``, ``instead``, ``raise ... to``); ``group`` when the
    subject is "we"; ``quote`` the clause as said (the sentence, when the clause's words
    are not one unbroken run); ``text`` a parse-supported third-person
    rewrite, or ``""``; ``lemma`` the clause's verb, ``lemmas`` its content words; ``shape``
    its grammar, word-free (:func:`clause_shape`; an asserted clause's with the kinds of names
    in it), and ``vector`` the parser's own reading
    of its words in context (:func:`clause_vector`): what a learned reader generalises from.
    ``standing`` marks a request of how to treat the speaker that holds beyond the moment
    (``Don't call me after 9 pm``): the speaker's fact, though not asserted. ``naming``
    marks a relation's name said in passing (``my wife Rosa``, :mod:`~longtalk.language.naming`).
    ``ends`` marks a clause that ends a habit or a role (``I quit smoking``, ``I gave up
    coffee``): said of a claim, it is that claim's end. ``asked`` is the question a
    fragment answers (``Durham, did history`` to ``which uni did you go to?``): the
    statement means what it says only beside it. ``reaction`` marks a message that is one
    fragment with no verb, naming no one and answering no question (``ooh fancy``,
    ``PICKLE 😍``, ``legend.``): a reaction to what was just said, no claim by itself.
    """

    claim: Claim
    value: str
    polarity: bool
    modality: Modality
    speaker: str
    sequence: int
    quote: str
    text: str = ""
    time: str = ""
    said_at: datetime | None = None
    change: bool = False
    group: bool = False
    lemma: str = ""
    lemmas: tuple[str, ...] = ()
    shape: tuple[str, ...] = ()
    vector: tuple[float, ...] = ()
    standing: bool = False
    naming: bool = False
    ends: bool = False
    asked: str = ""
    reaction: bool = False

    @property
    def holder(self) -> str:
        """Whose claim it is."""
        return self.claim.holder

    @property
    def hearsay(self) -> bool:
        """True when the speaker states someone else's claim."""
        return self.claim.holder.casefold() != self.speaker.casefold()


_read: RecentCache[Said, tuple[Statement, ...]] = RecentCache(READ_CACHE_SIZE)


def read_statements(messages: Iterable[Said]) -> list[Statement]:
    """Every statement of ``messages``, in order; parsed in batches.

    A message's statements are kept by its :class:`Said` (the newest
    :data:`READ_CACHE_SIZE`): the facts read a message when it is appended and again when
    the summary folds it, and what it states depends on nothing else.
    """
    items = list(messages)
    known = _read.known(items)
    missing = list(dict.fromkeys(item for item in items if item not in known))
    for item, doc in zip(missing, parse_many(item.text for item in missing), strict=True):
        known[item] = tuple(statements_of(item, doc))
    _read.keep({item: known[item] for item in items})
    return [statement for item in items for statement in known[item]]


def statements_of(item: Said, doc: Doc) -> Iterator[Statement]:
    """The statements of one parsed message."""
    people = Participants(item.speaker, item.listener)
    sentences = list(doc.sents)
    answer = answer_of(sentences, people) if item.asked else None
    for index, sentence in enumerate(sentences):
        jest = recanting(sentence)
        found = [
            statement
            for head in clause_heads(sentence)
            if head != jest  # "I'm kidding" claims no kidding
            for statement in [_statement(head, sentence, people, item)]
            if statement is not None
        ]
        found += [_named(naming, sentence, people, item) for naming in namings(sentence, people)]
        if jest is not None and not _denies_itself(found, people):
            yield _withdrawal(jest, [], sentence, people, item, RECANTED)
        ended = no_longer(sentence)
        if ended is not None:
            yield _withdrawal(ended, [], sentence, people, item, ENDED)
        yield from found
        if index == 0 and answer is not None:
            yield _sentence_said(answer, people, item, own=False, asked=item.asked)
        elif not found:
            own = _of_speaker(sentence)
            if own or _subjectless(sentence):
                alone = len(sentences) == 1 and not item.asked
                said = _sentence_said(sentence, people, item, own=own)
                yield replace(said, reaction=True) if alone and _reacts(sentence) else said


def _denies_itself(found: Sequence[Statement], people: Participants) -> bool:
    """``lol jk I don't have a hamster``: the take-back says what it takes back."""
    return any(not statement.polarity and statement.holder == people.speaker for statement in found)


def _reacts(sentence: Span) -> bool:
    """No verb, no word of the speaker's or their group's, no owner: ``ooh fancy``."""
    return not any(
        t.pos_ in ("VERB", "AUX") or t.lower_ in FIRST or t.lower_ in GROUP or t.dep_ == "poss"
        for t in sentence
    )


def _of_speaker(sentence: Span) -> bool:
    """The sentence speaks of its speaker (``I``, ``my``) and has a word to say it with."""
    mine = any(t.lower_ in FIRST for t in sentence)
    return mine and any(t.pos_ in ("NOUN", "PROPN", "ADJ") for t in sentence)


def _subjectless(sentence: Span) -> bool:
    """A fragment with no subject anywhere: chat's telegraphic ``vegan since 2019 btw``.

    Whom it speaks of the words cannot tell, so, as said by the speaker, it is theirs;
    a question or a bare command is not; whether it says anything lasting is the kind
    model's to decide, as for any statement (it learned fragments that do not:
    ``same lol``, ``dentist at 3``, ``question 2 about deployment``).
    """
    root = sentence.root
    if sentence.text.rstrip().endswith("?") or imperative(root):
        return False
    if root.tag_ == "VBZ":  # "Sounds great", "Looks like fun": a reply to what was heard
        return False
    if any(t.pos_ in ("VERB", "AUX") and _has_subject(t) for t in sentence):
        return False  # a clause with a subject: read by its clause, or someone else's
    return any(t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB") and not t.is_stop for t in sentence)


_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})


def _has_subject(verb: Token) -> bool:
    """The verb has a subject of its own.

    The small parser also files a fragment's noun as the subject of a verbless root
    (``vegan since 2019 btw``): that is no clause.
    """
    return any(c.dep_ in _SUBJECTS for c in verb.children)


def _sentence_said(
    sentence: Span, people: Participants, item: Said, *, own: bool, asked: str = ""
) -> Statement:
    """A sentence of the speaker's own that no clause of it reads: quoted whole.

    Chat leaves the subject out or says a fact in passing (``finally got the brakes fixed on
    my old Subaru``, ``after pottery class tonight i'm gonna crash``); no parse-supported
    claim can be cut from it, so it is the speaker's, in their words, filed under its own
    words, and the kind model decides whether it lasts, as for any statement. An answer
    that opens on a fragment (``Aberdeen, moved up for the job``) is quoted with the
    question it answers (``asked``), which the kind model reads beside it.
    """
    root = sentence.root
    tokens = [t for t in sentence if not t.is_punct]
    lemmas = tuple(t.lemma_.lower() for t in tokens if t.is_alpha and not t.is_stop)
    return Statement(
        claim=Claim(people.speaker, "", f"{SAID}:{' '.join(dict.fromkeys(lemmas))}"),
        value=" ".join(t.text for t in tokens if t.is_alpha and not t.is_stop),
        polarity=not negated(root),
        modality=modality(root, sentence, people),
        speaker=people.speaker,
        sequence=item.sequence,
        quote=sentence.text.strip(),
        time=statement_time(sentence.text, item.said_at),
        said_at=item.said_at,
        lemma=root.lemma_.lower(),
        lemmas=lemmas,
        shape=(
            "sentence" if own else "fragment",
            *clause_shape(root, tokens, names=False),
        ),
        vector=clause_vector(tokens),
        asked=asked,
    )


_NAMES_WHAT_IT_ASKS = frozenset({"request", "instruction"})
"""Modes whose names stand as said: ``help me find a gift for my wife Rosa`` asks for a
gift, and says who Rosa is."""


def _named(naming: Naming, sentence: Span, people: Participants, item: Said) -> Statement:
    """The owner's relation's name, as the apposition says it (``Rosa is Maya's wife.``)."""
    clause = _clause_of(naming.phrase[0])
    owner = naming.owner
    text = (
        ""
        if owner.group
        else (f"{naming.name} is {display_name(owner.holder, first=False)}'s {naming.described}.")
    )
    said = modality(clause, sentence, people)
    return Statement(
        claim=Claim(owner.holder, naming.relation, NAMED),
        value=naming.name,
        polarity=True,
        modality="asserted" if said in _NAMES_WHAT_IT_ASKS else said,
        speaker=people.speaker,
        sequence=item.sequence,
        quote=_own_words(naming.phrase, sentence),
        text=text,
        time=statement_time(sentence.text, item.said_at),
        said_at=item.said_at,
        group=owner.group,
        lemma=NAMED,
        naming=True,
    )


def _clause_of(token: Token) -> Token:
    """The head of the clause ``token`` is in: how it is said is that clause's."""
    while token.dep_ != "ROOT" and not (token.pos_ in ("VERB", "AUX") and _subject(token)):
        token = token.head
    return token


def clause_heads(sentence: Span) -> list[Token]:
    """The sentence's root and every clause that says something by itself.

    Those are a conjoined verb with a subject of its own, a reason or concession
    (:func:`_asserted_subordinate`), a gerund subject, a clause under a verbless heading, a
    withdrawal wherever the parser hung it and a leading clause (:func:`leading_clause`).
    ``Let's raise ...`` and an imperative ``remember that ...`` give the clause they govern.
    """
    heads = []
    for token in sentence:
        conjoined = token.dep_ == "conj" and token.pos_ in ("VERB", "AUX")
        own = conjoined and _subject(token) is not None and not _after_subordinate(token)
        split_off = token.dep_ == "ROOT" and token.i > 0 and _after_subordinate(token)
        said_apart = (
            _asserted_subordinate(token)
            or _gerund_subject(token)
            or _after_heading(token)
            or _withdraws(token)
            or _relative_of_own(token)
        )
        if (token.dep_ == "ROOT" and not split_off) or own or leading_clause(token) or said_apart:
            heads.append(_unwrap(token))
    return sorted(heads, key=lambda head: head.i)


_FACTIVE_MARKS = frozenset({"because", "since", "though", "although", "cause", "'cause", "as"})
"""Subordinators whose clause the speaker asserts: ``Dinner was tricky because my wife
can't eat shellfish`` says she can't. ``when``, ``if``, ``until`` or ``before`` set a
condition or a time, and their clause may never have held."""


def _asserted_subordinate(token: Token) -> bool:
    """A reason or concession clause with a subject of its own: a statement by itself."""
    if token.dep_ != "advcl" or token.pos_ not in ("VERB", "AUX") or _subject(token) is None:
        return False
    return any(c.dep_ == "mark" and c.lower_ in _FACTIVE_MARKS for c in token.children)


def _relative_of_own(token: Token) -> bool:
    """A ``where`` or ``when`` clause of the speaker or their own, whole by itself.

    ``the clinic, where I work as a hygienist,`` says what the speaker does. A relative
    clause missing a word (``the car I want to buy``) needs the noun it hangs on, which no
    rewrite can put back faithfully, and ``who lives in Oslo`` is about that noun, which no
    referent names.
    """
    if token.dep_ != "relcl" or token.pos_ not in ("VERB", "AUX"):
        return False
    subject = _subject(token)
    if subject is None or not _own_person(subject):
        return False
    adverbial = any(c.tag_ == "WRB" for c in token.children)
    return adverbial and any(_complement(c) for c in token.children)


def _own_person(subject: Token) -> bool:
    """``I`` or someone's own (``my husband``).

    Not a generic ``you`` or ``we``: ``a game where you build settlements``.
    """
    return subject.lower_ == "i" or owner_of(subject) is not None


def _complement(child: Token) -> bool:
    """An object, an attribute or a preposition with its object: the clause is whole."""
    if child.dep_ == "prep":
        return any(c.dep_ == "pobj" for c in child.children)
    return child.dep_ in ("dobj", "attr", "acomp")


def _withdraws(token: Token) -> bool:
    """``Ignore what I said about a cat, Biscuit is my sister's``: hung under a clause inside."""
    return token.dep_ == "advcl" and bool(withdrawn_topic(token))


def _after_subordinate(clause: Token) -> bool:
    """A clause right after a subordinate one may be part of it: the parse cannot say.

    ``... to keep me calm when things are super important and I'm nervous``: the small
    parser joins ``I'm nervous`` to the main clause (or splits it off as a sentence of its
    own), though it is said of when; read as its own statement it would claim the speaker
    is nervous. A comma before the conjunction closes the subordinate clause.
    """
    doc = clause.doc
    before = clause.left_edge.i - 1
    while before >= 0 and doc[before].dep_ == "cc":
        before -= 1
    if before < 0 or doc[before].is_punct:
        return False  # "..., and I work from home now": the comma closes the clause
    if clause.dep_ == "conj" and before < clause.head.i:
        return False
    token = doc[before]
    while token.head != token and token != clause.head:
        subordinate = token.dep_ == "advcl" and any(
            c.dep_ == "mark" or c.tag_ == "WRB" for c in token.children
        )
        if subordinate:
            return True
        token = token.head
    return False


def leading_clause(token: Token) -> bool:
    """A clause set before the root's, with its own subject or one it lends.

    ``I can't stand cilantro, it tastes like soap``: the small parser hangs the first clause
    under the second. ``Turns out I'm not allergic, the test was negative``: the wrapped
    clause. ``Being a night owl, I never book early``: the root's subject is the owl.
    """
    if token.i > token.head.i or token.head.dep_ != "ROOT":
        return False
    if token.dep_ in ("ccomp", "parataxis"):
        return _subject(token) is not None
    if token.dep_ != "advcl" or _subject(token) is not None:
        return False
    if imperative(token) or withdrawn_topic(token):  # "Please never ring me before 10 am, ..."
        return True
    return _unwrap(token) != token or _describes_subject(token) or _dropped_subject(token)


_BEFORE_DROPPED = frozenset({"intj", "neg", "aux", "advmod", "punct", "discourse"})


def _after_heading(token: Token) -> bool:
    """A clause under a sentence that is only a heading: ``Update: I've switched to tea``.

    The small parser hangs the clause on the heading's noun, which has no verb to say
    anything; the clause with its own subject is what is said.
    """
    root = token.head
    if root.dep_ != "ROOT" or root.pos_ not in ("NOUN", "PROPN") or token.i < root.i:
        return False
    colon = any(t.text in (":", "-", "—") for t in token.doc[root.i : token.left_edge.i])
    verb = token.pos_ in ("VERB", "AUX") and token.dep_ in ("acl", "appos", "dep")
    return colon and verb and _subject(token) is not None


def _gerund_subject(token: Token) -> bool:
    """``being an ER nurse is no joke``: a clause as subject, said of the one who speaks.

    Whether it is said of the speaker or of anyone, the words alone cannot tell, so such a
    statement is only ever quoted whole.
    """
    return token.dep_ == "csubj" and token.tag_ == "VBG" and _subject(token) is None


def _dropped_subject(head: Token) -> bool:
    """A verb that opens its sentence with no subject: chat leaves out the speaker's ``I``.

    ``Been spending my Sundays at the climbing gym``, ``Spent the weekend hiking``: a past
    or perfect verb. A bare verb (``Try the ramen``) is an instruction instead, a present
    one is as often a reply to the listener (``Sounds great``), and a clause inside the
    sentence takes its subject from the clause it hangs on.
    """
    if head.dep_ not in ("ROOT", "advcl"):
        return False
    perfect = any(c.dep_ == "aux" and c.lemma_.lower() in ("be", "have") for c in head.children)
    if not (head.tag_ == "VBD" or (head.tag_ in ("VBN", "VBG") and perfect)):
        return False  # "living in the city", "speaking of hobbies": a fragment, not a claim
    if any(c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for c in head.children):
        return False
    before = head.doc[head.sent.start : head.i]
    return all(t.dep_ in _BEFORE_DROPPED for t in before)


def _describes_subject(token: Token) -> bool:
    """A bare ``being ...`` clause: it says what the main clause's subject is."""
    return token.lemma_.lower() == "be" and token.tag_ == "VBG" and token.dep_ == "advcl"


def _unwrap(head: Token) -> Token:
    inner = next((c for c in head.children if c.dep_ in ("ccomp", "xcomp")), None)
    if inner is None:
        return head
    if head.lemma_.lower() == "let":  # "let's raise the budget": the raising, by "us"
        return inner
    if head.lemma_.lower() in _WRAPPERS and imperative(head):
        return inner
    expletive = any(c.dep_ == "expl" for c in head.children)  # "there's a quote that I like"
    if _subject(head) is None and head.tag_ == "VBZ" and not expletive:  # "turns out I'm ..."
        return inner
    return head


def _subject(head: Token) -> Token | None:
    return next(
        (
            c
            for c in head.children
            if c.dep_ in ("nsubj", "nsubjpass") and not _vocative(c) and not _exclaimed(c)
        ),
        None,
    )


def _exclaimed_subject(head: Token) -> bool:
    """``lol, still stuck in Swindon``: the parse's subject is an exclamation.

    Chat drops the speaker's ``I``; the small parser files the exclamation in its place.
    """
    return any(c.dep_ == "nsubj" and _exclaimed(c) for c in head.children)


def _exclaimed(subject: Token) -> bool:
    """``lol jk, I can barely keep a cactus alive``: no one is called "lol jk"."""
    name = [subject, *(c for c in subject.children if c.dep_ == "compound")]
    return all(t.lower_ in CHAT_EXCLAMATIONS for t in name)


def _vocative(subject: Token) -> bool:
    """A bare name set off from its verb by a comma is the one spoken to, not the subject.

    ``Sounds awesome, Caroline.``: the small parser files Caroline as the subject.
    """
    modified = any(c.dep_ in ("relcl", "acl", "appos", "prep", "cc") for c in subject.children)
    if subject.pos_ != "PROPN" or modified:  # "Ana, who I met at work, is a nurse"
        return False
    doc = subject.doc
    toward = subject.i + (1 if subject.i < subject.head.i else -1)
    return 0 <= toward < len(doc) and doc[toward].text == ","


def _referent(head: Token, people: Participants) -> Referent | None:
    subject = _subject(head)
    if subject is None and (head.dep_ == "conj" or _describes_subject(head)):
        subject = _subject(head.head)
    if subject is None:
        if head.head.lemma_.lower() == "let" and head.head != head:
            return Referent(people.speaker, group=True)
        if imperative(head):
            return Referent(people.listener)
        if _dropped_subject(head) or _gerund_subject(head) or _exclaimed_subject(head):
            return Referent(people.speaker)
        return None
    if _addressed(subject, people):
        return None
    return refer(subject, people) or _antecedent(subject, people)


_THIRD_PERSONS = frozenset({"he", "she", "they"})


def _antecedent_of(pronoun: Token, people: Participants) -> Token | None:
    """``my dad might come, he's been living with us``: the one person ``he`` can be.

    A third-person subject pronoun stands for a person named earlier in the same message
    (someone's relation, as ``my dad``, or a name) when exactly one such person was: with
    two (``my mum and my sister``) or none, who it is cannot be told.
    """
    if pronoun.lower_ not in _THIRD_PERSONS or pronoun.pos_ != "PRON":
        return None
    found: dict[Referent, Token] = {}
    for token in pronoun.doc[: pronoun.i]:
        referent = _person(token, people)
        if referent is not None:
            found.setdefault(referent, token)
    return next(iter(found.values())) if len(found) == 1 else None


def _antecedent(pronoun: Token, people: Participants) -> Referent | None:
    token = _antecedent_of(pronoun, people)
    return None if token is None else _person(token, people)


def _person(token: Token, people: Participants) -> Referent | None:
    """The person ``token`` names, other than the participants: a relation or a name."""
    if token.pos_ not in ("NOUN", "PROPN") or token.dep_ in ("compound", "poss"):
        return None
    if token.dep_ == "appos":  # "my partner Sam": one person, named by the noun
        return None
    referent = refer(token, people)
    if referent is None or referent.group or referent.holder == ASSISTANT:
        return None
    owned_person = owner_of(token) is not None
    if owned_person and token.pos_ == "NOUN":  # "my dad"; "my partner Sam": Sam, named
        return referent if token.lemma_.lower() in PEOPLE_NOUNS else None
    named = token.pos_ == "PROPN" and entity_type(token) == "PERSON"
    speaking = (people.speaker.casefold(), people.listener.casefold())
    return referent if named and referent.holder.casefold() not in speaking else None


def _addressed(subject: Token, people: Participants) -> bool:
    """``Hey Nate, my favourite treat is ...`` said to Nate: a subject the speaker calls by.

    The parser's subject is the listener's name set off by a comma; who the clause is
    about, it cannot tell.
    """
    doc = subject.doc
    after = doc[subject.i + 1] if subject.i + 1 < len(doc) else None
    named = subject.pos_ == "PROPN" and subject.text.casefold() == people.listener.casefold()
    return named and after is not None and after.text == ","


def _statement(head: Token, sentence: Span, people: Participants, item: Said) -> Statement | None:
    topic = withdrawn_topic(head)
    if topic:
        return _withdrawal(head, topic, sentence, people, item)
    left = ended_topic(head)
    if left:
        return _withdrawal(head, left, sentence, people, item, ENDED)
    if ends_unnamed(head) and modality(head, sentence, people) == "asserted":
        return _withdrawal(head, [], sentence, people, item, ENDED)
    who = _referent(head, people)
    found = _inverted(head, people) if _names_a_thing(head, who, people) else None
    if found is None:
        found = _predicate(head, who) if who is not None else _inverted(head, people)
    if found is None:
        return None
    who, predicate, value = found
    predicate = purposed(predicate, _purpose(sentence))
    tokens = clause_tokens(head)
    if tokens and tokens[0].tag_ in ("WDT", "WP") and tokens[0].dep_ != "advmod":
        return None  # "that I really like": a relative clause, a fragment of another
    mode = modality(head, sentence, people)
    earlier = _resolved_from(head, people)
    leans = (
        leans_outside(tokens)
        or _elided(head)
        or _ends_on_its_verb(head, tokens)
        or _gerund_subject(head)
        or earlier is not None
        or hedged(head)
    )
    return Statement(
        claim=Claim(who.holder, who.relation, predicate),
        value=value,
        polarity=_polarity(head),
        modality=mode,
        speaker=people.speaker,
        sequence=item.sequence,
        quote=(
            _since(earlier, sentence)
            if earlier is not None
            else sentence.text.strip()
            if leans
            else _own_words(_said(head, tokens), sentence, head)
        ),
        text=rewrite(tokens, head, people) if mode == "asserted" and not leans else "",
        time=statement_time(sentence.text, item.said_at),
        said_at=item.said_at,
        change=_changing(head, tokens),
        group=who.group,
        lemma=head.lemma_.lower(),
        lemmas=tuple(t.lemma_.lower() for t in tokens if t.is_alpha and not t.is_stop),
        shape=clause_shape(head, tokens, names=mode == "asserted"),
        vector=clause_vector(tokens),
        standing=mode == "request" and standing_request(head),
        ends=ceases(head),
    )


def _resolved_from(head: Token, people: Participants) -> Token | None:
    """The person named earlier that the clause's pronoun subject stands for, if any."""
    subject = _subject(head)
    if subject is None or refer(subject, people) is not None:
        return None
    return _antecedent_of(subject, people)


def _since(earlier: Token, sentence: Span) -> str:
    """The speaker's words from the sentence naming the person to the end of this one."""
    return earlier.doc[earlier.sent.start : sentence.end].text.strip()


def leans_outside(tokens: Sequence[Token]) -> bool:
    """The clause means something only with the words around it: quote the whole sentence.

    An object that is a pronoun (``Nothing beats my morning matcha, I have one every day``)
    or a preposition left without its object (``I've been working on for a while``) says
    what the rest of the sentence says; a rewrite of the clause alone would say nothing.
    """
    for token in tokens:
        if token.dep_ in _OBJECTS and token.lower_ in _STANDING_FOR:
            return True
        if token.dep_ == "prep" and not any(c.dep_ in ("pobj", "pcomp") for c in token.children):
            return True
        if token.dep_ == "prt" and token.lower_ in _PREPOSITIONS and not _has_object(token.head):
            return True  # "I've been working on for a while": on what?
    return False


def _elided(head: Token) -> bool:
    """A verb that stands for one said before it: ``... and I still do every Sunday``.

    ``do`` or an auxiliary with nothing it does or is after it: what it stands for is in the
    words before (``taught me to bake bread``), so the clause alone would say nothing.
    """
    standing_in = head.lemma_.lower() == "do" or head.pos_ == "AUX"
    return standing_in and not any(c.dep_ in _COMPLEMENTS for c in head.children)


def _ends_on_its_verb(head: Token, tokens: Sequence[Token]) -> bool:
    """Nothing is said after the verb (``I mean, ...``, ``I bet!``, ``I haven't``, ``I smoke``).

    What such a verb means is mostly in the words around it (a comment on the sentence, a
    reply to the one before); rewritten alone it reads "Joanna means." Quoted with its
    sentence it says what was said, and its claim is the same either way.
    """
    return not any(t.i > head.i and not t.is_punct and t.dep_ != "neg" for t in tokens)


_COMPLEMENTS = frozenset(
    {"dobj", "attr", "acomp", "xcomp", "ccomp", "oprd", "prep", "dative", "agent", "advcl"}
)
"""What a verb does or is, after it: any of them, and the verb says something itself."""


def _has_object(verb: Token) -> bool:
    return any(c.dep_ in ("dobj", "pobj", "ccomp", "xcomp") for c in verb.children)


_OBJECTS = frozenset({"dobj", "pobj", "attr", "dative", "oprd"})
_PREPOSITIONS = frozenset("on at about with for to of into from".split())
"""Particles that are prepositions: without an object, theirs was said elsewhere."""
_STANDING_FOR = frozenset("it one that this them these those him her he she they".split())
"""Pronouns that stand for words said elsewhere."""


def _inverted(head: Token, people: Participants) -> tuple[Referent, str, str] | None:
    """``Pizza is my favourite food`` says what ``my favourite food is pizza`` says.

    A thing set as the subject of ``be`` with someone's noun after it: that noun's owner's
    claim, its value the thing.
    """
    subject = _subject(head)
    attribute = _attribute(head)
    if subject is None or attribute is None or subject.pos_ not in ("NOUN", "PROPN"):
        return None
    whose = owned(attribute, people) if head.lemma_.lower() == "be" else None
    if whose is None or whose.is_assistant:
        return None
    relation, predicate = _split_relation(whose.relation)
    value = words_of(t for t in subject.subtree if not t.is_punct)
    return Referent(whose.holder, relation, whose.group), noun_claim(predicate), value


def _names_a_thing(head: Token, who: Referent | None, people: Participants) -> bool:
    """``Garlic is my go-to ingredient``: a name whose ``be`` gives it someone's thing.

    The small tagger reads any capitalised word as a name (``Garlic``, ``Fox Hollow``), and
    its entities as often call one a person; what the clause says it is decides. A name
    that is said to be someone's noun that is not a person (an ingredient, a recipe) is
    that thing, and the claim is its owner's, as ``my go-to ingredient is garlic`` says.
    """
    subject = _subject(head)
    if who is None or subject is None or subject.pos_ != "PROPN" or a_participant(subject, people):
        return False
    attribute = _attribute(head)
    return attribute is not None and attribute.lemma_.lower() not in PEOPLE_NOUNS


def _attribute(head: Token) -> Token | None:
    """The noun ``be`` says its subject is: ``my favourite food``, or ``one of my favorites``."""
    for child in head.children:
        if child.dep_ == "attr" and child.pos_ == "NOUN":
            return child
        if child.dep_ == "attr" and child.lower_ == "one":  # one of a set: the set's noun
            whole = [g for c in child.children if c.lower_ == "of" for g in c.children]
            return next((g for g in whole if g.dep_ == "pobj" and g.pos_ == "NOUN"), None)
    return None


def _purpose(sentence: Span) -> str:
    """What a sentence says a thing is for or about: ``for the Japan trip``, ``on shoes``.

    Not a person (``for us two``) nor a date (``on Monday``).
    """
    for token in sentence:
        if token.dep_ != "pobj" or token.head.lower_ not in ("for", "on", "about"):
            continue
        if token.pos_ in ("NOUN", "PROPN") and entity_type(token) not in ("DATE", "TIME"):
            return noun_key(token)  # the entities asked for last: they cost a recognition
    return ""


def _withdrawal(
    head: Token,
    topic: list[Token],
    sentence: Span,
    people: Participants,
    item: Said,
    how: str = WITHDRAWN,
) -> Statement:
    """The speaker takes back (or, ``how`` :data:`ENDED`, ends) their claim about ``topic``.

    A change to no claim at all: it finds the claim it undoes by the words they share.
    """
    tokens = clause_tokens(head)
    return Statement(
        claim=Claim(people.speaker, "", f"{how}:{words_of(topic).casefold()}"),
        value=words_of(topic),
        polarity=False,
        modality="asserted",
        speaker=people.speaker,
        sequence=item.sequence,
        quote=_own_words(tokens, sentence),
        time=statement_time(sentence.text, item.said_at),
        said_at=item.said_at,
        change=True,
        lemma=head.lemma_.lower(),
        lemmas=tuple(t.lemma_.lower() for t in topic),
        shape=clause_shape(head, tokens),
        vector=clause_vector(tokens),
    )


def clause_vector(tokens: Sequence[Token]) -> tuple[float, ...]:
    """The mean of the parser's context vectors over the clause's words, unit length.

    The small pipeline's shared encoder gives each token a vector it tags and parses
    from; near clauses (``I work as a nurse``, ``I'm employed as a teacher``) lie near.
    Empty when the pipeline keeps no vectors.
    """
    rows = [t.i for t in tokens if not t.is_punct]
    tensor = tokens[0].doc.tensor if tokens else None
    if not rows or tensor is None or len(tensor) == 0:
        return ()
    mean = np.asarray(tensor)[rows].mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return tuple(float(v) for v in mean / norm) if norm > 0 else ()


def clause_shape(head: Token, tokens: Sequence[Token], *, names: bool = True) -> tuple[str, ...]:
    """The clause's grammar without its words.

    Tense, auxiliaries, its complements' parts of speech, the kinds of names in it (a place,
    an organisation, a date, a number, a faith or nationality). ``I'm 34`` and ``I'm
    Catholic`` share a shape with sentences never seen; their words alone would not.
    ``names`` False leaves the kinds of names out: they cost the doc an entity recognition,
    and the kind model reads the shape of asserted clauses only.
    """
    shape = [f"tag:{head.tag_}"]
    for child in head.children:
        if child.dep_ in ("aux", "auxpass", "neg"):
            shape.append(f"aux:{child.lemma_.lower()}")
        elif child.dep_ in _SHAPED:
            shape.append(f"{child.dep_}:{child.pos_}")
            shape += [f"{child.dep_}>{c.dep_}" for c in child.children if c.dep_ in _SHAPED]
    if not names:
        return tuple(shape)
    inside = {t.i for t in tokens}
    shape += sorted({f"ent:{e.label_}" for e in entities(head.doc) if e.root.i in inside})
    return tuple(shape)


_SHAPED = frozenset(
    {"acomp", "attr", "oprd", "dobj", "xcomp", "prep", "pobj", "advmod", "npadvmod"}
)


def _predicate(head: Token, who: Referent) -> tuple[Referent, str, str] | None:
    """(holder, predicate key, value) of a clause; None when it names no predicate."""
    lemma = head.lemma_.lower()
    if lemma == "use" and head.tag_ == "VBD":  # "I used to smoke": no longer so
        done = next((c for c in head.children if c.dep_ == "xcomp"), None)
        if done is not None:
            return _predicate(done, who)
    ceased = _ceased(head)
    if ceased is not None:  # "I quit smoking": the claim of smoking, changed
        return _predicate(ceased, who)
    if lemma in _COPULAS or any(c.dep_ == "acomp" for c in head.children):
        state = _copula(head, who)  # "I went vegetarian", "she turned vegan": a state
        if state is not None or not any(c.dep_ == "dobj" for c in head.children):
            return state  # "I've got a 3 bed flat": no state, a verb and its object
    if lemma in CHANGE_VERBS or lemma == "move":
        changed = _changed(head, who)
        if changed is not None:
            return changed
    risen = _risen(head, who)
    if risen is not None:
        return risen
    preposition, obj = _object(head)
    if lemma in TASTE_VERBS and obj is not None:
        return who, f"taste:{_object_key(obj)}", words_of(obj.subtree)
    if (lemma, preposition) in VERB_CLAIMS and obj is not None and _plain(head, obj):
        return who, VERB_CLAIMS[(lemma, preposition)], words_of(obj.subtree)
    rest = [t for t in clause_tokens(head) if t.i > head.i and not t.is_punct]
    value = words_of(rest) or (head.text if head.pos_ == "VERB" else "")
    if lemma in NOUN_CLAIMS and any(_an_amount(t) for t in rest):  # "I can spend 3,500"
        return who, noun_claim(lemma), value
    key = _verb_key(_phrasal(head), obj)
    return (who, key, value) if value or who.relation else None


def _an_amount(token: Token) -> bool:
    """A number that could be money: not a time or a date (``spent 20 minutes``, ``two weeks``)."""
    return token.like_num and entity_type(token) not in _SPANS_OF_TIME


_SPANS_OF_TIME = frozenset({"TIME", "DATE"})


def _phrasal(verb: Token) -> str:
    """The verb with its particles: ``give up`` and ``work out`` are verbs of their own.

    ``I won't give up`` denies no ``I'll give it a try``; ``I work out`` is no employer.
    """
    particles = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    return " ".join([verb.lemma_.lower(), *particles])


def _verb_key(lemma: str, obj: Token | None) -> str:
    """A verb's claim: it and its object's noun, or the verb it governs.

    ``I have to watch my sugar`` is ``have:watch:sugar``: keyed ``have`` alone, every later
    ``I have to …`` would read as the same claim changed.
    """
    if obj is None:
        return lemma
    if obj.pos_ in ("NOUN", "PROPN"):
        return f"{lemma}:{_object_key(obj)}"
    if obj.dep_ == "xcomp" and obj.pos_ in ("VERB", "AUX"):
        _, inner = _object(obj)
        noun = f":{_object_key(inner)}" if inner is not None and inner.pos_ == "NOUN" else ""
        return f"{lemma}:{obj.lemma_.lower()}{noun}"
    return lemma


def _an_age(complement: Token) -> bool:
    """``34`` in ``I'm 34``: a cardinal number, alone.

    Not with a determiner (``the first to know``), nor one of a set (``one of my friends``).
    """
    return (
        complement.dep_ == "attr"
        and complement.tag_ == "CD"
        and not any(c.dep_ == "det" or c.lower_ == "of" for c in complement.children)
    )


def _plain(verb: Token, obj: Token) -> bool:
    """The verb is itself (``work for``, not the phrasal ``work on``) and its object no time.

    ``I've been working on for a while``, ``I've worked for years``: no employer.
    """
    phrasal = any(c.dep_ == "prt" for c in verb.children)
    return not phrasal and entity_type(obj) not in ("DATE", "TIME")


def _copula(head: Token, who: Referent) -> tuple[Referent, str, str] | None:
    complement = next((c for c in head.children if c.dep_ in ("acomp", "attr", "oprd")), None)
    if complement is None:
        prep = next((c for c in head.children if c.dep_ == "prep"), None)
        if prep is None:
            return None
        complement = prep
    inside = {t.i for t in complement.subtree}
    span = [t for t in clause_tokens(head) if t.i in inside and not t.is_punct]
    span = [t for t in span if t.lower_ not in _FILLERS and t.dep_ != "neg"]
    value = words_of(span)
    if who.relation:  # "my budget is 3,500 euros", "my sister is a nurse"
        relation, predicate = _split_relation(who.relation)
        predicate = noun_claim(predicate)
        return Referent(who.holder, relation, who.group), predicate, value
    if complement.dep_ == "prep":
        return who, f"be {complement.lower_}", value
    named = complement.pos_ == "PROPN" and not any(c.dep_ == "det" for c in complement.children)
    if named and not who.relation and not who.group:
        return who, NAMED, value  # "I'm Maya"; "I'm a Texan" is no name
    if _an_age(complement) and not who.group:
        return who, "age", value  # "I'm 34"
    objects = [t for t in span if t != complement and t.pos_ in _CONTENT and t.dep_ != "npadvmod"]
    after = [t for t in objects if t.i > complement.i]
    chosen = after[0] if after else (objects[-1] if objects else None)
    object_lemma = chosen.lemma_.lower() if chosen is not None else ""
    return who, adjective_claim(complement.lemma_.lower(), object_lemma), value


_FILLERS = frozenset({"anymore", "now", "either", "too", "also", "still", "really", "so"})
_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ"})


def _split_relation(relation: str) -> tuple[str, str]:
    """``sister`` stays a relation (a person); ``car budget`` is the holder's own claim."""
    if relation.split()[-1] in PEOPLE_NOUNS:
        return relation, "is"
    return "", relation


def _changed(head: Token, who: Referent) -> tuple[Referent, str, str] | None:
    """``raise the budget to 4,000 euros``: the object's claim set to the new value."""
    target = next((c for c in head.children if c.dep_ == "dobj"), None)
    to = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "to"), None)
    if target is None or to is None or target.pos_ != "NOUN":
        return None
    value = words_of(t for t in to.subtree if t != to)
    return who, noun_claim(noun_key(target)), value


def _risen(head: Token, who: Referent) -> tuple[Referent, str, str] | None:
    """``my bike budget went up to 450 euros``: the subject's own claim set to a new value."""
    if not who.relation or head.lemma_.lower() not in _RISING:
        return None
    near = [head, *(c for c in head.children if c.dep_ in ("advmod", "prt"))]
    to = next((c for t in near for c in t.children if c.dep_ == "prep" and c.lower_ == "to"), None)
    if to is None or not any(t.like_num for t in to.subtree):
        return None
    relation, predicate = _split_relation(who.relation)
    value = words_of(t for t in to.subtree if t != to)
    return Referent(who.holder, relation, who.group), noun_claim(predicate), value


_RISING = CHANGE_VERBS | {"go", "rise", "fall", "climb", "jump", "grow", "shrink", "move"}


def _object(head: Token) -> tuple[str, Token | None]:
    """The clause's object: (``""``, direct object), or (preposition, its object).

    Failing both, the first content word after the verb (the small parser sometimes
    misreads ``I hate cilantro``'s object as an adverb), never a time (``last week``).
    """
    for child in head.children:
        leading = child.dep_ == "ccomp" and child.i < head.i  # a clause of its own, run on
        if child.dep_ in ("dobj", "xcomp", "attr", "ccomp") and not leading:
            return "", child
    for child in head.children:
        if child.dep_ in ("prep", "agent"):
            obj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if obj is not None:
                return child.lower_, obj
    after = [
        c
        for c in head.rights
        if c.pos_ in _CONTENT and c.lower_ not in _FILLERS and c.dep_ != "npadvmod"
    ]
    return "", after[0] if after else None


def _object_key(token: Token) -> str:
    if token.pos_ in ("VERB", "AUX"):  # "I love hiking in the Alps"
        return token.lemma_.lower()
    return noun_key(token)


def _own_words(tokens: Sequence[Token], sentence: Span, head: Token | None = None) -> str:
    """The clause as said: its words where they run unbroken in the sentence, else the sentence.

    The sentence also when the words would cut a quoted title at one of its marks, or a
    word the tokenizer split (``last Wed.`` read as ``We`` and ``d.``): a quote never ends
    or starts inside a word as written. And when they hold no verb the sentence has (``Our
    daughter Mia``): a phrase quoted alone reads as a sentence the speaker never said. Nor is
    a subordinate clause quoted alone (``when I took my pets to the park.``).

    When a clause cut out of the middle breaks them (``Just so you know I don't drink
    alcohol``), the unbroken run that holds the verb and every word negating it is quoted.
    """
    if tokens and head is not None and tokens[-1].i - tokens[0].i + 1 != len(tokens):
        tokens = _unbroken_run(tokens, head)
    if tokens and tokens[-1].i - tokens[0].i + 1 == len(tokens):
        text = words_of(tokens)
        subordinate = head is not None and _subordinate(head)
        if cuts_a_quote(text) or _cuts_a_word(tokens) or _verbless(tokens, sentence) or subordinate:
            return sentence.text.strip()
        if text.endswith((".", "!", "?")):
            return text
        end = tokens[-1].i + 1
        mark = tokens[0].doc[end].text if end < len(tokens[0].doc) else ""
        return text + (mark if mark in (".", "!", "?") else ".")
    return sentence.text.strip()


def _subordinate(head: Token) -> bool:
    """A clause that hangs on another, so never a quote alone.

    It hangs by a word of its own (``when ...``, ``as we grow up``), or as a participle
    with no subject of its own (``Being a night owl,``): its subject is the other clause's.
    """
    if head.dep_ in ("relcl", "acl"):
        return True
    participle = head.tag_ in ("VBG", "VBN") and _subject(head) is None
    return head.dep_ == "advcl" and (participle or any(c.dep_ == "mark" for c in head.children))


def _cuts_a_word(tokens: Sequence[Token]) -> bool:
    """The run starts or ends where the text as written has no break between two words."""
    doc, first, last = tokens[0].doc, tokens[0], tokens[-1]
    before = doc[first.i - 1] if first.i > 0 else None
    after = doc[last.i + 1] if last.i + 1 < len(doc) else None
    starts_inside = before is not None and not before.whitespace_ and _joined(before, first)
    ends_inside = after is not None and not last.whitespace_ and _joined(last, after)
    return starts_inside or ends_inside


def _verbless(tokens: Sequence[Token], sentence: Span) -> bool:
    """No verb among ``tokens``, though the sentence they are cut from has one."""
    return not _has_verb(tokens) and _has_verb(sentence)


def _has_verb(words: Iterable[Token]) -> bool:
    return any(t.pos_ in ("VERB", "AUX") for t in words)


def _joined(left: Token, right: Token) -> bool:
    """Two tokens written as one word: letters or digits on both sides of their seam."""
    return left.text[-1:].isalnum() and right.text[:1].isalnum()


def _unbroken_run(tokens: Sequence[Token], head: Token) -> Sequence[Token]:
    """The run of ``tokens`` without a gap around ``head``; all of them if it loses a negation."""
    at = next((n for n, t in enumerate(tokens) if t == head), None)
    if at is None:
        return tokens
    start, end = at, at
    while start > 0 and tokens[start - 1].i == tokens[start].i - 1:
        start -= 1
    while end + 1 < len(tokens) and tokens[end + 1].i == tokens[end].i + 1:
        end += 1
    run = tokens[start : end + 1]
    subject = any(t.dep_ in ("nsubj", "nsubjpass", "expl") and t.head == head for t in run)
    negations = [c for c in head.children if c.dep_ == "neg"]
    return run if subject and all(n in run for n in negations) else tokens


def _said(head: Token, tokens: list[Token]) -> list[Token]:
    """The words to quote: ``Let's raise the budget`` keeps its ``Let``."""
    if head.head.lemma_.lower() == "let" and head.head != head:
        return [head.head, *tokens]
    return tokens


def _polarity(head: Token) -> bool:
    """False when the clause denies its claim: negated, a habit given up, or a dislike."""
    lemma = head.lemma_.lower()
    holds = not (negated(head) or (lemma == "use" and head.tag_ == "VBD"))
    return holds if TASTE_VERBS.get(lemma, True) else not holds


def _changing(head: Token, tokens: Sequence[Token]) -> bool:
    words = {t.lower_ for t in tokens} | {head.lemma_.lower()}
    changed = words & _CHANGE_WORDS or head.lemma_.lower() in CHANGE_VERBS
    return bool(changed) or ceases(head) or _first(tokens)


def _ceased(head: Token) -> Token | None:
    """The habit a ceasing verb ends, when it is a verb: ``smoking`` in ``I quit smoking``.

    Filed under that verb's claim (``smoke``), the end supersedes what was said of it
    (``I smoke about two a day``).
    """
    if not ceases(head):
        return None
    return next((c for c in head.children if c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG"), None)


def _first(tokens: Sequence[Token]) -> bool:
    return any(t.lower_ == "after" and t.nbor(1).lower_ == "all" for t in tokens[:-1])
