"""A statement that is no fact by itself is kept only when it takes an earlier claim's place."""

from __future__ import annotations

from tests.facts.conftest import T0, current_facts

from longtalk.facts.claims import facts_of, tentative_message
from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.known import resolve
from longtalk.facts.merge import merge_facts, read_together, speakers
from longtalk.facts.offline import facts_heard
from longtalk.language import Said, read_statements

SOLD = "sold the civic last weekend, picked up a used tesla"


def test_a_passing_statement_alone_is_no_fact() -> None:
    found = facts_of(read_statements([Said(1, "Ines", SOLD, "Rui", T0)]))
    assert found and all(fact.tentative for fact in found)
    assert merge_facts([], found) == []  # it ends nothing: dropped
    assert merge_facts([], found, keep_denials=True) == found  # kept for the chat's merge
    assert resolve(found) == []  # never shown
    assert current_facts(SOLD) == []


def test_it_is_the_latest_word_on_the_claim_it_ends() -> None:
    current = current_facts("I drive a honda civic, had it for years", SOLD)
    assert not any("drive a honda civic" in text for text in current), current
    assert any("sold the civic" in text for text in current), current


def test_it_ends_nothing_unrelated() -> None:
    current = current_facts("I drive a honda civic, had it for years", "went to a concert, so loud")
    assert any("honda civic" in text for text in current), current
    assert len(current) == 1, current


def test_a_message_with_no_clause_is_its_speakers_tentative_statement() -> None:
    heard = [Said(1, "Ines", "full vegan since january, feeling great", "Rui", T0)]
    assert read_statements(heard) == []
    found = facts_heard(heard)
    assert [(fact.holder, fact.tentative) for fact in found] == [("Ines", True)]
    assert found[0].text == 'Ines said: "full vegan since january, feeling great"'
    assert tentative_message(Said(2, "Ines", " ".join(["word"] * 41), "Rui", T0)) is None


def test_it_is_stored_as_tentative() -> None:
    fact = tentative_message(Said(1, "Ines", "the Singapore move fell through", "Rui", T0))
    assert fact is not None
    assert DurableFact.from_dict(fact.to_dict()) == fact
    assert fact.to_dict()["tentative"] is True


def test_it_ends_only_a_claim_it_names() -> None:
    heard = [
        Said(1, "John", "Please never ring me before 10 am, I work late and sleep in.", "Tim", T0),
        Said(2, "John", "I'm off to spend some time with them now.", "Tim", T0),
    ]
    found = facts_heard(heard)
    assert [fact.tentative for fact in found if fact.sequences == (2,)] == [True]
    current = [fact.text for fact in resolve(merge_facts([], found))]
    assert any("10 am" in text for text in current), current


def test_read_again_it_is_the_claim_it_took_the_place_of() -> None:
    heard = [
        Said(1, "Ines", "I drive a honda civic, had it for years", "Rui", T0),
        Said(2, "Ines", "I love the red paint on my civic", "Rui", T0),
        Said(3, "Ines", SOLD, "Rui", T0),
    ]
    found = facts_heard(heard)
    once = merge_facts([], found)
    assert merge_facts(once, [fact for fact in found if fact.sequences == (3,)]) == once
    assert merge_facts(once, found) == once


def test_the_name_of_whom_it_is_said_to_is_no_word_it_shares() -> None:
    heard = [
        Said(1, "Joanna", "I finished my first screenplay last week.", "Nate", T0),
        Said(2, "Nate", "Hey Joanna, I'm no writer like you.", "Joanna", T0),
        Said(3, "Nate", "Bummer, Joanna.", "Joanna", T0),
    ]
    found = facts_heard(heard)
    (claim,) = [f for f in found if f.sequences == (2,) and not f.tentative]
    (bummer,) = [f for f in found if f.sequences == (3,)]
    assert bummer.tentative
    assert read_together(claim, bummer)  # by the holder's name alone, "Joanna" is shared
    assert not read_together(claim, bummer, speakers(found))
