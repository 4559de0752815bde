"""The cue table: every cue, in the order they claim a sentence's spans.

Constraints first, then who the speaker is (identity, relations, possessions), tastes and
plans: an earlier cue wins a span (``my sister Lena moved to Rotterdam`` is where Lena
lives, not also her name; ``I have a cat allergy`` an allergy, not a pet).
"""

from __future__ import annotations

from longtalk.facts.cue import Cue, Found
from longtalk.facts.cues_constraints import CONSTRAINT_CUES
from longtalk.facts.cues_people import PEOPLE_CUES
from longtalk.facts.cues_plans import PLAN_CUES
from longtalk.facts.cues_tastes import TASTE_CUES

__all__ = ["CUES", "Cue", "Found"]

CUES: tuple[Cue, ...] = (*CONSTRAINT_CUES, *PEOPLE_CUES, *TASTE_CUES, *PLAN_CUES)
