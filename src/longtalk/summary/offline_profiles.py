"""Participant profiles for the offline summarizer: what each person says of themselves, by day.

A memory is asked about people ("What books has Tim read?", "Where has Melanie camped?"), and
the turns that answer share little wording with the question, so a summary that keeps each
participant's own facts together is worth more than another sentence of narrative. For every
speaker and day, the phrases of the sentences they say in the first person (``I``, ``my``,
``we``...) are counted (once per sentence; the most repeated, proper names and longer phrases
first), and the first-person clause that holds the most of them, per word, told without the
speaker, becomes one dated part of the person's details: ``signed up for a pottery class with
kids (8 May 2023)``; a person reads a clause where a list of phrases was a puzzle.
Counting only, deterministic; assistants get no profile.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from longtalk.summary.model import SummaryEntity
from longtalk.summary.offline_entities import NOT_NAMES
from longtalk.summary.offline_text import (
    STOPWORDS,
    Sentence,
    asks,
    clause_at,
    normalize_spacing,
    resolve_pronouns,
)

__all__ = [
    "CLAUSES_PER_DAY",
    "PHRASES_PER_DAY",
    "profile_clauses",
    "profile_phrases",
    "profiles",
    "self_clauses",
]

PHRASES_PER_DAY = 2
"""Phrases a profile clause is chosen by, per clause kept."""
CLAUSES_PER_DAY = 1
"""Clauses kept per person and day."""
MAX_CLAUSE_WORDS = 8
MAX_PHRASE_WORDS = 3
_LEADING = re.compile(
    r"^(?:(?:but|so|and|then|also|because|while|though|or|actually|just|like|plus)\b[\s,]*)+",
    re.IGNORECASE,
)
_COPULA = re.compile(r"^(?:is|are|was|were|am)\s+", re.IGNORECASE)

_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|myself|we|we're|we've|our|us)\b", re.IGNORECASE
)
_SELF_SUBJECT = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|my|we|we're|we've|our)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*|[^\w\s]|\d+")
_CLITIC = re.compile(r"(?:'ll|n't|'re|'ve|'d|'m|-)$")
_ASSISTANTS = frozenset("assistant ai bot system tool".split())
_NOT_FACTS = STOPWORDS | frozenset(
    """want need love hate think feel felt hope plan believe guess agree mean take make come
    tell ask call give try use find keep leave look help wish expect sounds sound seems seem
    told asked went came made took gave found thought wanted needed maybe actually probably
    definitely exactly course else ever even still every another bit kind sort way yet
    whether per day days time wow cool awesome amazing cute nice glad shares share photo pic
    picture congrats totally super pretty making agree congratulations hear talk talking chat
    catch bye cheers care appreciate happy excited proud lately recently today yesterday
    tomorrow week weeks month months year years ago back new old little big fun hard stuff
    reminds means meant whole always never often lots awesome true important others people
    everyone someone thank thanks gives give helps help makes keeps brings gets feels looks
    seems accept finding check almost without around beyond anyway though although unless
    lots truly totally super stuff things thing part parts best worst lot able sure last next
    ones mine bet kinda gonna wanna""".split()
)


def profiles(
    sentences: Sequence[Sentence], people: Collection[str], per_day: int | None = None
) -> tuple[SummaryEntity, ...]:
    """One person entity per speaker with a profile: details are dated short clauses.

    ``per_day`` clauses per person and day (default :data:`CLAUSES_PER_DAY`).
    """
    per_day = CLAUSES_PER_DAY if per_day is None else per_day
    names = {part.casefold() for name in people for part in name.split()}
    by_speaker: dict[str, dict[str, list[Sentence]]] = {}
    for sentence in sentences:
        speaker = sentence.speaker
        if not speaker or speaker.casefold() in _ASSISTANTS:
            continue
        if _FIRST_PERSON.search(sentence.text):
            days = by_speaker.setdefault(speaker, {})
            days.setdefault(sentence.when, []).append(sentence)
    found = []
    for speaker, days in by_speaker.items():
        parts = []
        for day, said in days.items():
            clauses = profile_clauses(said, names | {speaker.casefold()}, per_day)
            if clauses:
                joined = ", ".join(clauses)
                parts.append(f"{joined} ({day})" if day else joined)
        if parts:
            found.append(SummaryEntity(name=speaker, type="person", details="; ".join(parts)))
    return tuple(found)


def profile_clauses(said: Sequence[Sentence], names: Collection[str], limit: int) -> list[str]:
    """The ``limit`` clauses a speaker says of themselves that best hold their key phrases.

    The phrases are the ones they repeat most (:func:`profile_phrases`); a clause scores by
    the phrases it holds per word and is told without the speaker (``allergic to latex``).
    """
    phrases = profile_phrases([s.text for s in said], names, limit * 3)
    weight = {p.casefold(): len(phrases) - rank for rank, p in enumerate(phrases)}
    scored: dict[str, tuple[float, int]] = {}
    for order, clause in enumerate(c for s in said for c in self_clauses(s)):
        lower = clause.casefold()
        hits = sum(w for p, w in weight.items() if p in lower)
        if hits and clause not in scored:
            scored[clause] = (hits / len(clause.split()) ** 0.5, order)
    best = sorted(scored, key=lambda c: (-scored[c][0], scored[c][1]))[:limit]
    return sorted(best, key=lambda c: scored[c][1])


def self_clauses(sentence: Sentence) -> list[str]:
    """The clauses of ``sentence`` in the first person, told without naming the speaker.

    ``I'm allergic to latex`` -> ``allergic to latex``, ``my sister lives in Porto`` ->
    ``sister lives in Porto``. Questions are not facts about the speaker.
    """
    text = normalize_spacing(sentence.text)
    clauses: list[str] = []
    for match in _SELF_SUBJECT.finditer(text):
        clause = clause_at(text, match.start(), match.end())
        begin = text.rfind(clause, 0, match.start() + len(clause))
        if not clause or begin < 0 or asks(text, clause):
            continue
        said = text[match.start() : begin + len(clause)]  # from the speaker on: "got hurt"
        if said and said not in clauses:
            clauses.append(said)
    told = [_of_speaker(c, sentence) for c in clauses]
    return [t for t in told if len(t.split()) >= 2]


def _of_speaker(clause: str, sentence: Sentence) -> str:
    me = sentence.speaker
    text = resolve_pronouns(Sentence(clause, me, sentence.addressee))
    text = _LEADING.sub("", text)
    subject = rf"{re.escape(me)}'s|{re.escape(me)}|we're|we've|we'll|we'd|we|our"
    text = re.sub(rf"^(?:{subject})\s+", "", text, flags=re.I)
    text = re.sub(rf"\b{re.escape(me)}'s\s+", "", text)  # own: "with my kids" -> "with kids"
    text = _COPULA.sub("", _LEADING.sub("", text))
    words = text.split()
    if len(words) > MAX_CLAUSE_WORDS:
        words = words[:MAX_CLAUSE_WORDS]
        while words and words[-1].casefold() in STOPWORDS:
            words.pop()
    return " ".join(words).strip(" ,;:")


def profile_phrases(texts: Sequence[str], names: Collection[str], limit: int) -> list[str]:
    """The ``limit`` phrases the texts repeat most (names and longer phrases first on ties)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update({" ".join(run[-MAX_PHRASE_WORDS:]) for run in _runs(text, names)})
    ranked = sorted(
        counts,
        key=lambda p: (-counts[p] - 0.5 * p[:1].isupper() - 0.3 * p.count(" "), p.casefold()),
    )
    return ranked[:limit]


def _runs(text: str, names: Collection[str]) -> list[list[str]]:
    """Runs of consecutive fact words; names (capitalised, not first) keep their capitals."""
    runs: list[list[str]] = [[]]
    for index, token in enumerate(_TOKEN.findall(normalize_spacing(text))):
        word = token.lower().replace("’", "'")
        word = word[:-2] if word.endswith("'s") else word
        name = token[:1].isupper() and index > 0
        if _fact_word(token, word, names):
            runs[-1].append(_possessive_free(token) if name else word)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def _possessive_free(token: str) -> str:
    return token[:-2] if token.endswith(("'s", "’s")) else token


def _fact_word(token: str, word: str, names: Collection[str]) -> bool:
    if not token[:1].isalpha() or len(word) <= 2 or word in _NOT_FACTS or word in names:
        return False
    if _CLITIC.search(word) or (word.endswith("ed") and len(word) > 4):
        return False  # a clitic's stem, or a past tense (told, not what)
    return not (token[:1].isupper() and token in NOT_NAMES)
