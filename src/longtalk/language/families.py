"""Which predicates speak of one claim, whatever the verb: the claim families.

``I live in Porto`` and ``I moved to Lisbon`` both say where the holder lives; ``I hate
olives`` and ``I love olives now`` both say how they like olives; ``vegetarian`` and
``vegan`` both name a diet. A later statement on one family's claim supersedes the earlier,
so the family is part of the claim's key. Lemmas only: the parse gives them.
"""

from __future__ import annotations

__all__ = [
    "CEASING",
    "CHANGE_VERBS",
    "DIETS",
    "LASTING_CLAIMS",
    "NOUN_CLAIMS",
    "PURPOSED",
    "TASTE_VERBS",
    "VERB_CLAIMS",
    "adjective_claim",
    "family_of",
    "lasting",
    "noun_claim",
    "purpose_of",
    "purposed",
]

TASTE_VERBS: dict[str, bool] = {
    "like": True,
    "love": True,
    "enjoy": True,
    "adore": True,
    "prefer": True,
    "hate": False,
    "dislike": False,
    "detest": False,
    "loathe": False,
    "stand": True,  # "can't stand": the negation carries it
}
"""Verbs of taste, and whether each says the holder likes its object."""

VERB_CLAIMS: dict[tuple[str, str], str] = {
    ("live", "in"): "home",
    ("live", "at"): "home",
    ("move", "to"): "home",
    ("relocate", "to"): "home",
    ("base", "in"): "home",
    ("work", "at"): "employer",
    ("work", "for"): "employer",
    ("work", "as"): "occupation",
    ("come", "from"): "origin",
    ("grow", "in"): "origin",
    ("bear", "on"): "birthday",
    ("bear", "in"): "birthplace",
    ("study", "at"): "school",
    ("study", ""): "studies",
    ("drive", ""): "vehicle",
}
"""(verb lemma, preposition) pairs whose object is the value of a named claim."""

CHANGE_VERBS = frozenset(
    {"raise", "increase", "lower", "cut", "reduce", "change", "switch", "bump", "up", "drop"}
)
"""Verbs that set a claim to a new value: ``raise the budget to 4,000``."""

CEASING: dict[str, frozenset[str]] = {
    "give": frozenset({"up"}),
    "drop": frozenset({"out"}),
    "cut": frozenset({"out"}),
    "kick": frozenset({"off"}),
}
"""Phrasal verbs (lemma, particles) that end a habit or a role, as ``quit`` and ``stop`` do."""

NOUN_CLAIMS: dict[str, str] = {
    "limit": "budget",
    "max": "budget",
    "maximum": "budget",
    "spend": "budget",
    "afford": "budget",
}
"""Nouns (and verbs of spending) that name the same claim as another noun."""

DIETS = frozenset(
    {"vegetarian", "vegan", "pescatarian", "pescetarian", "keto", "carnivore", "omnivore"}
)


def adjective_claim(lemma: str, object_lemma: str) -> str:
    """The claim an adjective (with its object) states: ``allergic:peanut``, ``diet``."""
    if lemma in DIETS:
        return "diet"
    return f"{lemma}:{object_lemma}" if object_lemma else lemma


def noun_claim(key: str) -> str:
    """A noun's claim: its family's (``limit`` -> ``budget``), else the noun's own key.

    A compound keeps its head's family (``car budget`` stays ``car budget``; a bare
    ``limit`` is a ``budget``).
    """
    return NOUN_CLAIMS.get(key, key)


PURPOSED = frozenset({"budget"})
"""Claims a person holds several of, one per purpose (``budget:car``, ``budget:japan trip``)."""


def purposed(predicate: str, purpose: str) -> str:
    """``budget:car`` for a car budget (a compound, or ``for the car``), else the predicate.

    A bare ``budget`` is left as it is: which budget it means is for the merge to find.
    """
    *compound, head = predicate.split(" ")
    if head not in PURPOSED:
        return predicate
    named = " ".join(compound) or purpose
    return f"{head}:{named}" if named else head


def purpose_of(key: str) -> tuple[str, str] | None:
    """The claim and purpose of a key :func:`purposed` made, or None for a claim held once.

    ``budget:car`` is (budget, car); a bare ``budget`` is (budget, "").
    """
    head, _, purpose = key.partition(":")
    return (head, purpose) if head in PURPOSED else None


LASTING_CLAIMS = frozenset(
    {
        "diet",
        "allergic",
        "intolerant",
        "age",
        "name",
        "home",
        "employer",
        "occupation",
        "origin",
        "birthday",
        "budget",
    }
)
"""Families whose claim lasts by what it is: stating one is a durable fact of its holder
(an allergy or an intolerance is a condition, not a moment, however it is worded)."""


def lasting(key: str) -> bool:
    """True when a claim's key (``home``, ``sister:home``) is of a lasting family."""
    return family_of(key) is not None


def family_of(key: str) -> tuple[str, str] | None:
    """Whose claim of which lasting family a key is: ``sister:home`` is (sister, home).

    None for a key of no lasting family (``play:tennis``).
    """
    parts = key.split(":")
    for at, part in enumerate(parts):
        if part in LASTING_CLAIMS:
            return ":".join(parts[:at]), part
    return None
