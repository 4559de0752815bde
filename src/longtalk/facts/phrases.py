"""Phrase plumbing for the fact cues: spoken text normalised, slots cut, heads and values.

A cue finds where a fact starts (``I'm allergic to``); what it is about is the phrase that
follows, up to the end of its clause (a slot). Slots are short by design: a phrase of more
than a few words is a story, not a fact, and is left alone. Pure string work.
"""

from __future__ import annotations

import re

from longtalk.summary.offline_text import STOPWORDS, normalize_spacing

__all__ = [
    "head",
    "holder_name",
    "slot",
    "spoken",
    "third_person_slot",
    "value_of",
]

_CONTRACTIONS = (
    (r"\bI'm\b|\bim\b", "I am"),
    (r"\bI've\b|\bive\b", "I have"),
    (r"\bI'll\b", "I will"),
    (r"\bI'd\b", "I would"),
    (r"\bwe're\b", "we are"),
    (r"\bwe've\b", "we have"),
    (r"\bwe'll\b", "we will"),
    (r"\bwe'd\b", "we would"),
    (r"\bcan't\b|\bcant\b", "cannot"),
    (r"\bwon't\b", "will not"),
    (r"\b(do|does|did|is|are|was|were|has|have|had|would|could|should)n't\b", r"\1 not"),
    (r"\b(do|does|did|is|are|was|were|has|have|had|would|could|should)nt\b", r"\1 not"),
    (r"\b(it|that|there|what|who)'s\b", r"\1 is"),
    (r"\b(name|birthday|budget|limit|job|favou?rite)'s\b", r"\1 is"),
    (r"\bgonna\b", "going to"),
    (r"\bwanna\b", "want to"),
    (r"\bgotta\b", "have to"),
    (r"\bi\b", "I"),
)
_BOUNDARY = (
    r"[,.;:!?()\"“”\u2013\u2014]|\s-\s|\s(?:but|so|because|since|as|which|who|when|while"
    r"|though|although|if|unless|until|whereas|plus|lol|haha|cause|cuz|except|yet|whenever)\b"
)
_SINGLE_END = re.compile(_BOUNDARY + r"|\s(?:and|or|with|to|for|at|in|on|from)\b", re.I)
_LIST_END = re.compile(
    _BOUNDARY + r"|\s(?:and|or) (?:I|we|it|my|that|then|so|they|he|she|you|this|there|now"
    r"|also|just|still|even|the rest|everything)\b",
    re.IGNORECASE,
)
_LONG_END = re.compile(_BOUNDARY, re.IGNORECASE)
_DANGLING = re.compile(
    r"\b(?:a|an|the|such a|so|very|really)\s+(?:safe|warm|cozy|cosy|quiet|calm|happy|healthy"
    r"|loving|welcoming|fun|positive|simple|small|big|new|good|great|nice|strong|kind|open"
    r"|clean|bright|fresh|quick|easy|long|short|old|young|[\w-]+(?:ful|ive|ous|able|ible))$",
    re.IGNORECASE,
)
_MORE_ADJECTIVES = re.compile(
    r",\s*(?!(?:and|or|but|so|which|who|that|this|it|they|he|she|we|you|I|my|especially|too"
    r"|like|because|though|also|just|even|then|now|not|as|plus|and|the|a|an|with|for|in|on"
    r"|at|to|from|of|by|when|while|if|lol|haha|really|very|so|such|what|how|there|here)\b)"
    r"[a-z][\w-]*\s+[a-z][\w-]*"
)
_TRAILING = re.compile(
    r"(?:\s+(?:too|as well|a lot|so much|very much|anymore|any more|at all|now|these days"
    r"|lately|already|though|really|either|honestly|tbh|right now|for sure|haha|lol|ever"
    r"|for years|for a while|for ages|for now|again|please|thanks|thank you|recently"
    r"|last (?:week|month|year|weekend|summer|winter|spring|fall|autumn)|a while ago"
    r"|(?:a few|a couple of|some|\d+|two|three|four|five) (?:days|weeks|months|years) ago))+$",
    re.IGNORECASE,
)
_FIRST_PERSON = (
    (r"\bmyself\b", "themselves"),
    (r"\bourselves\b", "themselves"),
    (r"\bmy\b", "their"),
    (r"\bmine\b", "theirs"),
    (r"\bour\b", "their"),
    (r"\bme\b", "them"),
    (r"\bus\b", "them"),
    (r"\bI am\b", "they are"),
    (r"\bI\b", "they"),
    (r"\bwe\b", "they"),
    (r"\byours\b", "the other person's"),
    (r"\byour\b", "the other person's"),
    (r"\byou\b", "the other person"),
)
_WORD = re.compile(r"[\w'’-]+")
_LIST_SPLIT = re.compile(r",\s*|\s+(?:and|or|&)\s+", re.IGNORECASE)
_PREPOSITION = re.compile(
    r"\s(?:in|on|at|with|for|from|to|of|about|during|by|into|over|under|near|around)\s",
    re.IGNORECASE,
)
_NOT_HEADS = STOPWORDS | frozenset(
    "most some all any kind sort type lot lots bit few several little big much".split()
)


def spoken(text: str) -> str:
    """One sentence as the cues read it.

    Spacing fixed, curly quotes straight, contractions spelled out (``I'm`` -> ``I am``,
    ``don't`` -> ``do not``).
    """
    text = normalize_spacing(text.replace("’", "'").replace("‘", "'"))
    for pattern, replacement in _CONTRACTIONS:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


def slot(text: str, start: int, *, words: int = 6, kind: str = "single") -> str:
    """The phrase from ``start`` to the end of its clause; ``""`` when empty or too long.

    ``kind`` ``single`` stops at ``and``/``or`` and prepositions, ``list`` lets ``and``/``or``
    join items (``nuts and shellfish``), ``long`` runs to the clause's end.
    """
    end = {"single": _SINGLE_END, "list": _LIST_END, "long": _LONG_END}[kind]
    rest = text[start:]
    stop = end.search(rest)
    phrase = rest[: stop.start()] if stop else rest
    if stop and _DANGLING.search(phrase) and _MORE_ADJECTIVES.match(rest, stop.start()):
        # "creating a safe, inviting place": the comma split a noun phrase; take it whole
        after = rest[stop.start() + 1 :]
        more = _SINGLE_END.search(after)
        phrase = f"{phrase},{after[: more.start()] if more else after}"
    phrase = _TRAILING.sub("", phrase.strip()).strip(" '")
    count = len(_WORD.findall(phrase))
    return phrase if 0 < count <= words else ""


def third_person_slot(phrase: str) -> str:
    """A slot's first-person words told of the holder: ``my motorbike`` -> ``their motorbike``."""
    for pattern, replacement in _FIRST_PERSON:
        phrase = re.sub(pattern, replacement, phrase)
    return phrase


def head(phrase: str) -> str:
    """The key word of a phrase: the last content word of its first item, singular, lower.

    ``most reptiles and animals with fur`` -> ``reptile``; ``the used car`` -> ``car``;
    ``warm colours in the kitchen`` -> ``colour`` (a preposition ends the item).
    """
    first = _LIST_SPLIT.split(phrase.strip(), maxsplit=1)[0]
    first = _PREPOSITION.split(first, maxsplit=1)[0]  # "hiking in the Alps": hiking
    content = [w.lower() for w in _WORD.findall(first) if w.lower() not in _NOT_HEADS]
    return singular(content[-1]) if content else ""


def singular(word: str) -> str:
    """A crude singular: ``peanuts`` -> ``peanut``, ``berries`` -> ``berry``; ``glass`` kept."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        return word[:-1]
    return word


def value_of(phrase: str) -> str:
    """A phrase normalised for comparing: lower case, no articles, numbers without commas."""
    text = re.sub(r"(?<=\d)[,\s](?=\d{3}\b)", "", phrase.casefold())
    words = [w for w in _WORD.findall(text) if w not in ("a", "an", "the", "their", "some")]
    return " ".join(words)


def holder_name(holder: str) -> str:
    """How a fact's text names its holder: the name, or ``The user`` for the user role."""
    return "The user" if holder.casefold() == "user" else holder
