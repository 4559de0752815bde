"""The succession model: whether a later statement ends an earlier one."""

from __future__ import annotations

import math

import pytest

from longtalk.facts.claims import spoken_words
from longtalk.facts.merge import PLAN_UNCHANGED
from longtalk.language.succession import (
    RELATED,
    design,
    meaning_of,
    most_replaced,
    replaces,
    threshold,
    weights,
)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Maya works at Google on the ads team.", "Maya accepted an offer at Stripe."),
        ("Maya loves ramen.", "Maya also loves sushi."),
        ('Maya said: "I drive a civic."', "Maya has a Tesla now."),
    ],
)
def test_the_score_read_text_by_text_is_the_designs(earlier: str, later: str) -> None:
    words = (spoken_words(earlier), spoken_words(later))
    for signs in [(), (PLAN_UNCHANGED,)]:
        logit = float(design(*words, "Maya", signs) @ weights().weights)
        chance = 1.0 / (1.0 + math.exp(-logit))
        assert replaces(*words, "Maya", signs) == pytest.approx(chance, abs=1e-9)


def test_what_the_claim_model_knows_of_a_pair_weighs_in_its_score() -> None:
    earlier, later = "we're planning the Lisbon trip for June", "Lisbon trip booked, flights are in"
    plain = replaces(earlier, later, "Chloe")
    # a plan beside a statement that says no word of change: the plans of one trip
    assert replaces(earlier, later, "Chloe", (PLAN_UNCHANGED,)) < plain
    assert most_replaced([earlier], later, "Chloe", [(PLAN_UNCHANGED,)]) is None
    with pytest.raises(ValueError, match="signs"):
        most_replaced([earlier, "I live in Oslo"], later, "Chloe", [()])


def test_the_claim_ended_is_the_one_near_in_meaning_and_the_unrelated_never() -> None:
    later = "finally ditched comcast for the fiber company, 1 gig for less money"
    earlier = ["my sister lives in Leeds", "my internet provider is Comcast"]
    assert replaces(earlier[1], later, "Maya") >= threshold()
    assert most_replaced(earlier, later, "Maya") == 1
    assert replaces(earlier[0], later, "Maya") < replaces(earlier[1], later, "Maya")
    # only claims near in meaning are asked, however the model alone would score them
    far = float(meaning_of(earlier[0], "Maya") @ meaning_of(later, "Maya"))
    assert far < RELATED
    assert most_replaced(earlier[:1], later, "Maya") is None
    assert most_replaced([], later, "Maya") is None
