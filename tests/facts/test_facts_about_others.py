"""Facts a speaker states about the people they name or relate to, and about "we"."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from longtalk.core.messages import Message, Role
from longtalk.facts import DurableFact, extract_facts
from longtalk.facts.keeper import DurableFacts, stored_facts
from longtalk.facts.offline import statements

START = datetime(2026, 3, 2, 18, 10)


def chat(*lines: str | tuple[str, str]) -> list[tuple[int, Message]]:
    """Numbered user messages; a line is its text (said by Maya) or (speaker, text)."""
    messages = []
    for number, line in enumerate(lines, start=1):
        name, text = line if isinstance(line, tuple) else ("Maya", line)
        when = START + timedelta(minutes=number)
        messages.append((number, Message(role=Role.USER, content=text, name=name, timestamp=when)))
    return messages


def facts(*lines: str | tuple[str, str]) -> list[tuple[str, str, str]]:
    """(holder, subject, text) of what the lines state, resolved as one conversation."""
    return [(f.holder, f.subject, f.text) for f in extract_facts(chat(*lines))]


def test_a_named_relative_holds_their_fact_beside_the_relation() -> None:
    said = [(1, Message(role=Role.USER, content="My sister Ines is allergic to peanuts."))]
    (relation, allergy) = statements(said)
    assert (relation.holder, relation.subject, relation.text) == (
        "user",
        "person:ines",
        "The user's sister is called Ines.",
    )
    assert (allergy.holder, allergy.subject, allergy.text) == (
        "Ines",
        "allergy:peanut",
        "The user's sister Ines is allergic to peanuts.",
    )
    assert (allergy.kind, allergy.said_by, allergy.hearsay) == ("constraint", "user", True)
    assert extract_facts(said) == [allergy]  # its words name the relation: shown once


def test_the_relation_is_shown_when_no_fact_of_that_person_names_it() -> None:
    found = facts("My sister Ines is coming.", "Ines is allergic to peanuts.")
    assert found == [
        ("Maya", "person:ines", "Maya's sister is called Ines."),
        ("Ines", "allergy:peanut", "Ines is allergic to peanuts."),
    ]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "I'm vegetarian and my husband Sam is allergic to shellfish.",
            ("Sam", "allergy:shellfish", "Maya's husband Sam is allergic to shellfish."),
        ),
        ("My mum lives in Leeds.", ("Maya", "mum:home", "Maya's mum lives in Leeds.")),
        (
            "My mum is allergic to peanuts.",
            ("Maya", "mum:allergy:peanut", "Maya's mum is allergic to peanuts."),
        ),
        ("My parents are vegan.", ("Maya", "parents:diet", "Maya's parents are vegan.")),
        (
            "My sister, Lena, works as a nurse in Leeds.",
            ("Lena", "work", "Maya's sister Lena works as a nurse."),
        ),
        (
            "Oh, my brother Jon's birthday is on the 3rd of May.",
            ("Jon", "birthday", "Maya's brother Jon's birthday is on the 3rd of May."),
        ),
    ],
)
def test_relatives_with_and_without_a_name(said: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(said)


def test_a_relative_without_a_name_keeps_the_speaker_as_holder() -> None:
    (home,) = extract_facts(chat("My mum lives in Leeds."))
    assert (home.kind, home.said_by) == ("relation", "")


def test_a_person_the_conversation_knows_holds_what_is_said_of_them() -> None:
    found = facts(
        "I want to plan a trip to Portugal with my partner Tom.",
        "Tom is allergic to peanuts.",
        "Different topic: Tom's birthday is on May 28th, during the trip.",
        "Sintra is a must, Tom loves castles.",
    )
    assert ("Tom", "allergy:peanut", "Tom is allergic to peanuts.") in found
    assert ("Tom", "birthday", "Tom's birthday is on May 28th.") in found
    assert ("Tom", "taste:castle", "Tom loves castles.") in found


def test_a_named_participant_is_known_too() -> None:
    found = facts(("Sam", "I'm a nurse."), ("Ana", "Sam is vegan, so no cheese on the pizza."))
    assert ("Sam", "diet", "Sam is vegan.") in found


@pytest.mark.parametrize(
    "said",
    [
        "Tom is allergic to peanuts.",  # nobody here knows Tom
        "Moss is vegan, we should try it.",  # a restaurant
        "Lisbon is vegan-friendly.",
        "Porto is lovely and Lisbon lives up to the hype.",
    ],
)
def test_a_capitalised_word_nobody_knows_states_nothing(said: str) -> None:
    assert facts(said) == []


def test_a_statement_about_a_stranger_is_kept_as_said_until_they_are_known() -> None:
    (said,) = statements(chat("Tom is allergic to peanuts."))
    assert (said.holder, said.said_by) == ("Tom", "Maya")
    assert extract_facts(chat("Tom is allergic to peanuts.")) == []


@pytest.mark.parametrize(
    "said",
    [
        "I think Tom is allergic to peanuts.",
        "If my sister Ines were vegan, she would hate this.",
        "My mum said Tom is allergic to peanuts.",
        "Is Tom allergic to peanuts?",
        "Tom asks if he needs his own wetsuit.",
        "Tom really wants to surf somewhere.",
        "Tom is not allergic to anything.",
        "Tom and Sam are coming too.",
        "My sister loves it.",
        "Tom, you are vegan now?",
    ],
)
def test_what_is_not_a_fact_about_someone_is_left_alone(said: str) -> None:
    known = ("My partner is called Tom.", "My sister is called Ines.")
    assert facts(*known, said) == facts(*known) != []


def test_we_is_the_speaker_and_their_partner_once_known() -> None:
    found = facts(
        "Hi! I'm Maya. I want to plan a trip to Portugal with my partner Tom.",
        "We are both vegetarian, by the way, and Tom is allergic to peanuts.",
        "Our budget is around 3,500 euros for the two of us, flights excluded.",
    )
    assert found == [
        ("Maya", "person:tom", "Maya's partner is called Tom."),
        ("Maya", "diet", "Maya and Tom are vegetarian."),
        ("Tom", "allergy:peanut", "Tom is allergic to peanuts."),
        ("Maya", "budget", "Maya and Tom's budget is around 3,500 euros, excluding flights."),
    ]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("We are both vegetarian.", ("diet", "Maya and family are vegetarian.")),
        ("we don't eat pork", ("diet:no-pork", "Maya and family do not eat pork.")),
        ("Our flat is in Lisbon.", ("home", "Maya and family live in Lisbon.")),
        ("We've lived in Lisbon for years.", ("home", "Maya and family live in Lisbon.")),
        ("Tom and I are vegetarian.", ("diet", "Maya and Tom are vegetarian.")),
        (
            "My husband and I don't eat meat.",
            ("diet:no-meat", "Maya and their husband do not eat meat."),
        ),
        ("We have two kids.", ("family:kid", "Maya and family have two kids.")),
        (
            "My girlfriend and I love sushi.",
            ("taste:sushi", "Maya and their girlfriend love sushi."),
        ),
    ],
)
def test_we_is_told_of_the_speaker_and_those_they_live_with(
    said: str, expected: tuple[str, str]
) -> None:
    assert [f[1:] for f in facts(said)] == [expected]


@pytest.mark.parametrize(
    "said",
    [
        "We love that!",
        "We love sushi.",  # who "we" is is not said: maybe the two people talking
        "We are going to the beach.",
        "We all have our different paths.",
        "Should we rent a car?",
        "If we were vegan, we would miss cheese.",
    ],
)
def test_we_states_only_what_a_household_shares(said: str) -> None:
    assert facts(said) == []


def test_appended_one_by_one_the_chat_still_knows_who_is_who() -> None:
    """The engine adds each message's facts alone; reading resolves them against all."""
    keeper = DurableFacts()
    kept: list[dict[str, object]] = []
    for numbered in chat(
        "I want to plan a trip to Portugal with my partner Tom.",
        "We are both vegetarian, by the way, and Tom is allergic to peanuts.",
    ):
        kept += keeper.of_messages([numbered])
    assert [DurableFact.from_dict(d).text for d in kept] == [
        "Maya's partner is called Tom.",
        "Maya and family are vegetarian.",  # kept as said: the message alone knows no partner
        "Tom is allergic to peanuts.",
    ]
    assert [f.text for f in stored_facts(kept)] == [
        "Maya's partner is called Tom.",
        "Maya and Tom are vegetarian.",
        "Tom is allergic to peanuts.",
    ]


def test_a_stranger_becomes_known_later_and_their_fact_is_shown() -> None:
    keeper = DurableFacts()
    first = keeper.of_messages(chat("Tom is allergic to peanuts."))
    assert stored_facts(first) == []
    later = keeper.of_messages([(9, Message(role=Role.USER, content="My partner Tom says hi."))])
    assert [f.text for f in stored_facts([*first, *later])] == [
        "Tom is allergic to peanuts.",
        "The user's partner is called Tom.",
    ]


def test_a_later_statement_about_a_person_supersedes_the_earlier() -> None:
    found = facts("My sister Ines lives in Porto.", "Ines moved to Lisbon last year.")
    homes = [f for f in found if f[0] == "Ines"]
    assert homes == [("Ines", "home", "Ines moved to Lisbon.")]


def test_what_a_person_says_of_themselves_unites_with_what_was_said_of_them() -> None:
    (allergy,) = extract_facts(
        chat("My partner Tom is allergic to peanuts.", ("Tom", "I'm allergic to peanuts."))
    )
    assert allergy.text == "Maya's partner Tom is allergic to peanuts."
    assert allergy.holder == "Tom" and allergy.sequences == (1, 2)
    assert allergy.said_by == "" and not allergy.hearsay  # Tom said it himself too


def test_the_speakers_own_diet_supersedes_what_we_said() -> None:
    found = facts("We are vegetarian.", "I'm vegan now.")
    assert found == [("Maya", "diet", "Maya is vegan.")]


def test_statements_about_others_round_trip_with_who_said_them() -> None:
    (_, allergy) = statements(chat("My husband Sam is allergic to shellfish."))
    assert DurableFact.from_dict(allergy.to_dict()) == allergy
    assert allergy.to_dict()["said_by"] == "Maya"
