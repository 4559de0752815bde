"""A change that shares no word with its claim finds it by meaning, and only a change does."""

from __future__ import annotations

from tests.facts.conftest import current_facts


def test_a_change_in_other_words_ends_the_claim_it_means_and_leaves_the_rest() -> None:
    current = current_facts(
        "I drink three cans of cola a day.",
        "I love hiking.",
        "Two weeks clean now, I've quit for good, no more soda for me.",
    )
    assert not any("cola" in text for text in current)
    assert "Ines loves hiking." in current


def test_a_change_near_no_claim_ends_nothing() -> None:
    current = current_facts("I drink three cans of cola a day.", "I love hiking.", "I stopped.")
    assert "Ines drinks three cans of cola a day." in current


def test_a_plain_statement_near_a_claim_does_not_replace_it() -> None:
    current = current_facts("I drink coffee every morning.", "I drink tea in the evening.")
    assert "Ines drinks coffee every morning." in current
