"""Cues of constraints: allergies, diets, calling hours and budgets.

What must be respected whatever the conversation is about: an allergy is keyed by its
allergen (``allergy:shellfish``), a diet by ``diet``, calling hours by ``calls``, a budget
by what it is for (``budget:car``), so a new budget replaces the old.
"""

from __future__ import annotations

import re

from longtalk.facts.cue import (
    ADV,
    NOT_OBJECTS,
    TRANSIENT,
    Cue,
    Found,
    found,
    pattern,
    x_group,
)
from longtalk.facts.phrases import head, slot, third_person_slot

__all__ = ["CONSTRAINT_CUES"]


DIETS = (
    r"vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant-based|teetotal(?:er)?"
    r"|keto|paleo|gluten-free|dairy-free|lactose-free|sugar-free|halal|kosher|raw vegan"
)


AMOUNT = (
    r"(?:[$€£¥]\s?\d[\d,.]*(?:\s?(?:k|m|grand|thousand|million))?"
    r"|\d[\d,.]*\s?(?:k|grand|thousand|million)?\s?(?:dollars|euros?|pounds|bucks|usd|eur"
    r"|gbp|francs|yen|kr|sek|nok|dkk|czk|pln)\b|\d[\d,.]*\s?(?:k|grand|thousand)\b"
    r"|\d{1,3}(?:,\d{3})+|\d{3,})"
)


_NOT_ALLERGENS = frozenset(
    """ monday tuesday wednesday thursday friday saturday sunday morning mornings work
    homework exercise people drama nonsense stupidity effort commitment adulting math
    responsibility chores mondays""".split()
)


_PURCHASES = re.compile(
    r"\b(?:car|house|flat|apartment|home|rent|wedding|trip|holiday|vacation|honeymoon|laptop"
    r"|computer|phone|bike|bicycle|motorbike|motorcycle|camera|tv|sofa|couch|kitchen"
    r"|renovation|gift|present|dress|ring|tuition|vehicle|boat|guitar|piano|watch|furniture"
    r"|party|van|truck|suv|scooter|tickets?|hotel|flight|garden|roof|bathroom)s?\b",
    re.IGNORECASE,
)


def _allergy(m: re.Match[str], s: str) -> Found | None:
    thing = slot(s, m.end(), words=6, kind="list")
    if not thing or NOT_OBJECTS.match(thing) or head(thing) in _NOT_ALLERGENS:
        return None
    text = f"{{h}} is allergic to {third_person_slot(thing)}."
    return found("constraint", f"allergy:{head(thing)}", head(thing), text, m)


def _allergy_noun(m: re.Match[str], s: str) -> Found | None:
    thing = m.group("x").strip()
    if not head(thing) or thing.lower() in ("the", "bad", "terrible", "my", "an", "a"):
        return None
    return found(
        "constraint", f"allergy:{head(thing)}", head(thing), f"{{h}} has a {thing} allergy.", m
    )


def _intolerant(m: re.Match[str], s: str) -> Found | None:
    thing = m.group("x") or slot(s, m.end(), words=4, kind="list")
    if not thing or not head(thing):
        return None
    text = f"{{h}} is intolerant to {third_person_slot(thing)}."
    return found("constraint", f"allergy:{head(thing)}", head(thing), text, m)


def _condition(m: re.Match[str], s: str) -> Found | None:
    what = x_group(m).lower()
    text = f"{{h}} is {what}." if what.endswith("ic") else f"{{h}} has {what}."
    return found("constraint", f"health:{head(what)}", what, text, m)


def _sickness(m: re.Match[str], s: str) -> Found | None:
    what = x_group(m).lower()
    if TRANSIENT.search(s):
        return None  # "I get seasick today": a moment, not a trait
    if m.group("x2") or what == "claustrophobic":
        text = f"{{h}} is {what}."
    elif what.endswith("sick"):
        text = f"{{h}} gets {what}."
    else:
        text = f"{{h}} suffers from {what}."
    return found("constraint", f"health:{head(what)}", what, text, m)


def _cannot_eat(m: re.Match[str], s: str) -> Found | None:
    food = slot(s, m.end(), words=5, kind="list")
    if not food or NOT_OBJECTS.match(food) or food.lower().startswith(("much", "more", "any")):
        return None
    verb = m.group("v").lower()
    text = f"{{h}} cannot {verb} {third_person_slot(food)}."
    return found("constraint", f"diet:no-{head(food)}", head(food), text, m)


def _diet(m: re.Match[str], s: str) -> Found | None:
    diet = m.group("x").lower()
    return found("constraint", "diet", diet, f"{{h}} is {diet}.", m)


def _diet_named(m: re.Match[str], s: str) -> Found | None:
    diet = m.group("x").strip().lower()
    if diet in ("strict", "new", "healthy", "healthier", "special", "good"):
        return found("constraint", "diet", diet, f"{{h}} is on a {diet} diet.", m)
    return found("constraint", "diet", diet, f"{{h}} is on a {diet} diet.", m)


def _no_eat(m: re.Match[str], s: str) -> Found | None:
    food = slot(s, m.end(), words=4, kind="list")
    if not food or NOT_OBJECTS.match(food) or food.lower().startswith(("much", "a lot", "enough")):
        return None
    verb = m.group("v").lower()
    text = f"{{h}} does not {verb} {third_person_slot(food)}."
    return found("constraint", f"diet:no-{head(food)}", head(food), text, m)


def _quit(m: re.Match[str], s: str) -> Found | None:
    habit = m.group("x").lower()
    return found("constraint", f"habit:{habit}", "quit", f"{{h}} quit {habit}.", m)


def _hours(m: re.Match[str], s: str) -> Found | None:
    when = slot(s, m.start("x"), words=6, kind="long")
    if not when or TRANSIENT.search(when):
        return None
    if m.group("neg"):
        text = f"{{h}} does not want to be called {when}."
    else:
        text = f"{{h}} can be called {when}."
    return found("constraint", "calls", when, text, m)


def _best_time(m: re.Match[str], s: str) -> Found | None:
    when = slot(s, m.end(), words=6, kind="long")
    if not when or TRANSIENT.search(when):
        return None
    return found("constraint", "calls", when, f"The best time to reach {{h}} is {when}.", m)


def _available(m: re.Match[str], s: str) -> Found | None:
    when = slot(s, m.start("x"), words=6, kind="long")
    if not when or TRANSIENT.search(when):
        return None
    return found("constraint", "availability", when, f"{{h}} is only available {when}.", m)


def _shift(m: re.Match[str], s: str) -> Found | None:
    if TRANSIENT.search(s[m.end() : m.end() + 30]):
        return None
    shift = m.group("x").lower()
    return found("constraint", "work:hours", shift, f"{{h}} works {shift}.", m)


def _budget(m: re.Match[str], s: str) -> Found | None:
    amount = m.group("a").strip()
    if not re.search(r"\d", amount) or _PRICE.match(s, m.end()):
        return None  # "$80 per unit" is a price, not a budget
    thing = (m.groupdict().get("z") or "").strip()
    if not thing:  # "for the car", said after the amount, or a purchase the sentence names
        after = _FOR_PURCHASE.match(s, m.end())
        near = after or _PURCHASES.search(_LEFT_OUT.sub("", s))
        thing = near.group(0) if near else ""
    key = head(thing) if thing else ""
    subject = f"budget:{key}" if key else "budget"
    target = f" for the {key}" if key else ""
    spent = f"{_approximately(s[: m.start('a')])}{amount}{_excluding(s[m.end() :])}"
    return found("constraint", subject, amount, f"{{h}}'s budget{target} is {spent}.", m)


def _approximately(before: str) -> str:
    """How the amount was bounded: ``around 3,500``, ``at most 3,500`` (``more than`` too)."""
    said = _BOUND.search(before)
    if said is None:
        return ""
    word = said.group(0).strip().lower()
    return f"{word} " if word in ("about", "around", "roughly", "up to") else "at most "


def _excluding(after: str) -> str:
    """What the budget leaves out: ``, flights excluded`` -> ``, excluding flights``."""
    said = re.match(rf"(?:[^.;!?,]*,)? ?{_LEFT_OUT.pattern}", after, re.IGNORECASE)
    if said is None:
        return ""
    return f", excluding {third_person_slot(said.group('e') or said.group('e2'))}"


_PRICE = re.compile(
    r" (?:per|a|an|each) (?:unit|item|piece|kilo|kg|pound|litre|liter|share|copy|ticket)\b",
    re.IGNORECASE,
)
_BOUND = re.compile(
    r"\b(?:about|around|roughly|(?<!went )(?<!gone )(?<!goes )(?<!go )up to|at most|max"
    r"|maximum|a maximum of|no more than|more than|over|above|beyond) $",
    re.IGNORECASE,
)
_LEFT_OUT = re.compile(
    r"(?:(?P<e>(?:the )?[\w-]+) (?:excluded|not included)\b"
    r"|\b(?:excluding|not including|except(?: for)?|exclusive of) (?P<e2>(?:the )?[\w-]+))",
    re.IGNORECASE,
)
_FOR_PURCHASE = re.compile(
    rf" (?:for|on|toward|towards) (?:the |a |an |my |our |their )?{_PURCHASES.pattern}",
    re.IGNORECASE,
)


_HOURS_VERB = r"(?:call|ring|phone|text|message|contact|bother|reach|call or text)"


_TIME_START = (
    r"(?:before|after|past|between|from|until|on (?:weekdays|weekends|sundays|saturdays"
    r"|mondays|work days)|in the (?:mornings?|evenings?|afternoons?)|during (?:the day|work"
    r"|lunch|work hours|office hours)|at night|at work|early|late)"
)


CONSTRAINT_CUES: tuple[Cue, ...] = (
    Cue("allergy", pattern(rf"\bI am {ADV}allergic to\b"), _allergy),
    Cue(
        "allergy-noun",
        pattern(
            r"\b(?:I have|I have got|I got|I suffer from|my) (?:an? )?(?:(?:severe|bad|serious"
            r"|mild|terrible|life-threatening|deadly) )?(?P<x>[\w-]+(?: [\w-]+)?) allerg(?:y|ies)\b"
        ),
        _allergy_noun,
    ),
    Cue(
        "intolerant",
        pattern(
            rf"\bI am {ADV}(?:(?P<x>lactose|gluten|dairy|wheat|fructose|histamine|soy|egg)"
            r"[ -]intolerant\b|intolerant (?:to|of)\b)"
        ),
        _intolerant,
    ),
    Cue(
        "condition",
        pattern(
            r"\bI (?:have|have got|was diagnosed with|live with) (?P<x>celiac(?: disease)?"
            r"|coeliac(?: disease)?|type [12] diabetes|diabetes|epilepsy|asthma|crohn's"
            r"|ibs|migraines|a nut allergy)\b|\bI am (?P<x2>diabetic|epileptic|asthmatic)\b"
        ),
        _condition,
    ),
    Cue(
        "sickness",
        pattern(
            r"\bI (?:get|suffer from|have|am prone to) (?:really |very |easily |terribly )?"
            r"(?P<x>seasick|carsick|airsick|motion sickness|travel sickness|sea sickness"
            r"|car sickness|vertigo|claustrophobic)\b"
            r"|\bI am (?:really |very |a bit |easily |terribly )?(?P<x2>claustrophobic"
            r"|afraid of heights|scared of heights|afraid of flying|scared of flying)\b"
        ),
        _sickness,
    ),
    Cue(
        "cannot-eat",
        pattern(
            r"\bI (?:cannot|can not|am not allowed to|must not|should not|am unable to)"
            r" (?:really )?(?P<v>eat|drink|have|digest|tolerate)\b"
        ),
        _cannot_eat,
    ),
    Cue(
        "diet",
        pattern(
            rf"\bI (?:am|went|have gone|became|have become|turned|have been|switched to being"
            rf"|started being|decided to go|decided to be|chose to go|went fully|went full)"
            rf" {ADV}(?:(?:a|an) )?(?:(?:strict|full|committed|proud|lifelong|practicing) )?"
            rf"(?P<x>{DIETS})(?![\w-])(?! (?:food|meal|dish|recipe|option|restaurant|place|burger))"
        ),
        _diet,
    ),
    Cue(
        "diet-on",
        pattern(
            r"\bI am (?:on|following|doing|sticking to) (?:an? |the |my )?(?P<x>[\w-]+"
            r"(?: [\w-]+)?) diet\b"
        ),
        _diet_named,
    ),
    Cue(
        "no-eat",
        pattern(
            r"\bI (?:do not|never|no longer|do not really|do not ever) (?P<v>eat|drink|touch)\b"
        ),
        _no_eat,
    ),
    Cue(
        "quit",
        pattern(
            r"\bI (?:have )?(?:quit|stopped|gave up|have given up) (?P<x>drinking|smoking"
            r"|alcohol|caffeine|coffee|sugar|meat|vaping|gambling)\b"
        ),
        _quit,
    ),
    Cue(
        "hours",
        pattern(
            rf"\b(?:(?P<neg>(?:please )?(?:do not|never|no|not) )(?:{_HOURS_VERB})(?:ing)? me"
            rf"|(?:you can |feel free to |best to |better to |please |only )?{_HOURS_VERB} me"
            rf"(?: only)?) (?P<x>{_TIME_START})"
        ),
        _hours,
    ),
    Cue(
        "best-time",
        pattern(
            r"\bthe best (?:time|way) to (?:reach|call|contact|get hold of|phone|ring) me is\b"
        ),
        _best_time,
    ),
    Cue(
        "available",
        pattern(
            r"\bI am (?:only |usually |generally )?(?:available|free|reachable|around|online)"
            r" (?P<x>(?:after|before|between|from|until) \d{1,2}(?::\d{2})? ?(?:am|pm|a\.m\."
            r"|p\.m\.|o'clock)?|on (?:weekdays|weekends|evenings|mornings)|in the (?:evenings"
            r"|mornings))"
        ),
        _available,
    ),
    Cue(
        "shift",
        pattern(
            r"\bI (?:work|am working|do|have) (?:the )?(?P<x>night shifts?|nights|night shift"
            r"|early shifts?|late shifts?|weekends|from home|remotely|part[- ]time|full[- ]time"
            r"|late|early mornings)\b"
        ),
        _shift,
    ),
    Cue(
        "budget",
        pattern(
            rf"\bmy (?:(?P<y>[\w-]+) )?(?:budget|limit|max|maximum|price limit|spending limit)"
            rf"(?: for (?:the |a |an |my |our )?(?P<z>[\w-]+(?: [\w-]+)?))?"
            rf" (?:is|is now|has gone up to|went up to|is only|is up to|is capped at"
            rf"|is raised to|has gone down to|went down to|is set at|stays at|will be|'s)"
            rf" (?:about |around |roughly |at most |up to |only |now |max |just )*(?P<a>{AMOUNT})"
        ),
        _budget,
    ),
    Cue(
        "can-spend",
        pattern(
            rf"\bI (?:can|could|am able to|am willing to|want to|plan to) (?:only )?(?:spend|afford"
            rf"|pay|put|go up to|stretch to|invest) (?:up to |at most |about |around |roughly"
            rf" |a maximum of |no more than |max |maximum |only )?(?P<a>{AMOUNT})"
            rf"(?: (?:on|for|toward|towards|into) (?:the |a |an |my |our )?(?P<z>[\w-]+"
            rf"(?: [\w-]+)?))?"
        ),
        _budget,
    ),
    Cue(
        "cannot-spend",
        pattern(
            rf"\bI (?:cannot|can not|will not|do not want to|refuse to|am not going to)"
            rf" (?:spend|pay|go|afford) (?:more than|over|above|beyond) (?P<a>{AMOUNT})"
            rf"(?: (?:on|for) (?:the |a |an |my |our )?(?P<z>[\w-]+(?: [\w-]+)?))?"
        ),
        _budget,
    ),
)
