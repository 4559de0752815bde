"""Plain statements the parse reads as their grammar says, not as the small parser guesses."""

from __future__ import annotations

from longtalk.facts.claims import fact_of
from longtalk.language.statements import Said, Statement, read_statements


def _read(text: str) -> list[Statement]:
    return read_statements([Said(1, "Ana", text, "Ben")])


def _facts(text: str) -> list[str]:
    found = map(fact_of, _read(text))
    return [fact.text for fact in found if fact is not None and not fact.tentative]


def test_a_name_set_off_by_a_comma_is_the_one_spoken_to() -> None:
    assert not [s for s in _read("Sounds awesome, Ben.") if s.holder == "Ben"]
    assert _facts("Thanks, Ben, I'm vegan by the way.") == ["Ana is vegan by the way."]


def test_a_bare_number_after_i_am_is_an_age() -> None:
    assert _facts("I'm 34, can you believe it.") == ["Ana is 34."]
    assert _facts("I won!") == []


def test_an_owner_of_an_owner_is_read() -> None:
    named = [s for s in _read("My dog's name is Rufus.") if s.value == "Rufus"]
    assert named and named[0].holder == "Ana" and named[0].claim.key == "dog name"


def test_a_present_spelled_like_its_past_is_quoted_unless_the_clause_is_dated() -> None:
    dated = [s for s in _read("I quit smoking last year.") if s.lemma == "quit"]
    assert dated and dated[0].text == "Ana quit smoking last year."
    undated = [s for s in _read("I quit smoking.") if s.lemma == "quit"]
    assert undated and undated[0].text == ""  # quoted: "quits" or "quit" is not the parse's
    since = [s for s in _read("I live in Lisbon since last year.") if s.lemma == "live"]
    assert since and since[0].text == "Ana lives in Lisbon since last year."  # not "Ana live"


def test_a_lasting_claim_family_is_a_fact_however_it_is_worded() -> None:
    assert _facts("I'm vegan.") == ["Ana is vegan."]
    assert _facts("I'm doing ok.") == []
