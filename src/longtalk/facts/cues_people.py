"""Cues of who the speaker is: identity, relations and possessions.

Name, birthday, age, home, origin, work and status (``identity``); relatives, their names
(``person:lena``), the homes and work of those without one (``relation``, keyed by the
relative: ``sister:home``); pets by name (``pet:biscuit``) and vehicles (``possession``).
What a named relative does is that person's fact (``my sister Lena moved to Rotterdam``:
Lena's home, see :mod:`longtalk.facts.subjects`), beside the relation that names them.
"""

from __future__ import annotations

import re

from longtalk.facts.cue import (
    DATE,
    NAME,
    NOT_OBJECTS,
    OCCUPATIONS,
    PLACE,
    Cue,
    Found,
    found,
    name_ok,
    pattern,
    x_group,
)
from longtalk.facts.phrases import head, slot, third_person_slot

__all__ = ["PEOPLE_CUES"]


RELS = (
    r"(?:older |younger |little |big |baby |twin |eldest |oldest |youngest |step-?|half-)?"
    r"(?:sister|brother|sis|bro|mom|mum|mother|dad|father|parents|son|daughter|wife|husband"
    r"|partner|boyfriend|girlfriend|fianc[eé]e?|grandma|grandmother|granny|grandpa|grandfather"
    r"|grandparents|aunt|auntie|uncle|cousin|niece|nephew|best friend|roommate|flatmate"
    r"|sibling|twin|boss|mother-in-law|father-in-law|sister-in-law|brother-in-law|godmother"
    r"|godfather|stepmom|stepdad)"
)


RELATIVE = rf"(?P<r>{RELS})"
PETS = (
    r"(?:dog|puppy|pup|cat|kitten|kitty|hamster|rabbit|bunny|parrot|budgie|bird|goldfish"
    r"|turtle|tortoise|snake|lizard|guinea pig|horse|pony|ferret|gecko|iguana|chinchilla"
    r"|rat|mouse|hedgehog|cockatiel|canary|pig|goat|chicken)s?"
)


def _name(m: re.Match[str], s: str) -> Found | None:
    name = m.group("n")
    if not name_ok(name):
        return None
    return found("identity", "name", name, f"{{h}}'s name is {name}.", m)


def _birthday(m: re.Match[str], s: str) -> Found | None:
    day = m.group("x")
    if not re.search(r"\d", day):
        return None
    return found("identity", "birthday", day, f"{{h}}'s birthday is on {day}.", m)


def _age(m: re.Match[str], s: str) -> Found | None:
    age = x_group(m)
    if not 3 <= int(age) <= 110:
        return None
    return found("identity", "age", age, f"{{h}} is {age} years old.", m)


def _home(m: re.Match[str], s: str) -> Found | None:
    place = m.group("x")
    if not name_ok(place.removeprefix("the ")):
        return None
    verb = "moved to" if "moved" in m.group(0).lower() else "lives in"
    return found("identity", "home", place, f"{{h}} {verb} {place}.", m)


def _origin(m: re.Match[str], s: str) -> Found | None:
    place = x_group(m)
    if not name_ok(place.removeprefix("the ")):
        return None
    return found("identity", "origin", place, f"{{h}} is from {place}.", m)


def _works_as(m: re.Match[str], s: str) -> Found | None:
    job = slot(s, m.end(), words=4)
    if not job or NOT_OBJECTS.match(job):
        return None
    article = "an" if job[:1].lower() in "aeiou" else "a"
    return found("identity", "work", job, f"{{h}} works as {article} {job}.", m)


def _works_at(m: re.Match[str], s: str) -> Found | None:
    place = m.group("x")
    if not name_ok(place.removeprefix("the ")):
        return None
    return found("identity", "work", place, f"{{h}} works at {place}.", m)


def _occupation(m: re.Match[str], s: str) -> Found | None:
    job = m.group("x").lower()
    rest = s[m.end() : m.end() + 12].lower()
    if rest.startswith((" at heart", "-in-training", " wannabe")):
        return None
    article = "an" if job[:1] in "aeiou" else "a"
    return found("identity", "work", job, f"{{h}} is {article} {job}.", m)


def _status(m: re.Match[str], s: str) -> Found | None:
    status = m.group("x").lower()
    return found("identity", "status", status, f"{{h}} is {status}.", m)


def _relative(m: re.Match[str]) -> tuple[str, str, str]:
    """(relation, name or "", key) of a relative's match."""
    relation = " ".join(m.group("r").lower().split())
    name = (m.groupdict().get("n") or "").removesuffix("'s")
    name = name if name_ok(name) else ""
    key = relation.split()[-1]
    return relation, name, f"{key}:{name.lower()}" if name else key


def _relative_home(m: re.Match[str], s: str) -> Found | None:
    relation, name, key = _relative(m)
    place = m.group("x")
    if not name_ok(place.removeprefix("the ")):
        return None
    said = m.group("v").lower()
    verb = (
        "is moving to"
        if "moving" in said or "will" in said
        else ("moved to" if "moved" in said else "lives in")
    )
    who = f"{{h}}'s {relation} {name}".rstrip()
    return found("relation", f"{key}:home", place, f"{who} {verb} {place}.", m)


def _relative_name(m: re.Match[str], s: str) -> Found | None:
    relation, name, key = _relative(m)
    if not name:
        return None
    subject = f"person:{name.casefold()}"  # as a summary's person entity is filed
    return found("relation", subject, relation, f"{{h}}'s {relation} is called {name}.", m)


def _relative_work(m: re.Match[str], s: str) -> Found | None:
    relation, name, key = _relative(m)
    job = m.group("x").lower()
    article = "an" if job[:1] in "aeiou" else "a"
    who = f"{{h}}'s {relation} {name}".rstrip()
    return found("relation", f"{key}:work", job, f"{who} is {article} {job}.", m)


def _family(m: re.Match[str], s: str) -> Found | None:
    count, who = m.group("k").lower(), m.group("r").lower()
    return found("relation", f"family:{head(who)}", count, f"{{h}} has {count} {who}.", m)


def _pet_name(m: re.Match[str], s: str) -> Found | None:
    name = m.group("n").removesuffix("'s")
    if not name_ok(name):
        return None
    pet = " ".join(m.group("p").lower().split())
    return found("possession", f"pet:{name.lower()}", pet, f"{{h}}'s {pet} is called {name}.", m)


def _pet_owned(m: re.Match[str], s: str) -> Found | None:
    count, pet = m.group("k").lower(), " ".join(m.group("p").lower().split())
    return found("possession", f"pets:{head(pet)}", count, f"{{h}} has {count} {pet}.", m)


def _drives(m: re.Match[str], s: str) -> Found | None:
    car = slot(s, m.end(), words=4)
    if not car or NOT_OBJECTS.match(car):
        return None
    return found("possession", "vehicle", car, f"{{h}} drives {third_person_slot(car)}.", m)


PEOPLE_CUES: tuple[Cue, ...] = (
    Cue(
        "name",
        re.compile(
            r"\b(?:[Mm]y name is|[Cc]all me|I go by) "
            + NAME
            + r"\b(?! (?:before|after|at|on|when|if|back|later|tomorrow))"
        ),
        _name,
    ),
    Cue(
        "birthday",
        pattern(rf"\b(?:my birthday is|my birthday falls|I was born) (?:on )?(?P<x>{DATE})"),
        _birthday,
    ),
    Cue(
        "age",
        pattern(
            r"\bI am (?P<x>\d{1,3}) (?:years old|years of age|yrs old|y/o)\b"
            r"|\bI (?:just )?turned (?P<x2>\d{1,3})\b(?! (?:am|pm|minutes|hours|days|weeks))"
        ),
        _age,
    ),
    Cue(
        "home",
        re.compile(
            r"\bI (?:live|am living|have lived|have been living|reside|am based"
            r"|(?:have )?(?:just |recently |finally )?moved) (?:here )?(?:in|to) " + PLACE
        ),
        _home,
    ),
    Cue(
        "home-of",
        re.compile(
            r"\b[Mm]y (?:flat|house|home|apartment|place|condo) is (?:in|located in|based in) "
            + PLACE
        ),
        _home,
    ),
    Cue(
        "origin",
        re.compile(
            r"\bI am (?:originally )?from "
            + PLACE
            + r"|\bI grew up in "
            + PLACE.replace("?P<x>", "?P<x2>")
        ),
        _origin,
    ),
    Cue("works-at", re.compile(r"\bI (?:work|am working) (?:at|for) " + PLACE), _works_at),
    Cue(
        "works-as",
        pattern(
            r"\bI (?:work|am working|(?:have )?(?:just |recently )?(?:started|got|landed|took"
            r"|accepted) (?:a |my |the )?(?:new )?(?:job|position|role)) as (?:an? )?"
        ),
        _works_as,
    ),
    Cue(
        "occupation",
        pattern(
            rf"\bI am (?:now |currently |still )?(?:an? |the )(?P<x>(?:[\w-]+ )?{OCCUPATIONS})\b"
            r"(?! (?:friend|mom|dad|parent|group|club|team|show|role|game|type|kind))"
        ),
        _occupation,
    ),
    Cue(
        "status",
        pattern(
            r"\bI am (?:now |happily |recently |newly |finally )?(?P<x>married|engaged|divorced"
            r"|single|widowed|retired|separated)\b(?! (?:to|from|for|in))"
        ),
        _status,
    ),
    Cue(
        "relative-home",
        re.compile(
            rf"\b[Mm]y {RELATIVE} (?P<v>lives|is living|is based|has lived|now lives|moved"
            rf"|just moved|has moved|has just moved|recently moved|is moving|will move|is|stays)"
            rf" (?:in|to|back to) {PLACE}",
            re.IGNORECASE,
        ),
        _relative_home,
    ),
    Cue(
        "relative-work",
        re.compile(
            rf"\b[Mm]y {RELATIVE} (?:works as"
            rf"|is) (?:an? )(?P<x>{OCCUPATIONS})\b",
            re.IGNORECASE,
        ),
        _relative_work,
    ),
    Cue(
        "relative-name",
        re.compile(
            rf"\b[Mm]y {RELATIVE}(?:'s name is| is called| is named"
            rf"|,? named|,? called|,(?= [A-Z]\w+,)|) {NAME}\b(?! and\b| &)"
        ),
        _relative_name,
    ),
    Cue(
        "family",
        pattern(
            r"\bI have (?P<k>an?|one|two|three|four|five|six|\d) (?P<r>kids|children|sons"
            r"|daughters|sisters|brothers|siblings|son|daughter|sister|brother|grandchildren"
            r"|grandkids|twins)\b"
        ),
        _family,
    ),
    Cue(
        "pet-name",
        re.compile(
            rf"\b(?:[Mm]y|[Oo]ur) (?:[\w-]+ ){{0,2}}?(?P<p>{PETS})(?:'s name is| is called"
            rf"| is named|,? named|,? called|,(?= [A-Z]\w+,)|) {NAME}\b(?! and\b| &)"
        ),
        _pet_name,
    ),
    Cue(
        "pet-adopted",
        re.compile(
            rf"\b(?:I|[Ww]e) (?:have|adopted|got|rescued|bought|took in|brought home|have got)"
            rf"(?: (?:a|an|this|two|my|our))?(?: [\w-]+){{0,3}}? (?P<p>{PETS})\b[^.!?]{{0,40}}?"
            rf"\b(?:(?:named|called|name|call)(?: (?:him|her|it|them))?) {NAME}\b"
        ),
        _pet_name,
    ),
    Cue(
        "pet-owned",
        pattern(rf"\bI have (?P<k>an?|one|two|three|four|five|\d) (?:[\w-]+ )?(?P<p>{PETS})\b"),
        _pet_owned,
    ),
    Cue("drives", pattern(r"\bI (?:drive|own|ride) (?=an? )"), _drives),
)
