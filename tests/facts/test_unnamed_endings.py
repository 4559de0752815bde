"""Ending what one has just said without naming it: ``quit!!``, ``sold it``, ``not anymore``."""

from __future__ import annotations

import pytest
from tests.facts.conftest import T0, current_facts

from longtalk.language import ENDED, Said, read_statements


def _ends_unnamed(text: str) -> bool:
    statements = read_statements([Said(1, "Ines", text, "Rui", T0)])
    return any(s.claim.key == f"{ENDED}:" and s.holder == "Ines" for s in statements)


@pytest.mark.parametrize(
    "text",
    [
        "I quit.",
        "I stopped.",
        "I quit last month, 3 weeks smoke free today",
        "gave up after a month honestly.",
        "I gave it up in May.",
        "I gave up on it.",
        "sold it last year.",
        "I quit, just walked out, didn't have anything lined up",
        "nope, not anymore",
        "well, not anymore. I work from home now",
        "no longer!",
    ],
)
def test_an_end_that_names_nothing(text: str) -> None:
    assert _ends_unnamed(text), text


@pytest.mark.parametrize(
    "text",
    [
        "I stopped by the bakery.",
        "I quit smoking.",  # names what it ends
        "I sold my bike.",
        "I'm quitting.",
        "Did you quit?",
        "quit it!",
        "I stop at the gym on my way home.",
        "Sadly sold out",
        "I'd have given up after ten minutes",
        "what if I just quit and opened a bakery haha",
        "She quit last week.",
        "not anymore?",
        "no longer renters!",
        "I'm not quitting.",
    ],
)
def test_no_unnamed_end(text: str) -> None:
    assert not _ends_unnamed(text), text


def test_it_ends_the_claim_just_said_and_keeps_the_rest() -> None:
    current = current_facts(
        "I'm allergic to penicillin.",
        "I run the little cafe by the station.",
        "sold it in the spring, I drive for a courier now",
    )
    assert not any("cafe" in text for text in current), current
    assert any("penicillin" in text for text in current), current
    assert any("courier" in text for text in current), current


def test_not_anymore_ends_the_latest_claim_only() -> None:
    current = current_facts("I'm allergic to penicillin.", "I'm vegetarian.", "nope, not anymore")
    assert not any("vegetarian" in text for text in current), current
    assert any("penicillin" in text for text in current), current


def test_a_claim_said_long_before_is_out_of_its_reach() -> None:
    current = current_facts(
        "I'm vegetarian.",
        "what a week",
        "the rain never stops here",
        "so tired today",
        "I quit.",
    )
    assert any("vegetarian" in text for text in current), current
