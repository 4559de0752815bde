"""Merging durable facts: duplicates unite their provenance, the later supersedes the earlier.

Two facts of one holder on one subject either say the same thing (equal ``value``, or equal
text when there is none): one fact with both provenances; or they differ: the later one
stays and the earlier becomes its history (a budget of 3,500 raised to 4,000 leaves 4,000,
once 3,500); a retraction takes the claim's place the same way and is never shown. Facts of
one holder with the same text are duplicates whatever subject they were filed under.

A change or retraction filed under a subject nobody has stated (``I switched from tennis to
padel``, ``I no longer own Marlin``) replaces the holder's latest claim it shares a content
word with (``I play tennis``, ``I own a sailboat called Marlin``). A take-back that names
nothing (``lol jk``) takes back the holder's claim said just before it. Pure, stable and
idempotent: the merged list keeps the order in which subjects first appeared, and merging
it again changes nothing (a fact with a history has found the claim it ends).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache

from longtalk.facts.claims import EVENT_KINDS, spoken_words
from longtalk.facts.durable_fact import DurableFact, Former, normal_text
from longtalk.language import ENDED, RECANTED, WITHDRAWN
from longtalk.language.families import LASTING_CLAIMS, family_of, purpose_of
from longtalk.language.naming import NAMED
from longtalk.language.stems import stems
from longtalk.language.succession import most_replaced
from longtalk.language.times import WHEN_WORDS
from longtalk.summary.offline_text import content_words

__all__ = [
    "PLAN_UNCHANGED",
    "later",
    "merge_facts",
    "pair_signs",
    "read_together",
    "succeeded_claim",
    "unite",
]


def merge_facts(
    existing: Iterable[DurableFact], found: Iterable[DurableFact], *, keep_denials: bool = False
) -> list[DurableFact]:
    """``existing`` with ``found`` folded in; see the module docstring.

    ``found`` is taken as the newer on a tie (same time, same sequence): it is what the
    latest batch of messages said. A denial that finds no claim to take back is dropped,
    and so is a tentative statement that takes no claim's place, unless ``keep_denials``:
    a batch read alone keeps them for the chat's merge, which sees the claims said before
    it.
    """
    kept: list[DurableFact] = []
    by_key: dict[tuple[str, str], int] = {}
    by_text: dict[tuple[str, str], int] = {}
    past: set[tuple[str, str, tuple[int, ...]]] = set()
    facts = (*existing, *found)
    names = speakers(facts)
    for fact in facts:
        if fact.sequences and _past_key(fact.holder, fact.text, fact.sequences) in past:
            continue  # read again, it is a claim's history already: a later word replaced it
        if fact.tentative:  # read again, it is the claim it took the place of
            at = by_text.get(_text_key(fact))
            at = succeeded_claim(kept, fact, names) if at is None else at
            fact = fact if at is None else _in_place_of(kept[at], fact)
        else:
            known = by_key.get(fact.key, by_text.get(_text_key(fact)))
            at, fact = _place_of(kept, fact, known, names)
        if at is None and _aside(fact) and not keep_denials:
            continue  # "I never smoked" with no claim of smoking: nothing to take back
        if at is None:
            at = len(kept)
            kept.append(fact)
        elif _same(kept[at], fact):
            kept[at] = unite(kept[at], fact)
        elif later(fact, kept[at]):  # same holder and subject, another value
            by_text.pop(_text_key(kept[at]), None)
            kept[at] = supersede(kept[at], _as_correction(kept[at], fact))
        past.update(_past_key(kept[at].holder, f.text, f.sequences) for f in kept[at].history)
        if kept[at].tentative:
            continue  # no claim yet: nothing else is filed under it
        by_key[fact.key] = by_key[kept[at].key] = at
        by_text[_text_key(kept[at])] = at
    return kept


def _place_of(
    kept: list[DurableFact], fact: DurableFact, known: int | None, names: frozenset[str]
) -> tuple[int | None, DurableFact]:
    """Which of ``kept`` ``fact`` is filed with (None: none), and ``fact`` as filed there.

    ``known`` is the claim of ``fact``'s key or text, if any. A denial finds only the
    claim it denies; any other statement without a history may end or change a claim
    said in other words.
    """
    if _names_nothing(fact) and not fact.history:
        return _just_said_claim(kept, fact), fact
    denial = fact.denies and not fact.history
    at = _denied_claim(kept, fact) if denial else known
    if at is not None and not denial and _negation_of_its_own(kept[at], fact):
        at = None  # "I don't go running when it rains" beside "I go running every day"
    if at is not None and _another_use_of_the_verb(kept[at], fact):
        at = None  # "I took them somewhere snowy" beside "I take them on road trips"
    if at is not None and _names_another(kept[at], fact):
        at = None  # "my daughter Mia" beside "my daughter Sara": two daughters
    if denial or fact.history:
        return at, fact  # with a history, it has found its claim
    if at is None:
        at = _purposed_claim(kept, fact)
        if at is not None:  # "raise the budget": the trip's budget, filed as it
            fact = replace(fact, subject=kept[at].subject)
    if at is None and fact.changes:
        at = _changed_claim(kept, fact)
    if at is None:
        at = _lasting_plan(kept, fact)
    if at is None:
        at = succeeded_claim(kept, fact, names)
    return at, fact


def _aside(fact: DurableFact) -> bool:
    """A denial or a tentative statement that has found no claim: kept aside, never shown."""
    return fact.tentative or (fact.denies and not fact.history)


def _in_place_of(claim: DurableFact, fact: DurableFact) -> DurableFact:
    """A tentative statement as the latest word on ``claim``: filed and kept as the claim."""
    return replace(fact, kind=claim.kind, subject=claim.subject, tentative=False)


def speakers(facts: Iterable[DurableFact]) -> frozenset[str]:
    """The names of those who said ``facts`` (case-folded): the chat's participants."""
    return frozenset((fact.said_by or fact.holder).casefold() for fact in facts)


def succeeded_claim(
    kept: Sequence[DurableFact], fact: DurableFact, names: frozenset[str] = frozenset()
) -> int | None:
    """Where the holder's claim that ``fact`` takes the place of is, in other words, or None.

    ``sold the civic`` after ``I drive a civic``: the learned model
    (:func:`longtalk.language.succession.replaces`) reads each of the holder's current
    claims said before ``fact`` beside it, with what the claim model knows of the pair
    (:func:`pair_signs`), and the likeliest it finds replaced, if any reaches its
    threshold, is the one. Claims far from it in meaning are never read. ``names`` are the
    chat's participants (:func:`speakers`).
    """
    candidates = [at for at in _open_claims(kept, fact) if read_together(kept[at], fact, names)]
    if not candidates:
        return None
    best = most_replaced(
        [spoken_words(kept[at].text) for at in candidates],
        spoken_words(fact.text),
        fact.holder,
        [pair_signs(kept[at], fact) for at in candidates],
    )
    return candidates[best] if best is not None else None


def _names(later: DurableFact, claim: DurableFact, names: frozenset[str]) -> bool:
    """Whether ``later`` says a word of ``claim``'s, in any form, besides a participant's name.

    ``Bummer, Joanna.`` says no word of ``Hey Joanna, I'm no writer like you``: whom a
    message is said to is no topic of it.
    """
    people = _people_stems(later.holder, names)
    said = _word_stems(spoken_words(later.text)) - people
    filed = _word_stems(f"{claim.subject.replace(':', ' ')} {claim.value}")
    return bool(said & ((filed | _word_stems(spoken_words(claim.text))) - people))


@lru_cache(maxsize=256)
def _people_stems(holder: str, names: frozenset[str]) -> frozenset[str]:
    """The stems of the holder's and the participants' names; one chat asks with few sets."""
    return _word_stems(" ".join(sorted({holder.casefold(), *names})))


@lru_cache(maxsize=8192)
def _word_stems(text: str) -> frozenset[str]:
    """The stems of what ``text``'s words are about; asked of each claim at every read."""
    return frozenset(_about(set(content_words(text))))


def read_together(
    earlier: DurableFact, later: DurableFact, names: frozenset[str] = frozenset()
) -> bool:
    """Whether the succession model is asked if ``later`` ends ``earlier``.

    One holder's, ``earlier`` said before ``later`` (by sequence, when both have one). Two
    claims the parse filed under different lasting families (a diet and an allergy, a home
    and an employer), or budgets of two purposes (a car, a trip), are two claims, however
    near their words are in meaning; a retraction that names what it takes back takes back
    nothing else. A tentative statement, no claim by itself, is read only beside a claim it
    says a word of (``sold the civic`` beside ``I drive a civic``), besides the names of the
    chat's participants (``names``): in a long chat, a passing remark lies near some claim
    in meaning by chance.
    """
    said = later.sequences[0] if later.sequences else None
    return (
        earlier.holder.casefold() == later.holder.casefold()
        and (said is None or not earlier.sequences or earlier.last_sequence < said)
        and not _takes_back_another(earlier, later)
        and (not later.tentative or _names(later, earlier, names))
        and not _told_apart(earlier, later)
        and not _names_another(earlier, later)
    )


PLAN_UNCHANGED = "plan-unchanged"
"""A sign: the earlier is a plan or a decision, and the later says no word of change. The
plans of one trip stand side by side, near each other in meaning."""


def pair_signs(earlier: DurableFact, later: DurableFact) -> tuple[str, ...]:
    """What the claim model knows of a pair that its words do not say, for the model to weigh."""
    return (PLAN_UNCHANGED,) if _eventful(earlier) and not later.changes else ()


def _told_apart(earlier: DurableFact, later: DurableFact) -> bool:
    """Claims the parse filed apart: of two lasting families, or budgets of two purposes."""
    first, second = family_of(earlier.subject), family_of(later.subject)
    if first is None or second is None:
        return False
    purposes = [purpose_of(earlier.subject), purpose_of(later.subject)]
    named = [found[1] for found in purposes if found is not None and found[1]]
    return first != second or (len(named) == 2 and named[0] != named[1])


def _takes_back_another(earlier: DurableFact, later: DurableFact) -> bool:
    """A retraction that names what it takes back takes back nothing else of its kind.

    ``I'm not allergic to nuts anymore`` says nothing of the shellfish allergy: both claims
    name their object (``allergic:nuts``, ``allergic:shellfish``), and the objects differ.
    """
    if not later.retracts:
        return False
    taken, _, named = later.subject.partition(":")
    head, _, held = earlier.subject.partition(":")
    return taken == head and bool(named) and bool(held) and named != held


JUST_SAID_REACH = 3
"""How many messages before it a take-back or an end that names nothing (``jk``,
``I quit``) reaches: the speaker's words just before it, with a reply or two between."""


def _names_nothing(fact: DurableFact) -> bool:
    """A take-back or an end with no topic: ``jk``, ``I quit``, ``not anymore``."""
    how, _, topic = fact.subject.partition(":")
    return fact.retracts and how in (RECANTED, ENDED) and not topic


def _just_said_claim(kept: list[DurableFact], fact: DurableFact) -> int | None:
    """The holder's latest claim of their own, said at most :data:`JUST_SAID_REACH` messages before.

    ``I have a pet snake called Noodle`` then ``lol jk``; ``I'm a 20-a-day guy`` then
    ``I quit``: what names nothing undoes what its speaker said last, if they said it just
    before; in the same message too (``I'm vegan lol jk``). Without sequences, when it was
    said is unknown: nothing.
    """
    if not fact.sequences:
        return None
    said = fact.sequences[0]
    near = [
        at
        for at in _open_claims(kept, fact)
        if kept[at].sequences
        and said - JUST_SAID_REACH <= kept[at].last_sequence <= said
        and not kept[at].said_by  # what another said of them is not theirs to take back
    ]
    return max(near, key=lambda at: (kept[at].last_sequence, at)) if near else None


def _purposed_claim(kept: list[DurableFact], fact: DurableFact) -> int | None:
    """Which of the holder's budgets a statement of a budget speaks of.

    ``Update on the car hunt: my limit is 4,200`` sets the budget whose purpose shares a word
    (``budget:car``); a bare ``raise the budget to 4,000`` the latest budget stated. A budget
    is held once per purpose, so a new amount needs no word of change.
    """
    found = purpose_of(fact.subject)
    if found is None:
        return None
    head, purpose = found
    same = [at for at in _open_claims(kept, fact) if _purpose_head(kept[at]) == head]
    words = set(content_words(purpose))
    if words:
        same = [at for at in same if words & set(content_words(kept[at].subject))]
    return same[-1] if same else None


def _changed_claim(kept: list[DurableFact], fact: DurableFact) -> int | None:
    """Where the holder's current claim that ``fact`` changes is: the one sharing most words.

    Words meet by stem, and words of when (``every morning``) never meet. On a tie the claim
    of ``fact``'s own kind comes first, then the latest. A plan changes only plans and a
    standing claim only standing claims (``I switched to the bistro car on trains`` changes
    where one sits on trains, not a decision to take the train to work). A withdrawal
    names a topic (``forget what I said about my sister``), which may be any word of the
    claim it takes back, its relation and its text included. An end names what was left
    (``I left accounting``), a word of the claim's subject or value (``occupation``: ``an
    accountant``), its predicate included (``I gave up running`` ends ``run``).
    """
    words = _about(_content(fact))
    how = fact.subject.partition(":")[0]
    best: tuple[int, bool, int] | None = None
    for at in _open_claims(kept, fact):
        current = kept[at]
        if _purpose_head(current) is not None:
            continue  # a budget changes by a budget's own words (``_purposed_claim``)
        if how not in (WITHDRAWN, ENDED) and _eventful(current) != _eventful(fact):
            continue  # a plan changes plans; a standing claim, standing claims
        if how == WITHDRAWN:
            about = _all_words(current)
        elif how == ENDED:
            about = _claim_words(current)
        else:
            about = _content(current)
        shared = len(words & _about(about))
        rank = (shared, current.kind == fact.kind, at)
        if shared and (best is None or rank > best):
            best = rank
    return best[2] if best is not None else None


def _lasting_plan(kept: list[DurableFact], fact: DurableFact) -> int | None:
    """Where the standing claim a plan changes is, or None.

    A plan is filed by what it plans (``home:lisbon``: moving there); it is the latest word
    on the holder's standing claim of that family (``home``).
    """
    head, _, planned = fact.subject.partition(":")
    if not planned or head not in LASTING_CLAIMS or not _eventful(fact):
        return None
    same = [at for at in _open_claims(kept, fact) if kept[at].subject == head]
    return same[-1] if same else None


def _about(words: set[str]) -> set[str]:
    """The stems of what ``words`` are about, not of when (``next week``, ``every morning``)."""
    return stems(words - WHEN_WORDS)


def _eventful(fact: DurableFact) -> bool:
    return fact.kind in EVENT_KINDS


def _denied_claim(kept: list[DurableFact], fact: DurableFact) -> int | None:
    """The holder's latest current claim that ``fact`` denies: the same predicate, no new words.

    A bare predicate (``I never smoked``: ``smoke``) denies any claim of it (``smoke:pack``);
    one with an object only that object's (``I don't eat pork`` is not ``eat:fish``). A
    denial that says something the claim did not (``I don't go running when it rains``)
    is another claim, not this one's undoing.
    """
    predicate, _, about = fact.subject.partition(":")
    for at in reversed(_open_claims(kept, fact)):
        head, _, object_ = kept[at].subject.partition(":")
        if head != predicate or (about and about != object_):
            continue
        if _denies_only(kept[at], fact):
            return at
    return None


def _denies_only(claim: DurableFact, negation: DurableFact) -> bool:
    """Every word ``negation`` denies is ``claim``'s, in some form."""
    return _claims_words(claim, [word for word in negation.value.split() if word != "not"])


def _claims_words(claim: DurableFact, words: Iterable[str]) -> bool:
    """Every one of ``words`` is ``claim``'s (its subject's, value's or text's), in some form."""
    return stems(words) <= stems(_all_words(claim))


def _negation_of_its_own(claim: DurableFact, fact: DurableFact) -> bool:
    """A lasting negation on ``claim``'s subject that says what the claim did not.

    ``I don't go running when it rains`` after ``I go running every day`` is another claim
    beside it, as a denial with words of its own is; a change or a retraction says it ends
    the claim, and does.
    """
    if fact.changes or fact.retracts or claim.value.startswith("not "):
        return False
    if not fact.value.startswith("not "):
        return False
    return not _claims_words(claim, content_words(fact.value.removeprefix("not ")))


def _names_another(first: DurableFact, second: DurableFact) -> bool:
    """One of two claims of a relation names someone the other does not speak of.

    ``Sara is John's daughter`` and ``John's daughter is called Oona``: people have two
    daughters, two friends, two cats, so a relation's name ends no claim of that relation
    that does not name the same one. Both stand, dated.
    """
    for naming, other in ((first, second), (second, first)):
        relation, _, predicate = naming.subject.partition(":")
        if predicate != NAMED or not naming.value or naming.retracts:
            continue
        if other.subject.startswith(f"{relation}:"):
            return naming.value.casefold() not in f"{other.value} {other.text}".casefold()
    return False


def _another_use_of_the_verb(claim: DurableFact, fact: DurableFact) -> bool:
    """Two assertions filed under a bare verb, with other values: not one claim by rule.

    A verb alone (``take``, ``be in``) names no claim: ``I take them on road trips`` and
    ``I took them to a snowy one last winter`` are a habit and a story. Whether one ends the
    other is the succession model's to read, as for claims in other words. A claim family
    (``home``), a verb with its object (``play:tennis``), a change, a retraction or a
    negation of the claim still meet by their key.
    """
    if fact.changes or fact.retracts or _same(claim, fact):
        return False
    if ":" in fact.subject or family_of(fact.subject) is not None:
        return False
    return not (claim.value.startswith("not ") or fact.value.startswith("not "))


def _open_claims(kept: Sequence[DurableFact], fact: DurableFact) -> list[int]:
    """Where ``fact``'s holder's current (not retracted) claims are, in order."""
    holder = fact.holder.casefold()
    return [
        at
        for at, current in enumerate(kept)
        if current.holder.casefold() == holder and not (current.retracts or current.tentative)
    ]


def _purpose_head(fact: DurableFact) -> str | None:
    found = purpose_of(fact.subject)
    return found[0] if found else None


def _all_words(fact: DurableFact) -> set[str]:
    """The claim's words and its text's (``Ana's brother lives in Bilbao``)."""
    return _claim_words(fact) | set(content_words(fact.text))


def _claim_words(fact: DurableFact) -> set[str]:
    """The words the claim is filed by: its subject's and its value's."""
    return set(content_words(f"{fact.subject.replace(':', ' ')} {fact.value}"))


def _content(fact: DurableFact) -> set[str]:
    """The words a claim is about, past its predicate: ``allergic:kiwi`` is about kiwi.

    The predicate's own word is left out, or every allergy would replace every other.
    """
    predicate, *about = fact.subject.split(":")
    return set(content_words(f"{fact.value} {' '.join(about)}")) - set(content_words(predicate))


def _past_key(
    holder: str, text: str, sequences: tuple[int, ...]
) -> tuple[str, str, tuple[int, ...]]:
    """A statement as a claim's history holds it: whose, in what words, from which messages."""
    return (holder.casefold(), normal_text(text), sequences)


def _text_key(fact: DurableFact) -> tuple[str, str]:
    return (fact.holder.casefold(), normal_text(fact.text))


def _same(current: DurableFact, fact: DurableFact) -> bool:
    """Duplicates: one value on one subject, or the same words; never a claim and its undoing."""
    if current.retracts != fact.retracts:
        return False
    same_value = current.key == fact.key and current.sameness == fact.sameness
    return same_value or _text_key(current) == _text_key(fact)


def _as_correction(current: DurableFact, fact: DurableFact) -> DurableFact:
    """A later negation of the same claim takes it back: ``I don't have a hamster``.

    Said after ``I have a hamster named Nibbles`` it corrects the claim, as a retraction
    does, and is kept as its history, not shown as a fact of its own. A taste turned
    (``I don't like olives`` after ``I like olives``) is a new taste, and stays.
    """
    negates = fact.value.startswith("not ") and not current.value.startswith("not ")
    if not negates or fact.retracts or fact.subject.partition(":")[0] == "taste":
        return fact
    return replace(fact, retracts=True, changes=True)


def supersede(earlier: DurableFact, fact: DurableFact) -> DurableFact:
    """``fact`` in ``earlier``'s place, with what the claim was before it as its history."""
    former = () if earlier.retracts else (Former(earlier.text, earlier.said_at, earlier.sequences),)
    history = tuple(dict.fromkeys((*earlier.history, *former, *fact.history)))
    return replace(fact, history=history)


def unite(first: DurableFact, second: DurableFact) -> DurableFact:
    """One fact from two that say the same: ``first``'s wording, both provenances.

    The sources united, the latest time kept (a fact said again is fresh again); a fact the
    application gave stays ``given``; a fact its holder stated is theirs, whoever else said it.
    """
    times = [t for t in (first.said_at, second.said_at) if t is not None]
    return replace(
        first,
        sequences=tuple(sorted({*first.sequences, *second.sequences})),
        said_at=max(times, key=_instant) if times else None,
        source="given" if "given" in (first.source, second.source) else first.source,
        value=first.value or second.value,
        said_by=first.said_by if first.hearsay and second.hearsay else "",
    )


def later(candidate: DurableFact, current: DurableFact) -> bool:
    """True unless ``current`` was said after ``candidate`` (by time, then by sequence).

    Without times and sequences to compare, the candidate (the incoming fact) is the later.
    """
    if candidate.said_at is not None and current.said_at is not None:
        if _instant(candidate.said_at) != _instant(current.said_at):
            return _instant(candidate.said_at) > _instant(current.said_at)
    if not (candidate.sequences and current.sequences):
        return True
    return candidate.last_sequence >= current.last_sequence


def _instant(moment: datetime) -> datetime:
    """An aware time (a naive one read as UTC), so naive and aware times compare."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
