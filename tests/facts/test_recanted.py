"""Taking back what one has just said without naming it: ``jk``, ``I made that up``."""

from __future__ import annotations

import pytest
from tests.facts.conftest import T0, current_facts

from longtalk.facts.known import resolve
from longtalk.facts.merge import merge_facts
from longtalk.facts.offline import facts_heard
from longtalk.language import RECANTED, Said, read_statements


def _recants(text: str) -> bool:
    statements = read_statements([Said(1, "Ines", text, "Rui", T0)])
    return any(s.claim.key.startswith(RECANTED) and s.holder == "Ines" for s in statements)


@pytest.mark.parametrize(
    "text",
    [
        "lol jk, no pets here",
        "I'm kidding, I get seasick in the bath",
        "just joking!",
        "lol no, joking, still stuck in Swindon",
        "haha I'm messing with you",
        "I made that up. it's just Ann",
        "no way indeed, I made it up",
        "I lied, I'm 40",
        "scratch that, wrong chat",
        "ugh ignore that, wrong chat, I'm not vegetarian",
        "god no. ignore me, my niece had my phone",
        "haha I'm pulling your leg",
        "sorry I was wrong, she moved back to Lisbon",
    ],
)
def test_a_take_back_that_names_nothing(text: str) -> None:
    assert _recants(text), text


@pytest.mark.parametrize(
    "text",
    [
        "I'm not kidding, I really have a snake",
        "no kidding!",
        "are you kidding?",
        "you're kidding",
        "I was joking around with my kids",
        "I lied down for a nap",
        "I made up a story for the kids",
        "I was wrong about the keto thing.",  # a topic named: a withdrawal of it
        "Don't forget that!",
        "It was so amazing lying there and watching the sky light up.",
        "It's easy to get lost and forget that.",
        "Thanks, I just sort of made it up on the spot so I don't have a recipe.",
    ],
)
def test_no_take_back(text: str) -> None:
    assert not _recants(text), text


def test_it_takes_back_the_claim_just_said_and_keeps_what_follows() -> None:
    current = current_facts(
        "I'm allergic to penicillin.",
        "fun fact I have a pet snake called Noodle",
        "lol jk, no pets here, I live in Kent",
    )
    assert not any("Noodle" in text for text in current), current
    assert any("penicillin" in text for text in current), current
    assert any("Kent" in text for text in current), current


def test_a_claim_said_long_before_is_out_of_its_reach() -> None:
    current = current_facts(
        "fun fact I have a pet snake called Noodle",
        "what a week",
        "the rain never stops here",
        "so tired today",
        "lol jk",
    )
    assert any("Noodle" in text for text in current), current


def test_an_exclamation_is_no_one_the_clause_is_about() -> None:
    statements = read_statements([Said(1, "Ines", "lol, still stuck in Swindon", "Rui", T0)])
    assert {s.holder for s in statements} == {"Ines"}
    statements = read_statements([Said(1, "Ines", "haha Mike is a chef", "Rui", T0)])
    assert {s.holder for s in statements} == {"Mike"}


def test_what_another_said_of_the_speaker_is_not_theirs_to_take_back() -> None:
    heard = [
        Said(1, "Rui", "Ines, you're vegan now, right?", "Ines", T0),
        Said(2, "Rui", "you're a nurse at St Mary's", "Ines", T0),
        Said(3, "Ines", "lol jk", "Rui", T0),
    ]
    found = facts_heard(heard)
    assert any(fact.said_by == "Rui" for fact in found), found
    current = [fact.text for fact in resolve(merge_facts([], found))]
    assert any("nurse" in text for text in current), current
