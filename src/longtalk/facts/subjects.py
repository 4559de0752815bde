"""Who a clause is about, when it is not the speaker alone: a relative, a named person, "we".

The cues read statements in the first person (``I am allergic to…``). A speaker also states
facts about the people they name or relate to (``my sister Ines is allergic to peanuts``,
``Tom is allergic to peanuts``, ``my mum lives in Leeds``) and about themselves and those
they live with (``we are both vegetarian``, ``our budget is…``). :func:`subjects` finds such
a subject where a clause starts and tells the clause again in the first person (``I am
allergic to peanuts``), so the same cues read it; :class:`Subject` says whose the fact is
and how its text names them. Pure string work.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from longtalk.facts.cue import name_ok
from longtalk.facts.cues_people import RELS

__all__ = ["Subject", "plural_verbs", "subjects"]

_CLAUSE_START = re.compile(
    r"^(?:(?:and|but|so|also|oh|plus|btw|anyway|by the way|oh and),? )?"
    r"|[,;:]\s+(?:(?:and|but|so|also|plus|and also|oh and)\s+)?|\s(?:and|but)\s+",
    re.IGNORECASE,
)
_PLURAL_RELATIONS = frozenset("parents grandparents".split())
_RELATIVE = rf"(?i:my) (?P<r>(?i:{RELS}))"
_NAME = r"(?-i:(?P<n>[A-Z][a-zà-ÿ-]+(?: [A-Z][a-zà-ÿ-]+)?))"
_SUBJECT = re.compile(
    rf"(?P<with>{_RELATIVE}(?:,? {_NAME},?)?|(?-i:(?P<wn>[A-Z][a-zà-ÿ-]+))) and I\b"
    r"|(?P<we>(?i:we|both of us|the two of us))\b"
    r"|(?P<our>(?i:our))\b"
    rf"|{_RELATIVE.replace('?P<r>', '?P<r2>')}(?:,? {_NAME.replace('?P<n>', '?P<n2>')},?)?"
    r"(?P<rs>'s)?"
    r"|(?-i:(?P<name>[A-Z][a-zà-ÿ-]+(?: [A-Z][a-zà-ÿ-]+)?))(?P<ns>'s)?(?= )"
)
_ADVERBS = (
    r"(?:(?:really|very|also|still|now|always|actually|totally|absolutely|just|definitely"
    r"|honestly|basically|mostly|both|all|never|no longer|usually|generally|even|too|already)"
    r" )*"
)
_VERB = re.compile(rf" (?P<a>{_ADVERBS})(?P<v>[a-z']+)\b")
_IS_AFTER = re.compile(
    r" (?:allergic|intolerant|vegan|vegetarian|pescatarian|from|originally|a|an|married"
    r"|engaged|single|retired|divorced|diabetic|\d)\b",
    re.IGNORECASE,
)
_HAS_AFTER = re.compile(r" (?:been|got)\b", re.IGNORECASE)
_MODALS = frozenset("can cannot will must should".split())
_SINGULAR_TO_FIRST = {"is": "am", "has": "have", "does": "do", "was": "was"}
_PLURAL_TO_FIRST = {"are": "am", "were": "was", "have": "have", "do": "do"}
_TO_PLURAL = {"is": "are", "has": "have", "does": "do", "was": "were"}


@dataclass(frozen=True, slots=True)
class Subject:
    """Whose a clause's facts are, and the clause told in the first person.

    ``holder`` is the person's name (None: the speaker); ``who`` how the fact's text names
    them, ``{h}`` standing for the speaker (``{h}'s sister Ines``, ``Tom``, ``{h} and
    family``); ``key`` prefixes the subject of a relative without a name (``mum`` makes
    ``mum:home``); ``plural`` says the text's verb agrees with several people; ``group``
    marks "we" (the speaker and others). ``start``/``end`` are the subject's span in the
    sentence and ``first`` the sentence with the clause in the first person from ``start``.
    """

    holder: str | None
    who: str
    key: str
    plural: bool
    group: bool
    start: int
    end: int
    first: str

    @property
    def named_company(self) -> bool:
        """True for ``Tom and I``, ``my husband and I``: a "we" whose others are named."""
        return self.group and self.who != "{h} and family"


def subjects(text: str, speaker: str) -> Iterator[Subject]:
    """The subjects of ``text``'s clauses other than ``I``, each with its clause retold."""
    for start in sorted({m.end() for m in _CLAUSE_START.finditer(text)}):
        match = _SUBJECT.match(text, start)
        if match is None or match.end() == match.start():
            continue
        subject = _subject(match, text, speaker)
        if subject is not None:
            yield subject


def _subject(m: re.Match[str], text: str, speaker: str) -> Subject | None:
    if m.group("with") is not None:
        return _with(m, text)
    if m.group("we") is not None:
        return _told(m, text, None, "{h} and family", "", plural=True, group=True)
    if m.group("our") is not None:
        return _owned(m, text, None, "{h} and family", "", plural=True, group=True)
    if m.group("r2") is not None:
        relation = " ".join(m.group("r2").lower().split())
        name = m.group("n2") or ""
        plural = relation.split()[-1] in _PLURAL_RELATIONS
        if name and name_ok(name):
            holder, who, key = name, f"{{h}}'s {relation} {name}", ""
        else:
            holder, who, key = None, f"{{h}}'s {relation}", relation.split()[-1]
        if m.group("rs"):
            return _owned(m, text, holder, who, key, plural=plural, group=False)
        return _told(m, text, holder, who, key, plural=plural, group=False)
    name = m.group("name")
    if not name_ok(name) or name.casefold() == speaker.casefold():
        return None
    if m.group("ns"):
        return _owned(m, text, name, name, "", plural=False, group=False)
    return _told(m, text, name, name, "", plural=False, group=False)


def _with(m: re.Match[str], text: str) -> Subject | None:
    """``Tom and I``, ``my husband and I``: the speaker and that person."""
    relation = " ".join((m.group("r") or "").lower().split())
    name = m.group("n") or m.group("wn") or ""
    if not name_ok(name) and not relation:
        return None
    if relation and name_ok(name):
        company = f"their {relation} {name}"
    else:
        company = f"their {relation}" if relation else name
    return _told(m, text, None, f"{{h}} and {company}", "", plural=True, group=True)


def _told(
    m: re.Match[str],
    text: str,
    holder: str | None,
    who: str,
    key: str,
    *,
    plural: bool,
    group: bool,
) -> Subject | None:
    """A subject followed by its verb: ``Tom is`` -> ``I am``, ``we live`` -> ``I live``."""
    verb = _VERB.match(text, m.end())
    if verb is None:
        return None
    first = _first_person(verb.group("v").lower(), plural=plural)
    if first is None:
        return None
    adverbs = re.sub(r"\b(?:both|all) ", "", verb.group("a"))
    rest = text[verb.end() :]
    if first == "am" and rest.lower().startswith((" both", " all ")):
        rest = re.sub(r"^ (?:both|all)\b", "", rest, flags=re.IGNORECASE)
    told = f"{text[: m.start()]}I {adverbs}{first}{rest}"
    return Subject(holder, who, key, plural, group, m.start(), m.end(), told)


def _owned(
    m: re.Match[str],
    text: str,
    holder: str | None,
    who: str,
    key: str,
    *,
    plural: bool,
    group: bool,
) -> Subject | None:
    """A possessive subject: ``Tom's birthday`` -> ``my birthday`` (``Tom's allergic``: is)."""
    rest = text[m.end() :]
    if m.group("our") is None:
        if _HAS_AFTER.match(rest):
            return Subject(
                holder,
                who,
                key,
                plural,
                group,
                m.start(),
                m.end(),
                f"{text[: m.start()]}I have{rest}",
            )
        if _IS_AFTER.match(rest):
            return Subject(
                holder,
                who,
                key,
                plural,
                group,
                m.start(),
                m.end(),
                f"{text[: m.start()]}I am{rest}",
            )
    if not rest.startswith(" ") or not re.match(r" [a-z]", rest):
        return None
    told = f"{text[: m.start()]}my{rest}"
    return Subject(holder, who, key, plural, group, m.start(), m.end(), told)


def _first_person(verb: str, *, plural: bool) -> str | None:
    """The first-person form of a subject's verb; None when it is not a present verb."""
    if verb in _MODALS:
        return verb
    if plural:
        if verb in _PLURAL_TO_FIRST:
            return _PLURAL_TO_FIRST[verb]
        return None if verb.endswith("s") or verb.endswith("ed") and verb != "moved" else verb
    if verb in _SINGULAR_TO_FIRST:
        return _SINGULAR_TO_FIRST[verb]
    if verb.endswith("ed") or verb in ("got", "quit", "turned", "became", "went", "grew"):
        return verb
    if len(verb) > 3 and verb.endswith("s") and not verb.endswith("ss"):
        return _base(verb)
    return None


def _base(verb: str) -> str:
    """``lives`` -> ``live``, ``watches`` -> ``watch``, ``carries`` -> ``carry``."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "oes")):
        return verb[:-2]
    return verb[:-1]


def plural_verbs(text: str) -> str:
    """A fact's text made to agree with several holders: ``{h} is`` -> ``{h} are``."""
    match = re.match(r"\{h\} (?P<v>[a-z]+)\b", text)
    if match is None:
        return text
    verb = match.group("v")
    if verb in _TO_PLURAL:
        plural = _TO_PLURAL[verb]
    elif len(verb) > 3 and verb.endswith("s") and not verb.endswith("ss"):
        plural = _base(verb)
    else:
        return text
    return f"{{h}} {plural}{text[match.end() :]}"
