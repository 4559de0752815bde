"""Claims one holds side by side: a second of many, another family, a change said by "now"."""

from __future__ import annotations

from tests.facts.conftest import current_facts


def test_a_second_named_thing_one_does_is_a_second_claim() -> None:
    current = current_facts(
        "I usually play CS:GO with my friends.",
        "These days I'm playing Xenoblade Chronicles, a huge fantasy RPG.",
    )
    assert any("CS:GO" in text for text in current), current
    assert any("Xenoblade" in text for text in current), current


def test_claims_of_two_lasting_families_never_end_each_other() -> None:
    current = current_facts("I'm vegetarian.", "I'm allergic to zorblatnuts.")
    assert any("vegetarian" in text for text in current), current
    assert any("zorblatnuts" in text for text in current), current


def test_now_alone_does_not_end_another_claim() -> None:
    current = current_facts(
        "I've started learning to play the piano.",
        "I'm learning to play the violin now, so fun.",
    )
    assert any("piano" in text for text in current), current
    assert any("violin" in text for text in current), current


def test_a_new_amount_of_a_budget_sets_it_without_a_word_of_change() -> None:
    current = current_facts(
        "My budget for the car is 5,000 euros.",
        "Update on the car hunt: my limit is 4,200 euros.",
    )
    assert any("4,200" in text for text in current), current
    assert not any("5,000" in text for text in current), current


def test_a_word_of_change_still_ends_a_claim_named_otherwise() -> None:
    current = current_facts(
        "I play tennis every weekend.", "I switched from tennis to padel, way more fun."
    )
    assert not any("tennis every weekend" in text for text in current), current
    assert any("padel" in text for text in current), current
