"""Structured facts for the offline summarizer: topics, entities, decisions, questions, tastes.

Everything here is cue patterns and counting, deterministic and fast: keyphrases by a
RAKE-style score, typed entities from :mod:`longtalk.summary.offline_entities`, open
questions (closed once answered) from :mod:`longtalk.summary.offline_questions`, and
decisions / actions / preferences from first-person cue phrases, rewritten in the third
person and dated with their message's date when it has one. It favours precision: a
sentence that matches no cue is left to the narrative.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from longtalk.core.messages import Message, Role
from longtalk.summary.model import ConversationSummary, SummaryEntity, merge_entities
from longtalk.summary.offline_details import detail, is_ai_assistant
from longtalk.summary.offline_entities import best_kind, mentions
from longtalk.summary.offline_profiles import profiles
from longtalk.summary.offline_questions import open_questions
from longtalk.summary.offline_speech import reported
from longtalk.summary.offline_text import (
    STOPWORDS,
    Sentence,
    content_words,
    dated,
    normalize_spacing,
    third_person,
    upper_first,
)

__all__ = [
    "entities",
    "merge_first_names",
    "extract",
    "keyphrases",
    "parse_transcript",
    "participants",
    "preference_clause",
    "preferences",
]

MAX_ITEMS = 8
MAX_ENTITIES = 12
MAX_DETAIL_CHARS = 80

_NOT_TOPICS = frozenset(
    """want need like love hate think know feel hope plan prefer believe guess agree mean
    take make come tell ask call give try use find keep leave look help wish expect sounds
    sound seems seem told asked going went came made took gave found thought wanted needed
    maybe actually probably definitely exactly course else ever even still every another
    bit lot kind sort way yet whether per day days time wow cool awesome amazing cute nice
    glad shares share photo pic picture congrats totally super pretty making""".split()
)
_DECISION = re.compile(
    r"\b(?:(?:let's|let us|we'll|we will) (?:say|do|go|book|buy|take|have|meet|try|order"
    r"|visit|rent|stay|add|skip|move|change|cancel|use|pick|choose)\b"
    r"|i'll take|i will take|we've decided|we decided"
    r"|i've decided|i decided|decided to|agreed to|go with|settle on|we're going to"
    r"|i'm going to|i am going to|deal\b|i'll (?:book|buy|take|go|do|call|send|pay|meet))",
    re.IGNORECASE,
)
_ACTION = re.compile(
    r"\b(?:i|we)(?:'ve| have)? (?:already )?(?:booked|sent|ordered|bought|paid|scheduled"
    r"|called|emailed|created|updated|fixed|finished|signed|reserved|cancelled|canceled"
    r"|submitted|registered|installed|moved|changed|checked|looked up|found)\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(?:i (?:really |do |just |absolutely |also )?(?:prefer|like|love|hate|enjoy|dislike"
    r"|adore|can't stand)(?:s|d|ed)?\b(?!\s+(?:it|that|this|those|these|your|you|how|what"
    r"|when|the way|the idea|hearing|seeing|to hear|to see|is|are|was|were|has|had)\b)"
    r"|i (?:don't|do not|didn't) (?:like|enjoy|eat|drink)|i'd rather|i would rather"
    r"|i (?:can't|cannot|can not) (?:eat|drink|have|stand)|i'm (?:a |an )?(?:allergic|vegetarian"
    r"|vegan|lactose|big fan|huge fan|into)|i am (?:a |an )?(?:allergic|vegetarian|vegan)"
    r"|i get (?:seasick|carsick|airsick|migraines)"
    r"|(?:\b[A-Z][\w'’]+|\bwe|\bmy \w+) (?:is|are|'re)(?: both| all| also)? (?:a |an )?(?:allergic"
    r"|vegetarian|vegan|lactose|gluten|diabetic|pescatarian))",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(r"\bmy (?:all-time )?favou?rites?\b", re.IGNORECASE)
_CLAUSE_END = re.compile(
    r"[.;!?]|\s[-–—]\s|,\s(?:but|so|and i|which|because|do|did|what|how|have|is|are|should"
    r"|can|will|by the way|it|that|this|they|plus|especially)\b",
    re.I,
)
_CLAUSE_START = re.compile(r"[.;!?:]\s|\s[-–—]\s|,\s")
_ROLE_NAMES = frozenset("user assistant system tool ai bot".split())
_SPEAKER_LINE = re.compile(r"^\s*([^:\n]{1,40}?):\s*(.+)$")


def extract(
    messages: Sequence[Message],
    sentences: Sequence[Sentence],
    known: ConversationSummary | None = None,
) -> ConversationSummary:
    """Topics, entities and cue-pattern lists of one batch of messages.

    ``known`` is the summary so far: its people help type names in the new messages.
    """
    said = [s for s in sentences if not s.echo and not is_ai_assistant(s.speaker)]
    texts = [s.text for s in said or sentences]  # what the people talk about
    people = participants(messages, known)
    names = {w.casefold() for n in people for w in n.split()}
    return ConversationSummary(
        topics=tuple(t for t in keyphrases(texts, 5 + len(names)) if t not in names)[:5],
        entities=entities(messages, sentences, people),
        decisions=_cued(sentences, _DECISION),
        actions_taken=_cued(sentences, _ACTION, assistant=True),
        open_questions=open_questions(sentences, people, MAX_ITEMS),
        user_preferences=preferences(sentences),
    )


def participants(messages: Sequence[Message], known: ConversationSummary | None) -> list[str]:
    """Names known to be people: the speakers and the summary's persons."""
    names = [m.speaker() for m in messages if not m.is_tool and m.role != Role.SYSTEM]
    names += [e.name for e in known.entities if e.type == "person"] if known else []
    return list(dict.fromkeys(n for n in names if n and not n.startswith("#")))


def _cued(
    sentences: Sequence[Sentence], cue: re.Pattern[str], *, assistant: bool = False
) -> tuple[str, ...]:
    """Sentences matching ``cue`` (the AI assistant's only with ``assistant``), told."""
    found = []
    for sentence in sentences:
        if is_ai_assistant(sentence.speaker) and not assistant:
            continue  # the assistant's "let's recount" is not the user's decision
        if cue.search(sentence.text) and not sentence.text.rstrip().endswith("?"):
            told = _decided(third_person(sentence), sentence.speaker)
            if len(content_words(cue.sub("", told))) >= MIN_ITEM_WORDS:
                found.append(dated(_short(told), sentence.when))
    return tuple(found[:MAX_ITEMS])


MIN_ITEM_WORDS = 2
"""Content words (the speaker's name counts) a decision or action needs: not ``Agreed!``."""
_LETS = re.compile(r"^let's (?:do that:? |say |do (?=an? |the )|go with |book |take |have )", re.I)


def _decided(told: str, speaker: str) -> str:
    """``Maya: let's do a birthday lunch`` -> ``Maya decided on a birthday lunch``."""
    prefix = f"{speaker}: "
    if speaker and told.startswith(prefix) and _LETS.match(told[len(prefix) :]):
        return f"{speaker} decided on {_LETS.sub('', told[len(prefix) :])}"
    return told


def preferences(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """Likes, dislikes and constraints (``I love…``, ``I'm allergic to…``), told of the speaker."""
    found = []
    for sentence in sentences:
        clause = "" if is_ai_assistant(sentence.speaker) else preference_clause(sentence.text)
        if clause:
            told = reported(replace(sentence, text=clause))  # "we are…": "Maya says they are…"
            found.append(dated(_short(told), sentence.when))
    return tuple(dict.fromkeys(found))[:MAX_ITEMS]


def preference_clause(text: str) -> str:
    """The clause of ``text`` stating a preference, or ``""``."""
    text = normalize_spacing(text)
    match = _PREFERENCE.search(text)
    if match:
        start = match.start()
    elif favourite := _FAVOURITE.search(text):
        starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, favourite.start())]
        start = starts[-1] if starts else 0
    else:
        return ""
    end = _CLAUSE_END.search(text, match.end() if match else start + 1)
    stop = end.start() if end else len(text)
    clause = text[start:stop].strip(" ,")
    if match:  # "I love to." says nothing; "I'm vegan." does
        informative = bool(content_words(text[match.end() : stop])) or match.group(0)[-1] == "n"
    else:
        informative = len(content_words(clause)) >= 2
    if not informative:
        return ""
    return upper_first(clause) + "."


def keyphrases(texts: Iterable[str], limit: int = 5) -> tuple[str, ...]:
    """Recurring noun phrases (up to three words), most salient first.

    A topic is what a person would name: the words after a determiner or a possessive
    (``the library tickets``, ``our budget``, ``a birthday lunch``), never a verb or an
    adjective on its own (``add``, ``fits``, ``late``) nor a name (names are entities). A
    phrase and its parts count once per sentence; phrases that recur, and longer ones, rank
    higher. A phrase inside a better-ranked one is skipped.
    """
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        seen: set[tuple[str, ...]] = set()
        for run in _noun_runs(text):
            for size in (1, 2, 3):
                for start in range(len(run) - size + 1):
                    seen.add(tuple(run[start : start + size]))
        counts.update(seen)
    scored = {p: counts[p] * len(p) ** 0.5 for p in counts if counts[p] > 1 or len(counts) < 8}
    ranked = sorted(scored, key=lambda p: (-scored[p], -len(p), " ".join(p)))
    chosen: list[str] = []
    for phrase in ranked:
        text = " ".join(phrase)
        if any(f" {text} " in f" {c} " or f" {c} " in f" {text} " for c in chosen):
            continue
        chosen.append(text)
        if len(chosen) == limit:
            break
    return tuple(chosen)


_DETERMINERS = frozenset(
    """a an the my our your his her their its this that these those some any each every
    another no about for of with""".split()
)


def _noun_runs(text: str) -> list[list[str]]:
    """The content words after each determiner, up to three, stopping at a name."""
    runs: list[list[str]] = []
    run: list[str] | None = None
    for token in re.findall(r"[^\W\d_][\w'\-]*|[^\w\s]|\d+", normalize_spacing(text)):
        word = token.lower()
        if word in _DETERMINERS:
            run = []
            runs.append(run)
        elif run is not None and _topic_word(token, word):
            run.append(word)
        else:
            run = None
    return [r[:3] for r in runs if r and len(r) <= 3]


def _topic_word(token: str, word: str) -> bool:
    return (
        word.isalpha()
        and len(word) > 2
        and not token[:1].isupper()
        and word not in STOPWORDS
        and word not in _NOT_TOPICS
        and not word.endswith("ly")
    )


MAX_DETAILS = 3
"""Details one batch gives an entity (the first informative ones)."""


def entities(
    messages: Sequence[Message], sentences: Sequence[Sentence], people: Sequence[str] = ()
) -> tuple[SummaryEntity, ...]:
    """People, places, organisations and things mentioned, each with short clauses about it.

    Dates and amounts are never entities (they belong to what they date or cost); what the
    participants name ranks before what only the AI assistant suggested. A participant's
    details are their profile (:mod:`longtalk.summary.offline_profiles`): none while they
    said nothing of themselves.
    """
    profile = {e.name: e.details for e in profiles(sentences, people)}
    speakers = {m.speaker() for m in messages}
    first = [
        SummaryEntity(name=n, type="person", details=profile.get(n, ""))
        for n in people
        if n in speakers and n.casefold() not in _ROLE_NAMES
    ]
    speaking = {e.name.casefold() for e in first}  # their profile says what they said
    found = _mentioned(sentences, people)
    ranked = sorted(found, key=lambda key: -found[key].weight)[:MAX_ENTITIES]
    named = [
        SummaryEntity(
            name=found[key].name,
            type=best_kind(found[key].kinds),
            details="" if key in speaking else "; ".join(found[key].details),
        )
        for key in sorted(ranked, key=list(found).index)
    ]
    return merge_first_names(merge_entities([*first, *named]))


@dataclass(slots=True)
class _Named:
    """What a batch says of one name: its spelling, types, weight and details."""

    name: str
    kinds: list[str] = field(default_factory=list)
    weight: int = 0
    details: list[str] = field(default_factory=list)


def _mentioned(sentences: Sequence[Sentence], people: Sequence[str]) -> dict[str, _Named]:
    found: dict[str, _Named] = {}
    for sentence in sentences:
        for mention in mentions(normalize_spacing(sentence.text), people):
            if mention.kind in ("date", "amount") or nickname_of(mention.name, people):
                continue  # "Mel" is Melanie: her profile says what she said
            named = found.setdefault(mention.name.casefold(), _Named(mention.name))
            named.kinds.append(mention.kind)
            named.weight += 1 if is_ai_assistant(sentence.speaker) else 2
            if len(named.details) < MAX_DETAILS:
                said = detail(sentence, mention.name, people)
                if said and said not in named.details:
                    named.details.append(said)
    return found


def merge_first_names(entities: Sequence[SummaryEntity]) -> tuple[SummaryEntity, ...]:
    """``Ana`` and ``Ana Lima`` are one person when only one full name starts with ``Ana``."""
    people = [e for e in entities if e.type == "person"]
    full: dict[str, list[SummaryEntity]] = {}
    for entity in people:
        if " " in entity.name:
            full.setdefault(entity.name.split()[0].casefold(), []).append(entity)
    into = {
        e.name: full[e.name.casefold()][0]
        for e in people
        if " " not in e.name and len(full.get(e.name.casefold(), [])) == 1
    }
    if not into:
        return tuple(entities)
    merged = [
        SummaryEntity(name=into[e.name].name, type="person", details=e.details)
        if e.name in into
        else e
        for e in entities
    ]
    return merge_entities(merged)


def nickname_of(name: str, people: Sequence[str]) -> str | None:
    """The participant ``name`` is a short form of (``Mel``, ``Mell``: Melanie), if any."""
    short = name.casefold()
    if " " in short or len(short) < 3:
        return None
    stems = (short, short[:-1]) if short[-1:] == short[-2:-1] else (short,)
    for person in people:
        first = person.split()[0].casefold() if person.split() else ""
        if first != short and any(len(stem) >= 3 and first.startswith(stem) for stem in stems):
            return person
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_DETAIL_CHARS:
        return text
    cut = text[:MAX_DETAIL_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def parse_transcript(text: str) -> list[Message]:
    """Read ``Speaker: text`` lines into messages; other lines continue the previous one.

    Lines before the first speaker line (an instruction) are ignored. ``user`` / ``human``
    speakers are user messages, ``assistant`` / ``ai`` assistant messages, and any other
    name speaks as a named user.
    """
    messages: list[Message] = []
    for line in text.splitlines():
        match = _SPEAKER_LINE.match(line)
        if match and match.group(2).strip() and len(match.group(1).split()) <= 3:
            messages.append(_message(match.group(1).strip(), match.group(2).strip()))
        elif messages and line.strip():
            messages[-1] = messages[-1].with_content(f"{messages[-1].content} {line.strip()}")
    return messages


def _message(speaker: str, content: str) -> Message:
    lower = speaker.casefold()
    if lower in ("user", "human"):
        return Message(role=Role.USER, content=content)
    if lower in ("assistant", "ai", "bot"):
        return Message(role=Role.ASSISTANT, content=content)
    return Message(role=Role.USER, content=content, name=speaker)
