"""The cue table: every cue, in the order they claim a sentence's spans.

Constraints first, then who the speaker is (identity, relations, possessions), tastes and
plans: an earlier cue wins a span (``my sister Lena moved to Rotterdam`` is where Lena
lives, not also her name; ``I have a cat allergy`` an allergy, not a pet).

A clause about someone else, retold in the first person (see :mod:`longtalk.facts.subjects`),
is read by fewer cues: :data:`OTHER_CUES` for a relative or a named person (what they are,
have and like, not their plans or how to call the listener), :data:`GROUP_CUES` for "we"
(what a household shares: diets, allergies, home, a budget named as such, children and pets;
not ``we can pay $80 per unit``, a business's offer as often as a household's), and
:data:`PAIR_CUES` for a "we" whose others are named (``my girlfriend and I love sushi``:
their tastes too, since who "we" is is said).
"""

from __future__ import annotations

from longtalk.facts.cue import Cue, Found
from longtalk.facts.cues_constraints import CONSTRAINT_CUES
from longtalk.facts.cues_people import PEOPLE_CUES
from longtalk.facts.cues_plans import PLAN_CUES
from longtalk.facts.cues_tastes import TASTE_CUES

__all__ = ["CUES", "GROUP_CUES", "OTHER_CUES", "PAIR_CUES", "Cue", "Found"]

CUES: tuple[Cue, ...] = (*CONSTRAINT_CUES, *PEOPLE_CUES, *TASTE_CUES, *PLAN_CUES)

_HOUSEHOLD = frozenset(
    """allergy allergy-noun intolerant cannot-eat diet diet-on no-eat home home-of budget
    family pet-name pet-adopted pet-owned""".split()
)
_PERSON = frozenset(
    """allergy allergy-noun intolerant condition sickness cannot-eat diet diet-on no-eat quit
    shift birthday age home home-of origin works-at works-as occupation status family
    pet-name pet-owned drives favourite dislikes likes fan""".split()
)

_TASTES = frozenset("dislikes likes fan".split())

GROUP_CUES: tuple[Cue, ...] = tuple(cue for cue in CUES if cue.name in _HOUSEHOLD)
PAIR_CUES: tuple[Cue, ...] = tuple(cue for cue in CUES if cue.name in _HOUSEHOLD | _TASTES)
OTHER_CUES: tuple[Cue, ...] = tuple(cue for cue in CUES if cue.name in _PERSON)
