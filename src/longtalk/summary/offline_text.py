"""Text plumbing for the offline summarizer: sentences, filler, and third-person rewriting.

A memory summary is read later by a model that was not in the conversation, so first and
second person are resolved to the speakers: ``Alice: I moved to Lyon`` becomes ``Alice moved
to Lyon``. The rewriting is a small, predictable rule set (pronouns, contractions and the
agreement of a few common verbs), not a parser; anything it does not recognise is kept as
written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "NOBODY",
    "STOPWORDS",
    "Sentence",
    "content_words",
    "dated",
    "day_label",
    "is_acknowledgement",
    "inflect",
    "is_filler",
    "lower_first",
    "pronouns_resolved",
    "asks",
    "clause_at",
    "normalize_spacing",
    "resolve_pronouns",
    "split_sentences",
    "strip_interjections",
    "third_person",
    "upper_first",
    "words",
]

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have
    haven't having he he'd he'll he's her here here's hers herself him himself his how how's i
    i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
    myself no nor not of off on once only or other ought our ours ourselves out over own same
    shan't she she'd she'll she's should shouldn't so some such than that that's the their
    theirs them themselves then there there's these they they'd they'll they're they've this
    those through to too under until up very was wasn't we we'd we'll we're we've were weren't
    what what's when when's where where's which while who who's whom why why's with won't would
    wouldn't you you'd you'll you're you've your yours yourself yourselves yes yeah ok okay oh
    well just really also please thanks thank hello hi hey sure right um uh ah mm hmm will
    shall may might must get got go going know think like want see let say said one two
    much many lot something anything nothing thing things good great fine now""".split()
)

_ABBREVIATIONS = ("Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Jr", "Sr", "vs", "etc", "e.g", "i.e")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9#])")
_WORD = re.compile(r"[^\W_#][\w#'’\-]*|#[\w'\-]+")  # Unicode letters: Nazaré, Łódź
_FILLER = re.compile(
    r"^(?:(?:hi|hello|hey|good (?:morning|afternoon|evening|night)|bye|goodbye|see you"
    r"|thanks?(?: you)?(?: (?:very|so) much)?|you'?re welcome|ok(?:ay)?|yes|yeah|no|sure"
    r"|right|well|oh|ah|um|uh|hmm|great|fine|good|cool|nice|i see|me too|of course"
    r"|not at all|never mind|excuse me|sorry|pardon)\b[\s,.!?]*)+",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of the conversation, with who said it, to whom, and the day (if known)."""

    text: str
    speaker: str = ""
    addressee: str = ""
    turn: int = 0
    when: str = ""
    echo: bool = False
    """An acknowledgement that repeats what the other person said (``Noted: vegetarian``)."""


def day_label(moment: datetime | None) -> str:
    """A compact date, ``8 May 2023``; ``""`` without one."""
    return f"{moment.day} {moment:%B %Y}" if moment else ""


def dated(text: str, when: str) -> str:
    """``text`` with ``(when)`` before its final punctuation; unchanged without a date."""
    if not when or f"({when})" in text:
        return text
    stripped = text.rstrip()
    end = len(stripped.rstrip(".!?"))
    return f"{stripped[:end]} ({when}){stripped[end:]}"


def normalize_spacing(text: str) -> str:
    """Undo tokenised spacing (``don ' t``, ``word ,``) and collapse whitespace."""
    text = re.sub(r"(\w) ' (\w)", r"\1'\2", text)
    text = re.sub(r"(\w) '(s|t|m|d|ll|re|ve)\b", r"\1'\2", text, flags=re.IGNORECASE)
    text = re.sub(r"'(Ve|Ll|Re|S|T|M|D)\b", lambda m: "'" + m.group(1).lower(), text)
    text = re.sub(r"\s+([,.!?;:])", r"\1", text)
    return " ".join(text.split())


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; common abbreviations (Mr., Dr., e.g.) do not end one."""
    text = normalize_spacing(text)
    if not text:
        return []
    pieces = _SENTENCE_END.split(text)
    merged: list[str] = []
    for piece in pieces:
        if merged and merged[-1].rstrip(".").split(" ")[-1] in _ABBREVIATIONS:
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return [s.strip() for s in merged if s.strip()]


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [w.lower().strip("'-") for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, not one letter."""
    return [w for w in words(text) if len(w) > 1 and w not in STOPWORDS]


def is_filler(text: str) -> bool:
    """True for greetings, thanks, acknowledgements and other turns with little content."""
    rest = _FILLER.sub("", text.strip())
    return len(content_words(rest)) < 2


_ACKNOWLEDGE = re.compile(
    r"^(?:noted|got it|understood|great choice|good (?:choice|decision|idea|call|split|plan)"
    r"|done|added|perfect|exactly|all set|decision noted|sounds (?:good|great)|will do"
    r"|no problem|of course|certainly|absolutely|great|good|nice|excellent|wonderful|okay|ok"
    r"|sure|right|yes|that works|that's (?:right|correct|fine|comfortable|great)|well within)\b",
    re.IGNORECASE,
)


def is_acknowledgement(text: str, previous: str) -> bool:
    """True for ``Noted: vegetarian, and a peanut allergy for Tom`` after the user said so.

    An acknowledgement opens with a cue (``noted``, ``done``, ``great choice``...) and then
    says little, or mostly repeats the ``previous`` message.
    """
    match = _ACKNOWLEDGE.match(text.strip())
    if not match:
        return False
    said = {w[:5] for w in content_words(text[match.end() :])}
    if len(said) < 3:
        return True
    heard = {w[:5] for w in content_words(previous)}
    return len(said & heard) >= len(said) / 2


def strip_interjections(text: str) -> str:
    """Drop leading acknowledgements (``Well, yes, ...``) from a sentence."""
    rest = _FILLER.sub("", text.strip())
    return upper_first(rest) if rest else text.strip()


# --- third-person rewriting -------------------------------------------------------------

_AGREE = {
    "am": "is",
    "are": "is",
    "were": "was",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
    "'m": "is",
}
_VERBS = frozenset(
    """want need like love hate think know feel hope plan prefer believe guess agree mean
    live work study play eat drink buy pay take make go come see hear say tell ask call get
    give try use find keep leave look help wish expect remember forget understand suppose
    promise decide suggest recommend enjoy miss own run read write watch wonder worry tend
    start stop bring send meet visit move stay change lose win spend save learn teach show
    cook clean drive fly travel sell rent book order cancel finish begin seem look sound
    smoke sleep""".split()
)
_AUXILIARIES = frozenset(
    """do does did don't doesn't didn't will would can could should may might must shall let
    make made help helps to have has had can't won't wouldn't couldn't shouldn't why""".split()
)
_NO_S = frozenset("just really also still never always already only often usually".split())


NOBODY = "the other person"
"""Who a sentence is said to when its listener is not known."""


def third_person(sentence: Sentence) -> str:
    """Rewrite a spoken sentence in the third person, naming speaker and addressee.

    Without a speaker the sentence is returned unchanged (already narrative). A sentence
    that does not start with its speaker is attributed: ``Bob asks: ...`` for a question,
    ``Bob: ...`` otherwise.
    """
    text = strip_interjections(sentence.text)
    if not sentence.speaker:
        return text
    me, you = sentence.speaker, sentence.addressee or NOBODY
    text = _resolve_pronouns(text, me, you)
    if text.startswith(me) or text.startswith(you):
        return text
    body = lower_first(text)
    if text.rstrip().endswith("?"):
        return f"{me} asks: {body}"
    return f"{me}: {body}"


def resolve_pronouns(sentence: Sentence) -> str:
    """The sentence with ``I`` / ``you`` resolved to the speakers, without attribution."""
    text = strip_interjections(sentence.text)
    if not sentence.speaker:
        return text
    return _resolve_pronouns(text, sentence.speaker, sentence.addressee or NOBODY)


_SUBJECT_VERB = (
    r"(?:[A-Z][\w'’]+|I|he|she|they|we|it)\s+(?:is|are|was|were|has|have|had|will|would|can"
    r"|does|doesn't|don't|isn't|loves?|likes?|wants?|needs?|hates?|prefers?|lives?|works?)\b"
)
_CLAUSE_BREAK = re.compile(
    r"[;:!?]\s|\.\s|\s[-–—]\s|[()]|,\s(?=(?:but|so|and then|which|because|while|though)\b)"
    rf"|,\s(?:and\s)?(?={_SUBJECT_VERB})"
    r"|,\s(?=(?:is|are|do|does|did|can|could|should|would|will|what|how|where|when|why|who)\s)"
)
_ASIDE = re.compile(r",?\s(?:by the way|to be honest|of course|I think|I guess)\b,?", re.I)


def clause_at(text: str, start: int, end: int) -> str:
    """The clause of ``text`` around ``text[start:end]``, stripped of outer punctuation.

    Clauses end at ``;:!?.``, dashes and brackets, at a comma before ``but`` / ``so`` /
    ``which``..., before a new subject and verb (``, Tom loves``) or a question (``, is``).
    """
    cuts = [0, *(m.end() for m in _CLAUSE_BREAK.finditer(text)), len(text) + 1]
    begin = max(c for c in cuts if c <= start)
    stop = min((m.start() for m in _CLAUSE_BREAK.finditer(text, end)), default=len(text))
    return _ASIDE.sub("", text[begin:stop]).strip(" ,.;:!?\"'“”‘’")


def asks(text: str, clause: str) -> bool:
    """True when ``clause`` (a clause of ``text``) ends in a question mark there."""
    at = text.find(clause)
    return at >= 0 and text[at + len(clause) :].lstrip(" \"'”’")[:1] == "?"


def pronouns_resolved(text: str, me: str, you: str) -> str:
    """``text`` with ``I`` / ``you`` (and their forms) named ``me`` / ``you``, verbs agreeing."""
    return _resolve_pronouns(text, me, you)


def _resolve_pronouns(text: str, me: str, you: str) -> str:
    rules: tuple[tuple[str, str], ...] = (
        (r"\bI'm\b|\bI am\b", f"{me} is"),
        (r"\bI've\b", f"{me} has"),
        (r"\bI'll\b", f"{me} will"),
        (r"\bI'd\b", f"{me} would"),
        (r"\bI\b", me),
        (r"\b[Mm]y\b|\b[Mm]ine\b", f"{me}'s"),
        (r"\b[Mm]yself\b|\b[Yy]ourself\b", "themselves"),
        (r"\bme\b", me),
        (r"\b[Yy]ou're\b|\b[Yy]ou are\b", f"{you} is"),
        (r"\b[Yy]ou've\b", f"{you} has"),
        (r"\b[Yy]ou'll\b", f"{you} will"),
        (r"\b[Yy]ou'd\b", f"{you} would"),
        (r"\b[Yy]our(?:s)?\b", f"{you}'s"),
        (r"\b[Yy]ou\b", you),
    )
    for pattern, replacement in rules:
        text = re.sub(pattern, replacement.replace("\\", "\\\\"), text)
    for name in {me, you}:
        text = _agree(text, name)
    return text


def _agree(text: str, name: str) -> str:
    """Make the verb after ``name`` agree with a third-person singular subject."""
    pattern = re.compile(r"([\w']+ )?" + re.escape(name) + r" (\w+(?:'\w+)?)(?: (\w+))?")

    def fix(match: re.Match[str]) -> str:
        before, verb, after = match.group(1) or "", match.group(2), match.group(3)
        if before.strip().lower() in _AUXILIARIES:
            return match.group(0)
        tail = f" {after}" if after else ""
        lower = verb.lower()
        name_ = before + name
        if lower in _AGREE:
            return f"{name_} {_AGREE[lower]}{tail}"
        if lower in _NO_S and after and after.lower() in _AGREE:
            return f"{name_} {verb} {_AGREE[after.lower()]}"
        if lower in _NO_S and after and after.lower() in _VERBS:
            return f"{name_} {verb} {inflect(after)}"
        if lower in _VERBS:
            return f"{name_} {inflect(verb)}{tail}"
        return match.group(0)

    return pattern.sub(fix, text)


def inflect(verb: str) -> str:
    """The third-person singular of ``verb``: ``go`` -> ``goes``, ``try`` -> ``tries``."""
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def upper_first(text: str) -> str:
    """``text`` with its first letter upper-cased (a sentence's start)."""
    return text[:1].upper() + text[1:]


def lower_first(text: str) -> str:
    """Lower-case a first word that is a function word (``We``, ``The``), nothing else."""
    first = text.split(" ", 1)[0]
    if first.lower() in STOPWORDS and first != "I" and not first.isupper():
        return text[:1].lower() + text[1:]
    return text
