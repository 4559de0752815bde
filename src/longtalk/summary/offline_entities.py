"""Named mentions for the offline summarizer: Unicode-aware names, typed by cues.

A name is a run of capitalised words (any script: ``Belém``, ``Łódź``, ``São Paulo``),
optionally joined by particles (``Cliffs of Moher``). Its type is one of ``person``,
``place``, ``organisation``, ``date``, ``amount`` or ``thing``, decided by cues in this
order: months, weekdays and date phrases are dates (never a place or a person), numbers with
a unit or currency amounts; an organisation suffix
(``Inc``, ``University``, ``Bank``...) makes an organisation; a place suffix or a known
place makes a place; a participant, a known first name, a title or a kinship word before,
``said`` / ``told`` after, or a greeting around it makes a person; a preposition before
(``in``, ``to``, ``from``...) makes a place; anything else is a thing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from longtalk.summary.offline_names import FIRST_NAMES, PLACES

__all__ = ["DATE", "NOT_NAMES", "Mention", "best_kind", "mentions"]

_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
DATE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?"
    rf"|(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})(?:,? \d{{4}})?"
    rf"|(?:early|mid|late|the end of|the start of) (?:{_MONTHS}|the (?:week|month|year))"
    rf"|(?:next |last |this )?(?:{_DAYS})|(?:next|last|this) (?:week|month|year|weekend"
    rf"|summer|winter|spring|fall|autumn|{_MONTHS})"
    rf"|tomorrow|tonight|yesterday|\d{{1,2}}(?::\d{{2}})? ?(?:[ap]\.?m\.?|o'clock)"
    rf"|\d{{1,2}}:\d{{2}}|(?:in |since )(?:19|20)\d{{2}})\b",
    re.IGNORECASE,
)
_CALENDAR = re.compile(rf"(?:{_MONTHS.split('|Jan')[0]}|{_DAYS})s?(?: \d{{1,4}})?")
_NUMBER = re.compile(
    r"(?:[$€£¥] ?\d[\d,]*(?:\.\d+)?(?: ?(?:k|m|million|billion|thousand))?"
    r"|\b\d[\d,]*(?:\.\d+)? ?(?:%|percent|dollars?|euros?|pounds?|yuan|yen|kg|km|miles?"
    r"|meters?|hours?|minutes?|days?|weeks?|months?|years?|people|rooms?|nights?|items?))",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\W_][\w'’&\-]*|[^\w\s]")
_PARTICLES = frozenset("of de da do dos das du des la le van von di del der y".split())
NOT_NAMES = frozenset(
    """I I'm I'll I've I'd The A An And But So Or If It It's This That These Those What When
    Where Why How Who Which Yes No Ok OK Okay Oh Well Hi Hey Hello Thanks Thank Please Sure Let
    Let's Do Does Did Is Are Was Can Could Would Should Will My Your We You They He She There
    Here Then Now Also Just Maybe Sorry Good Great Really Actually Anyway Right Not Dear Mr Mrs
    Ms Dr Wow Cool Awesome Nice Congrats Congratulations Yeah Yep Yup Nope Bye Glad Love Oops
    Haha Lol Omg Btw Totally Definitely Absolutely Sounds Been Had Have Has Got Gotta Our Their
    His Her Its Me Us Them Any Some All Every Each Last Next Since After Before Once While
    Woohoo Yay Ah Aw Aww Ugh Hmm Um Uh Alright Okey Same Anything Something Everything
    Tue Tues Wed Thu Thur Thurs Fri""".split()
)
_ORG_WORDS = frozenset(
    """Inc Ltd LLC Corp Corporation Co Company University College Bank Club Foundation
    Association Institute Group Agency Society Academy School Team FC Church Ministry
    Council Committee Labs Technologies Industries Partners Studio Press Records Network
    Organization Organisation Charity Union League Party Department""".split()
)
_PLACE_WORDS = frozenset(
    """Street St Road Rd Avenue Ave Boulevard Lane Park Airport Station Museum Square Bridge
    Lake River Mountain Mountains Mount Beach Falls Island Islands Coast Bay Valley Hotel
    Restaurant Cafe Café Tower Castle City County State Province Hospital Cliffs Canyon
    Forest Garden Gardens Harbour Harbor Trail Village Town Market Mall Plaza Palace
    Cathedral Stadium Arena Zoo""".split()
)
_TITLES = frozenset("Mr Mrs Ms Miss Dr Prof Professor Sir Madam Aunt Uncle".split())
_PERSON_BEFORE = re.compile(
    r"\b(?:hey|hi|hello|dear|thanks|thank you|congrats|congratulations|bye|named|by|wow|oh"
    r"|yeah|yes|cool|great|nice|awesome|sorry|sure|ok|okay|yep|well|haha|kid|baby|coach"
    r"|friends|go)[,!]?\s$",
    re.IGNORECASE,
)
_KIN_BEFORE = re.compile(
    r"\b(?:sister|brother|mother|father|mom|mum|dad|wife|husband|son|daughter"
    r"|friend|boss|colleague|partner|uncle|aunt|cousin|gf|bf|girlfriend|boyfriend|grandma"
    r"|grandpa|neighbou?r|Mr|Mrs|Ms|Dr|Prof)\.?,?\s$",
    re.IGNORECASE,
)
_PERSON_AFTER = re.compile(
    r"^(?:\s(?:said|says|told|tells|asked|asks|replied|thinks|thought|and I\b|and me\b)"
    r"|'s\s(?:mom|mum|dad|mother|father|wife|husband|kids?|son|daughter|sister|brother"
    r"|birthday|family|friend|boyfriend|girlfriend|parents)\b)",
    re.IGNORECASE,
)
_PLACE_BEFORE = re.compile(
    r"\b(?:in|at|to|from|near|visit|visiting|visited|around|across|into|towards)\s(?:the\s)?$",
    re.IGNORECASE,
)
_MODAL_NEXT = re.compile(r"^\s(?:I|we|you|he|she|they|it|be)\b", re.IGNORECASE)
_PRONOUNS = frozenset("I I'm I'll I've I'd".split())
_SEPARATOR = re.compile(r"(?:,|\sand|\sor|\s&)\s$")
_PRIORITY = ("date", "amount", "organisation", "person", "place", "thing")


@dataclass(frozen=True, slots=True)
class Mention:
    """A name found in a sentence, its type and where it starts."""

    name: str
    kind: str
    start: int = 0


def mentions(text: str, people: Collection[str] = ()) -> list[Mention]:
    """Dates, amounts and names in ``text``; ``people`` are names known to be persons.

    A nationality before a noun (``Asian restaurants``) is not a name; a known name with a
    count after it (``Lisbon 4``) is the name alone; an owner is its own name
    (``Lisbon's Bairro Alto``: ``Lisbon`` and ``Bairro Alto``).
    """
    found = [Mention(m.group(0), "date", m.start()) for m in DATE.finditer(text)]
    found += [Mention(m.group(0).strip(), "amount", m.start()) for m in _NUMBER.finditer(text)]
    spans = [(m.start, m.start + len(m.name)) for m in found]
    known = {p.casefold() for p in people}
    for start, end in _name_spans(text):
        if any(start < e and s < end for s, e in spans):
            continue
        end = _without_count(text, start, end, known)
        name = text[start:end]
        kind = _kind(text[:start], name, text[end:], known)
        if kind == "thing" and _sentence_initial(text, start) and " " not in name:
            continue
        if kind in ("thing", "place") and _adjective(name, text[end:]):
            continue
        found.append(Mention(name, kind, start))
    return sorted(found, key=lambda m: m.start)


_TALLY = re.compile(r"\b[A-Z][\w'’\-]* \d+\s*[,:;–-]")


def _without_count(text: str, start: int, end: int, people: Collection[str]) -> int:
    """``Lisbon 4`` (four nights in Lisbon) is Lisbon: the end of the name without the count.

    A name loses a trailing count when it is a known name or one entry of a tally
    (``Lisbon 4, Ericeira 3, Coimbra 2``).
    """
    base, _, last = text[start:end].rpartition(" ")
    if not (base and last.isdigit()):
        return end
    known = base in PLACES or base in FIRST_NAMES or base.casefold() in people
    return start + len(base) if known or len(_TALLY.findall(text)) >= 2 else end


_DEMONYM = re.compile(r"(?:ian|ean|can|ese|ish|ic)$")


def _adjective(name: str, after: str) -> bool:
    """``Asian restaurants``, ``Portuguese food``: a nationality before a noun, not a name."""
    if " " in name or name in FIRST_NAMES or name in PLACES:
        return False
    return bool(_DEMONYM.search(name)) and bool(re.match(r"\s[a-z]", after))


def _name_spans(text: str) -> Iterable[tuple[int, int]]:
    """Start and end of each run of capitalised words, trimmed of non-name words."""
    run: list[re.Match[str]] = []
    for token in [*_TOKEN.finditer(text), None]:
        word = token.group(0) if token else ""
        name_like = _capitalised(word) and word not in _PRONOUNS
        if token and (name_like or (run and _joins(word, text, token.end()))):
            run.append(token)
            if not word.endswith(("'s", "’s")):
                continue
            token = None  # "Lisbon's Bairro Alto": the owner is a name, the rest another
        span = _trim(run, text)
        if span:
            yield span
        run = []


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word[:1].isalpha()


def _joins(word: str, text: str, end: int) -> bool:
    """Particles and numbers continue a name (``Cliffs of Moher``, ``Game 7``)."""
    if word.isdigit():
        return True
    rest = text[end:].lstrip()
    return word in _PARTICLES and _capitalised(rest[:1])


def _trim(run: list[re.Match[str]], text: str) -> tuple[int, int] | None:
    words = list(run)
    if words and _sentence_initial(text, words[0].start()) and _common(words[0].group(0)):
        words.pop(0)
    while words and (words[0].group(0) in NOT_NAMES or not _capitalised(words[0].group(0))):
        words.pop(0)
    while words and not _capitalised(words[-1].group(0)) and not words[-1].group(0).isdigit():
        words.pop()
    if not words:
        return None
    start, end = words[0].start(), words[-1].end()
    name = text[start:end]
    for suffix in ("'s", "’s", "'", "’"):
        if name.endswith(suffix):
            end -= len(suffix)
            break
    if end - start < 2 or text[start:end] in NOT_NAMES:
        return None
    if text[start:end] == "May" and _MODAL_NEXT.match(text[end:]):
        return None
    return start, end


def _common(word: str) -> bool:
    """A sentence-initial word that is an ordinary word, not a name (``Adding``, ``Sadly``)."""
    return word.lower().endswith(("ing", "ly", "ed")) and word not in PLACES


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \"'“‘(")
    return not before or before[-1] in ".!?:;-–—"


def _kind(before: str, name: str, after: str, people: Collection[str]) -> str:
    """The type of ``name`` given the text before and after it."""
    parts = name.split()
    if _CALENDAR.fullmatch(name):
        return "date"
    if parts[0] in _TITLES or _KIN_BEFORE.search(before):
        return "person"
    if any(p in _ORG_WORDS for p in parts[1:]) or (len(parts) == 1 and name in _ORG_WORDS):
        return "organisation"
    if parts[-1] in _PLACE_WORDS or name in PLACES:
        return "place"
    if _is_person(before, name, after, people):
        return "person"
    if _PLACE_BEFORE.search(_uncoordinated(before)) and not name.isupper():
        return "place"  # an acronym after "in" is more often a group (LGBTQ) than a place
    return "thing"


def _is_person(before: str, name: str, after: str, people: Collection[str]) -> bool:
    first = name.split()[0]
    if name.casefold() in people or first.casefold() in people:
        return True
    if first in FIRST_NAMES and not re.search(r"\d", name):
        return True
    return bool(_PERSON_BEFORE.search(before) or _PERSON_AFTER.match(after))


def _uncoordinated(before: str) -> str:
    """``to Lisbon, Porto and `` -> ``to ``: a list shares the cue before its first item."""
    while match := _SEPARATOR.search(before):
        words = before[: match.start()].split(" ")
        count = 0
        while words and _capitalised(words[-1]) and words[-1] not in NOT_NAMES:
            words.pop()
            count += 1
        if not count:
            break
        before = " ".join(words) + (" " if words else "")
    return before


def best_kind(kinds: Iterable[str]) -> str:
    """One type from several mentions: the most frequent specific one (ties by priority)."""
    counts = Counter(k for k in kinds if k != "thing")
    if not counts:
        return "thing"
    for never_a_name in ("date", "amount"):
        if never_a_name in counts:
            return never_a_name
    return max(counts, key=lambda k: (counts[k], -_PRIORITY.index(k)))
