"""Structured facts for the offline summarizer: topics, entities, decisions, questions, tastes.

Everything here is cue patterns and counting, deterministic and fast: keyphrases by a
RAKE-style score, entities from capitalisation, titles, prepositions, dates and numbers,
and decisions / actions / open questions / preferences from first-person cue phrases,
rewritten in the third person. It favours precision: a sentence that matches no cue is
left to the narrative.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from memstrata.core.messages import Message, Role
from memstrata.summary.model import ConversationSummary, SummaryEntity, merge_entities
from memstrata.summary.offline_text import (
    STOPWORDS,
    Sentence,
    normalize_spacing,
    third_person,
)

__all__ = ["entities", "extract", "keyphrases", "parse_transcript"]

MAX_ITEMS = 8
MAX_ENTITIES = 12
MAX_DETAIL_CHARS = 80

_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_DATE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?"
    rf"|(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})(?:,? \d{{4}})?"
    rf"|(?:next |last |this )?(?:{_DAYS})|(?:next|last|this) (?:week|month|year|weekend)"
    rf"|tomorrow|tonight|yesterday|\d{{1,2}}(?::\d{{2}})? ?(?:[ap]\.?m\.?|o'clock)"
    rf"|\d{{1,2}}:\d{{2}}|(?:in |since )(?:19|20)\d{{2}})\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"(?:[$€£¥] ?\d[\d,]*(?:\.\d+)?(?: ?(?:k|m|million|billion|thousand))?"
    r"|\b\d[\d,]*(?:\.\d+)? ?(?:%|percent|dollars?|euros?|pounds?|yuan|yen|kg|km|miles?"
    r"|meters?|hours?|minutes?|days?|weeks?|months?|years?|people|rooms?|nights?|items?))",
    re.IGNORECASE,
)
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Professor)\.? [A-Z][a-z]+(?: [A-Z][a-z]+)?")
_CAPITALISED = re.compile(
    r"\b[A-Z][a-zA-Z0-9&\-]*(?:'s)?"
    r"(?: (?:(?:de|des|du|la|le|of|van|von|di|da|del) )?(?:[A-Z][a-zA-Z0-9&\-]*|\d+[a-z]?))*"
)
_PLACE_WORDS = re.compile(
    r"\b(?:Hotel|Restaurant|Cafe|Street|St|Road|Avenue|Park|Airport|Station|Museum|Square"
    r"|Bridge|Lake|River|Mountain|Beach|Hospital|University|School|City|Center|Centre)\b"
)
_PLACE_BEFORE = re.compile(r"\b(?:in|at|to|from|near|visit|visiting|around)\s$", re.IGNORECASE)
_PERSON_BEFORE = re.compile(
    r"(?:\b(?:hey|hi|hello|dear|thanks|named|called|sister|brother|mother|father|mom|dad"
    r"|wife|husband|son|daughter|friend|boss|colleague|manager|partner|uncle|aunt"
    r"|cousin|teacher|doctor)\s|,\s)$",
    re.I,
)
_NOT_NAMES = frozenset(
    "I The A An And But So Or If It This That These Those What When Where Why How Who Which "
    "Yes No Ok Okay Oh Well Hi Hey Hello Thanks Thank Please Sure Let Do Does Did Is Are Was "
    "Can Could Would Should Will My Your We You They He She There Here Then Now Also Just "
    "Maybe Sorry Good Great Really Actually Anyway Right Not Dear Mr Mrs Ms Dr".split()
)

_NOT_TOPICS = frozenset(
    """want need like love hate think know feel hope plan prefer believe guess agree mean
    take make come tell ask call give try use find keep leave look help wish expect sounds
    sound seems seem told asked going went came made took gave found thought wanted needed
    maybe actually probably definitely exactly course else ever even still every another
    bit lot kind sort way yet whether per day days time""".split()
)
_DECISION = re.compile(
    r"\b(?:let's|let us|we'll|we will|i'll take|i will take|we've decided|we decided"
    r"|i've decided|i decided|decided to|agreed|go with|settle on|we're going to"
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
    r"\b(?:i (?:really |do |don't |do not |would )?(?:prefer|like|love|hate|enjoy|dislike"
    r"|can't stand|rather)|i'd (?:rather|prefer|like)|my favou?rite|i'm (?:allergic|vegetarian"
    r"|vegan|into)|i am (?:allergic|vegetarian|vegan)|i always|i never|i usually)\b",
    re.IGNORECASE,
)
_OPEN = re.compile(
    r"\b(?:not sure|haven't decided|have not decided|still need to|need to figure out"
    r"|what about|should (?:i|we)|i wonder|don't know (?:if|whether|what|how|where|when))\b",
    re.IGNORECASE,
)
_SPEAKER_LINE = re.compile(r"^\s*([^:\n]{1,40}?):\s*(.+)$")


def extract(messages: Sequence[Message], sentences: Sequence[Sentence]) -> ConversationSummary:
    """Topics, entities and cue-pattern lists of one batch of messages."""
    texts = [s.text for s in sentences]
    return ConversationSummary(
        topics=keyphrases(texts),
        entities=entities(messages, sentences),
        decisions=_cued(sentences, _DECISION),
        actions_taken=_cued(sentences, _ACTION),
        open_questions=_open_questions(sentences),
        user_preferences=_cued(sentences, _PREFERENCE, user_only=True),
    )


def _cued(
    sentences: Sequence[Sentence], cue: re.Pattern[str], *, user_only: bool = False
) -> tuple[str, ...]:
    found = []
    for sentence in sentences:
        if user_only and _is_assistant(sentence.speaker):
            continue
        if cue.search(sentence.text) and not sentence.text.rstrip().endswith("?"):
            found.append(_short(third_person(sentence)))
    return tuple(found[:MAX_ITEMS])


def _open_questions(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    found = [_short(third_person(s)) for s in sentences if _OPEN.search(s.text)]
    if sentences and sentences[-1].text.rstrip().endswith("?"):
        found.append(_short(third_person(sentences[-1])))
    return tuple(dict.fromkeys(found))[:MAX_ITEMS]


def _is_assistant(speaker: str) -> bool:
    return speaker.casefold() in ("assistant", "ai", "bot", "system")


def keyphrases(texts: Iterable[str], limit: int = 5) -> tuple[str, ...]:
    """Recurring phrases (runs of up to three content words), most salient first.

    A phrase counts once per sentence; phrases that recur, and longer ones, rank higher;
    common verbs are not topics. A phrase inside a better-ranked one is skipped.
    """
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        seen: set[tuple[str, ...]] = set()
        for run in _content_runs(text):
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


def _content_runs(text: str) -> list[list[str]]:
    runs: list[list[str]] = [[]]
    for token in re.findall(r"[A-Za-z][A-Za-z'\-]*|[^\sA-Za-z]", normalize_spacing(text)):
        word = token.lower()
        if word.isalpha() and len(word) > 2 and word not in STOPWORDS and word not in _NOT_TOPICS:
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def entities(
    messages: Sequence[Message], sentences: Sequence[Sentence]
) -> tuple[SummaryEntity, ...]:
    """People, places, products, dates and numbers mentioned, each with where it came up."""
    participants = [
        SummaryEntity(name=name, type="person", details="participant")
        for name in dict.fromkeys(m.name for m in messages if m.name and not m.name.startswith("#"))
    ]
    first: dict[str, SummaryEntity] = {}
    mentions: Counter[str] = Counter()
    for sentence in sentences:
        for name, kind in _mentions(sentence.text):
            key = name.casefold()
            mentions[key] += 1
            if key not in first:  # one detail per entity: where it first came up
                first[key] = SummaryEntity(
                    name=name, type=kind, details=_short(third_person(sentence))
                )
    ranked = sorted(first, key=lambda key: -mentions[key])[:MAX_ENTITIES]
    return merge_entities(
        [*participants, *(first[key] for key in sorted(ranked, key=list(first).index))]
    )


def _mentions(text: str) -> list[tuple[str, str]]:
    text = normalize_spacing(text)
    mentions: list[tuple[str, str]] = []
    for match in _DATE.finditer(text):
        mentions.append((match.group(0), "date"))
    for match in _NUMBER.finditer(text):
        mentions.append((match.group(0).strip(), "number"))
    for match in _TITLE.finditer(text):
        mentions.append((match.group(0), "person"))
    taken = {m for m, _ in mentions}
    for match in _CAPITALISED.finditer(text):
        name = _trim_name(match.group(0))
        if not name or any(name in t or t in name for t in taken):
            continue
        at_start = not text[: match.start()].strip() or text[: match.start()].rstrip()[-1] in ".!?"
        kind = _kind(text[: match.start()], name)
        if at_start and kind == "other":
            continue
        mentions.append((name, kind))
        taken.add(name)
    return mentions


def _trim_name(name: str) -> str:
    name = name.removesuffix("'s")
    parts = name.split(" ")
    while parts and parts[0] in _NOT_NAMES:
        parts = parts[1:]
    name = " ".join(parts)
    while parts and parts[-1].islower():
        parts = parts[:-1]
    name = " ".join(parts)
    if not name or _DATE.fullmatch(name) or len(name) < 2 or name.startswith("I'"):
        return ""
    return name


def _kind(before: str, name: str) -> str:
    if re.search(r"\d", name):
        return "product"
    if _PLACE_WORDS.search(name) or _PLACE_BEFORE.search(before):
        return "place"
    if _PERSON_BEFORE.search(before):
        return "person"
    return "other"


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
