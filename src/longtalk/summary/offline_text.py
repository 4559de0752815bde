"""Text plumbing for the offline summary and titles: sentences, words, filler, dates.

Nothing here rewrites what was said: the offline summary quotes it.
"""

from __future__ import annotations

import re
from datetime import datetime

__all__ = [
    "STOPWORDS",
    "content_words",
    "day_label",
    "is_filler",
    "normalize_spacing",
    "split_sentences",
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


def day_label(moment: datetime | None) -> str:
    """A compact date, ``8 May 2023``; ``""`` without one."""
    return f"{moment.day} {moment:%B %Y}" if moment else ""


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


def upper_first(text: str) -> str:
    """``text`` with its first letter upper-cased (a sentence's start)."""
    return text[:1].upper() + text[1:]
