"""A relation named in passing (``my best friend Lena``) is its owner's fact, and one fact."""

from __future__ import annotations

from tests.facts.conftest import current_facts


def test_a_relation_named_in_passing_is_kept_as_a_fact() -> None:
    current = current_facts("My best friend Lena carries an EpiPen.")
    assert "Lena is Ines's best friend." in current, current


def test_named_twice_it_is_one_fact() -> None:
    current = current_facts("My wife Rosa cooked.", "We ate late because my wife Rosa worked.")
    assert current.count("Rosa is Ines's wife.") == 1, current


def test_a_name_asked_about_is_no_fact() -> None:
    assert not any("Rosa" in text for text in current_facts("Is your wife Rosa coming?"))


def test_a_pet_named_before_its_name_is_its_owners_fact() -> None:
    # the parser hangs "my corgi" under the name: the noun is a compound of it
    current = current_facts("my corgi Waffles just ate an entire sock lol, vet bill incoming")
    assert "Waffles is Ines's corgi." in current, current
