"""The succession model: whether a later statement ends an earlier one, and the merge using it."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from longtalk.core.messages import Message, Role
from longtalk.facts.offline import statements
from longtalk.language.succession import (
    design,
    most_replaced,
    replaces,
    spoken_words,
    threshold,
    weights,
)

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def current(*said: str, speaker: str = "Maya") -> list[str]:
    """The texts of the facts still current after ``speaker`` said ``said``, in turn."""
    messages = [
        (
            at + 1,
            Message(role=Role.USER, content=text, name=speaker, timestamp=T0 + timedelta(days=at)),
        )
        for at, text in enumerate(said)
    ]
    return [fact.text for fact in statements(messages) if not fact.retracts]


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
    logit = float(design(*words, "Maya") @ weights().weights)
    assert replaces(*words, "Maya") == pytest.approx(1.0 / (1.0 + math.exp(-logit)), abs=1e-9)


def test_a_quote_is_read_as_the_speakers_words() -> None:
    assert spoken_words('Ana said: "We adopted a cat."') == "We adopted a cat."
    assert spoken_words("Ana adopted a cat.") == "Ana adopted a cat."


def test_a_change_in_other_words_ends_the_claim_it_changes() -> None:
    facts = current(
        "I'm a PE teacher",
        "my last class was friday, I'm joining my brother's landscaping business",
    )
    assert not any("PE teacher" in text for text in facts)
    assert any("landscaping" in text for text in facts)


def test_an_end_in_other_words_takes_the_claim_back() -> None:
    facts = current(
        "I run a small catering business on the side",
        "closed the catering business for good, it wasn't worth the stress",
    )
    assert not any("runs a small catering business" in text for text in facts)


def test_another_fact_on_the_same_topic_keeps_the_first() -> None:
    facts = current("I live in Boston with my two cats", "My brother just moved to Denver")
    assert any("Boston" in text for text in facts) and any("Denver" in text for text in facts)


def test_the_claim_ended_is_the_one_near_in_meaning_and_the_unrelated_never() -> None:
    later = "finally ditched comcast for the fiber company, 1 gig for less money"
    earlier = ["my sister lives in Leeds", "my internet provider is Comcast"]
    assert replaces(earlier[1], later, "Maya") >= threshold()
    assert most_replaced(earlier, later, "Maya") == 1
    # the model alone reads any ending as likely: only claims near in meaning are asked
    assert replaces(earlier[0], later, "Maya") >= threshold()
    assert most_replaced(earlier[:1], later, "Maya") is None
    assert most_replaced([], later, "Maya") is None
