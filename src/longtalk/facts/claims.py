"""Facts as claims: a statement the parse and the kind model accept, filed under its claim.

A statement becomes a fact when it is asserted (not asked, supposed, advised, requested,
reported, ironic, or addressed to the assistant), its holder is a person, and the learned
model (:func:`longtalk.language.kinds.kind_of`) finds it durable. A negated statement that
marks a change (``not vegetarian anymore``, ``not allergic after all``, ``no longer``) is a
retraction of its claim, whatever the model says. The fact's subject is the claim's key,
so a later statement on the same claim supersedes it (:mod:`longtalk.facts.merge`).

The text is faithful by construction: the statement's parse-supported rewrite, else the
speaker's own words, quoted and named.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import cast, get_args

from longtalk.facts.durable_fact import DurableFact, FactKind, normal_text
from longtalk.language import ASSISTANT, ENDED, Said, Statement
from longtalk.language.families import lasting
from longtalk.language.kinds import kind_of
from longtalk.language.wording import display_name
from longtalk.summary.offline_text import content_words

__all__ = ["EVENT_KINDS", "fact_of", "facts_of", "quoted", "spoken_words"]

EVENT_KINDS = frozenset({"commitment", "decision"})
"""Kinds whose statements are dated plans and choices: several stand side by side."""


def facts_of(statements: Iterable[Statement]) -> list[DurableFact]:
    """The facts (and retractions) among ``statements``, in order."""
    return [fact for fact in map(fact_of, statements) if fact is not None]


def fact_of(statement: Statement) -> DurableFact | None:
    """The fact ``statement`` states, a retraction, or None."""
    if statement.standing:
        return standing_request(statement)
    if statement.modality != "asserted" or statement.holder in ("", ASSISTANT):
        return None
    if _bare(statement) or _denies_the_unnamed(statement):
        return None
    kind = kind_of(statement)
    if kind is not None and statement.reaction:
        return _tentative(statement)  # "ooh fancy": kept only if it ends an earlier claim
    if _denies(statement) and (kind is None or not _denied_words(statement)):
        return _denial(statement)  # "I'm not training for anything": no claim, an undoing
    if kind is None and statement.ends:
        return _ending(statement)
    retracts = not statement.polarity and statement.change
    if kind is None and not retracts:
        return _tentative(statement) if statement.polarity else None
    return DurableFact(
        kind=_kind(kind),
        subject=_ended(statement) if _ends_itself(statement) else _subject(statement, kind),
        holder=statement.holder,
        text=statement.text or quoted(statement),
        sequences=(statement.sequence,),
        said_at=statement.said_at,
        source="offline",
        value=("not " if not statement.polarity else "") + statement.value.casefold(),
        said_by=statement.speaker if statement.hearsay else "",
        retracts=retracts,
        changes=statement.change,
    )


def _tentative(statement: Statement) -> DurableFact:
    """A statement no fact by itself that may still end a claim: ``sold the civic``.

    Said after ``I drive a civic`` it is the claim's latest word; the merge asks the
    succession model (:func:`longtalk.facts.merge.succeeded_claim`) and drops it when it
    takes no earlier claim's place.
    """
    return DurableFact(
        kind="preference",
        subject=statement.claim.key or statement.lemma or "said",
        holder=statement.holder,
        text=statement.text or quoted(statement),
        sequences=(statement.sequence,),
        said_at=statement.said_at,
        source="offline",
        value=statement.value.casefold(),
        said_by=statement.speaker if statement.hearsay else "",
        changes=statement.change,
        tentative=True,
    )


UNREAD_WORDS = 40
"""The longest message read whole as a tentative statement: a longer one is a story."""


def tentative_message(said: Said) -> DurableFact | None:
    """A message the parse read no clause in, as its speaker's tentative statement.

    ``the Singapore move fell through``, ``full vegan since january``: a thing for a
    subject or a fragment states no claim the parse can file, yet may end one the speaker
    stated before. Quoted whole; kept only if it takes an earlier claim's place.
    """
    words = said.text.split()
    if not words or len(words) > UNREAD_WORDS:
        return None
    quote = " ".join(words).translate(_INNER_QUOTES)
    return DurableFact(
        kind="preference",
        subject="said",
        holder=said.speaker,
        text=f'{display_name(said.speaker, first=True)}{_SAID}"{quote}"',
        sequences=(said.sequence,),
        said_at=said.said_at,
        source="offline",
        tentative=True,
    )


def _denies(statement: Statement) -> bool:
    """A negated clause that is no fact itself may deny one: ``I never smoked``.

    It takes back the holder's own claim on the same predicate, if there is one
    (:func:`longtalk.facts.merge.merge_facts`); otherwise it is nothing. A change says
    so itself (``not ... anymore``: a retraction); a dated one (``I didn't smoke
    yesterday``) tells of a day, not of the claim.
    """
    return not statement.polarity and not statement.change and not statement.time


def _denies_the_unnamed(statement: Statement) -> bool:
    """A denial of what a pronoun stands for: ``No, I haven't read them yet``.

    What it denies was named elsewhere, often by the other speaker; it is neither a fact
    nor the undoing of any claim it could name. A pronoun with words of its own names
    what it denies: ``I don't eat anything with gluten`` is a fact.
    """
    named = _denied_words(statement)
    return _denies(statement) and "dobj:PRON" in statement.shape and not named


def _denial(statement: Statement) -> DurableFact:
    """A denial, its value the words it denies: ``I never owned a motorbike``, ``not motorbike``.

    It takes back only a claim those words are all part of.
    """
    denied = _denied_words(statement)
    return _undoing(statement, statement.claim.key, " ".join(["not", *denied]), changes=False)


def _denied_words(statement: Statement) -> list[str]:
    """The words a denial names past its verb; none for ``not training for anything``."""
    verb = statement.lemma
    return [word for word in content_words(statement.value) if not word.startswith(verb)]


def _ends_itself(statement: Statement) -> bool:
    """``I gave up the pipe``, ``I've quit for good``: an end filed under its verb.

    Filed as an ended topic (:func:`_ended`), it ends the claim it names
    (:mod:`longtalk.facts.merge`). ``I quit smoking`` is filed under the habit it
    ends (``smoke``) and supersedes it there.
    """
    return statement.ends and statement.claim.key.partition(":")[0] == statement.lemma


def _ending(statement: Statement) -> DurableFact:
    """An end that is no fact itself (``I gave up running``): the end of a claim it names.

    Filed as an ended topic, it ends the holder's claim that shares a word with it
    (:func:`longtalk.facts.merge.merge_facts`).
    """
    subject = _ended(statement)
    return _undoing(statement, subject, subject.partition(":")[2], changes=True)


def _ended(statement: Statement) -> str:
    """The ended topic an end is filed under: ``ended:pipe`` for ``I gave up the pipe``.

    The ending verb names the end, not what ended: kept in the topic, ``gave up coffee``
    would meet any claim that gives (``I give each of them a treat``) as well as the coffee.
    It stays only when nothing else is named (``I quit``).
    """
    said = content_words(f"{statement.claim.predicate.replace(':', ' ')} {statement.value}")
    verb = set(content_words(statement.lemma))
    words = [word for word in said if word not in verb] or said
    return f"{ENDED}:{' '.join(dict.fromkeys(words))}"


def _undoing(statement: Statement, subject: str, value: str, *, changes: bool) -> DurableFact:
    """A retraction ``statement`` makes of a claim filed under ``subject``, found by ``value``.

    It is never shown (said of nothing, it is dropped or stays hidden), so its kind says
    nothing.
    """
    return DurableFact(
        kind="preference",
        subject=subject,
        holder=statement.holder,
        text=statement.text or quoted(statement),
        sequences=(statement.sequence,),
        said_at=statement.said_at,
        source="offline",
        value=value,
        said_by=statement.speaker if statement.hearsay else "",
        retracts=True,
        changes=changes,
    )


def standing_request(statement: Statement) -> DurableFact:
    """The speaker's standing request (``Don't call me after 9 pm``), in their own words.

    Quoted, never rewritten: it is what they asked of the people they talk to, told as
    said, and only ever of the speaker (a request to the assistant is an instruction,
    never a fact).
    """
    return DurableFact(
        kind="constraint",
        subject=f"request:{statement.lemma}:{normal_text(statement.value)}",
        holder=statement.speaker,
        text=quoted(statement),
        sequences=(statement.sequence,),
        said_at=statement.said_at,
        source="offline",
        value=statement.value.casefold(),
    )


def _bare(statement: Statement) -> bool:
    """A bare verb ("I won!", "I have.", "I promise.") claims nothing; "I'm 34" claims an age."""
    verb = statement.lemma
    return (
        statement.polarity
        and set(statement.lemmas) <= {verb}
        and statement.claim.key in ("", verb, "be", "do", "have")
    )


def _subject(statement: Statement, kind: str | None) -> str:
    """The claim's key; a plan or event is its own claim unless it says it changes one.

    ``We fly into Lisbon on 20 May`` and ``We fly home on 1 June`` are two plans of one
    verb, not a change of mind; ``we moved the flight to 3 June`` is. A claim held once (a
    home, a diet) keeps its key whatever kind it is filed under: a move is the home's new
    value, never a second home beside it.
    """
    if kind in EVENT_KINDS and not statement.change and not lasting(statement.claim.key):
        return f"{statement.claim.key}:{normal_text(statement.value)}"
    return statement.claim.key


def quoted(statement: Statement) -> str:
    """The speaker's own words, named: ``Ana said: "We adopted a cat."``.

    Quotation marks inside them become single ones, so the quote has one pair of double marks:
    ``John said: "'The Santa Clause' is a classic!"``.
    """
    words = statement.quote.translate(_INNER_QUOTES)
    name = display_name(statement.speaker, first=True)
    if statement.asked:  # the question in single marks: the fact's one quote is the answer
        name = f"{name}, asked '{statement.asked.translate(_INNER_QUOTES)}',"
    return f'{name}{_SAID}"{words}"'


_SAID = " said: "
_INNER_QUOTES = str.maketrans({'"': "'", "“": "‘", "”": "’"})
_QUOTED = re.compile(rf'^[^"]*{_SAID}"(?P<words>.*)"$', re.DOTALL)


@lru_cache(maxsize=8192)
def spoken_words(text: str) -> str:
    """The words a fact's text says: a quote's own (what :func:`quoted` wrote), else the text.

    The succession model reads what was said, not who is named saying it.
    """
    found = _QUOTED.match(text)
    return found["words"] if found else text


def _kind(kind: str | None) -> FactKind:
    """The model's kind as a fact kind; a kind it has no class for reads as a preference."""
    return cast(FactKind, kind) if kind in get_args(FactKind) else "preference"
