"""A negated clause that states nothing lasting may deny a claim: only its own, only in full."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from tests.facts.conftest import T0, current_facts

from longtalk import AsyncMemory
from longtalk.facts.claims import facts_of
from longtalk.facts.merge import merge_facts
from longtalk.language import Said, read_statements


def test_a_denial_takes_back_the_claim_it_denies() -> None:
    current = current_facts("I smoke about half a pack a day.", "Just to be clear, I never smoked.")
    assert not any("smoke" in text for text in current), current


def test_a_negation_with_words_of_its_own_is_another_claim() -> None:
    current = current_facts("I go running every day.", "I don't go running when it rains.")
    assert any("running every day" in text for text in current), current
    assert current_facts("I speak Portuguese at home.")  # a fact on its own
    current = current_facts("I speak Portuguese at home.", "I don't speak much before my coffee.")
    assert any("Portuguese at home" in text for text in current), current


def test_a_dated_negation_tells_of_a_day_not_of_the_claim() -> None:
    current = current_facts("I smoke about half a pack a day.", "I didn't smoke yesterday.")
    assert any("half a pack" in text for text in current), current


def test_a_denial_of_nothing_said_is_nothing() -> None:
    found = facts_of(read_statements([Said(1, "Ines", "I never smoked.", "Rui", T0)]))
    assert [fact.denies for fact in found] == [True]
    assert merge_facts([], found) == []
    assert merge_facts([], found, keep_denials=True) == found  # for the chat's merge to place


def test_a_denial_appended_later_takes_back_a_stored_claim() -> None:
    async def facts_after(*texts: str) -> list[str]:
        async with AsyncMemory("memory:") as memory:
            chat = await memory.chat("denials")
            for n, text in enumerate(texts):
                await chat.append("user", text, name="Ines", timestamp=T0 + timedelta(days=n))
            return [fact.text for fact in await chat.facts()]

    before = asyncio.run(facts_after("I have a dog named Rex.", "Rex is fun."))
    assert any("dog named Rex" in text for text in before), before
    after = asyncio.run(facts_after("I have a dog named Rex.", "Wait, I don't have a dog."))
    assert not any("dog named Rex" in text for text in after), after


def test_a_later_negation_of_a_claim_takes_it_back_and_keeps_it_as_history() -> None:
    said = [
        (1, "I have a hamster named Nibbles."),
        (2, "lol jk I don't have a hamster, was just messing with you"),
    ]
    found = [
        fact
        for n, text in said
        for fact in facts_of(read_statements([Said(n, "Ines", text, "Rui", T0 + timedelta(n))]))
    ]
    (taken_back,) = merge_facts([], found)
    assert taken_back.retracts  # kept, never shown
    assert [former.text for former in taken_back.history] == ["Ines has a hamster named Nibbles."]


def test_a_taste_turned_is_a_new_taste_not_a_retraction() -> None:
    assert current_facts("I like olives.", "I don't like olives.") == ["Ines doesn't like olives."]


def test_a_denial_of_what_a_pronoun_stands_for_takes_back_nothing() -> None:
    reading = "I'm reading Dune by Frank Herbert right now."
    current = current_facts(reading, "No, I haven't read them yet but I'll check them out.")
    assert any("Dune" in text for text in current), current
    current = current_facts(reading, "No, I haven't read Dune.")  # named, it is taken back
    assert not any("Dune by Frank Herbert" in text for text in current), current


def test_a_denial_whose_pronoun_has_words_of_its_own_is_a_fact() -> None:
    current = current_facts("I don't eat anything with gluten.")
    assert any("anything with gluten" in text for text in current), current
