"""Changes and ends said in other words, followed through the merge (the succession model)."""

from __future__ import annotations

from tests.facts.conftest import current_facts

from longtalk.facts.claims import spoken_words


def test_a_quote_is_read_as_the_speakers_words() -> None:
    assert spoken_words('Ana said: "We adopted a cat."') == "We adopted a cat."
    assert spoken_words("Ana adopted a cat.") == "Ana adopted a cat."


def test_a_change_in_other_words_ends_the_claim_it_changes() -> None:
    current = current_facts(
        "my internet provider is Comcast",
        "finally ditched comcast for the fiber company, 1 gig for less money",
    )
    assert not any("provider is Comcast" in text for text in current)
    assert any("fiber company" in text for text in current)


def test_an_end_in_other_words_takes_the_claim_back() -> None:
    current = current_facts(
        "I run a small catering business on the side",
        "closed the catering business for good, it wasn't worth the stress",
    )
    assert not any("runs a small catering business" in text for text in current)


def test_another_fact_on_the_same_topic_keeps_the_first() -> None:
    current = current_facts("I live in Boston with my two cats", "My brother just moved to Denver")
    assert any("Boston" in text for text in current) and any("Denver" in text for text in current)
