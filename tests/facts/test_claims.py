"""Offline facts as claims: whose, which claim, superseded, retracted, and what never counts."""

from __future__ import annotations

from datetime import datetime

import pytest

from longtalk.core.messages import Message, Role
from longtalk.facts import extract_facts, merge_facts
from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.keeper import said_facts, stored_facts
from longtalk.facts.offline import statements

DAY = datetime(2023, 5, 8, 13, 0)


def chat(*lines: str | tuple[str, str]) -> list[tuple[int, Message]]:
    """Numbered messages; a bare line is the user's, a pair is (speaker name, text)."""
    messages = []
    for sequence, line in enumerate(lines, start=1):
        name, text = ("", line) if isinstance(line, str) else line
        role = Role.USER if name in ("", "Ana") else Role.ASSISTANT
        messages.append((sequence, Message(role=role, content=text, name=name or None)))
    return messages


def shown(*lines: str | tuple[str, str]) -> list[tuple[str, str, str]]:
    return [(f.holder, f.subject, f.text) for f in extract_facts(chat(*lines))]


def test_a_third_persons_fact_is_theirs() -> None:
    assert shown("Tom is allergic to peanuts.") == [
        ("Tom", "allergic:peanut", "Tom is allergic to peanuts.")
    ]
    (fact,) = extract_facts(chat("Tom is allergic to peanuts."))
    assert fact.said_by == "user" and fact.hearsay


def test_both_clauses_are_kept_each_for_its_holder() -> None:
    assert shown("I'm vegetarian and Sam is allergic to shellfish.") == [
        ("user", "diet", "The user is vegetarian."),
        ("Sam", "allergic:shellfish", "Sam is allergic to shellfish."),
    ]


def test_not_vegetarian_anymore_retracts_and_keeps_the_history() -> None:
    said = statements(chat("Tom is vegetarian.", "Actually Tom is not vegetarian anymore."))
    (retraction,) = said
    assert retraction.retracts and retraction.subject == "diet"
    assert [former.text for former in retraction.history] == ["Tom is vegetarian."]
    assert stored_facts([fact.to_dict() for fact in said]) == []


def test_raising_the_budget_supersedes_it_and_keeps_what_it_was() -> None:
    facts = extract_facts(
        chat("Our budget is 3,500 euros.", "Let's raise the budget to 4,000 euros.")
    )
    (budget,) = facts
    assert budget.subject == "budget" and "4,000 euros" in budget.text
    assert [former.text for former in budget.history] == [
        'The user said: "Our budget is 3,500 euros."'
    ]
    assert budget.history[0].sequences == (1,)


def test_a_sum_not_counting_flights_is_no_flight_budget() -> None:
    facts = extract_facts(chat("3,500 euros for the two of us, not counting flights."))
    assert not any("flight" in fact.subject for fact in facts)
    assert all("flight budget" not in fact.text.casefold() for fact in facts)


def test_a_move_supersedes_the_home_and_the_other_participant_keeps_theirs() -> None:
    facts = extract_facts(
        chat(
            "I live in Porto now.",
            ("Ben", "I live in Leeds."),
            "Big news: I moved to Ljubljana last week!",
        )
    )
    homes = {(f.holder, f.subject): f.text for f in facts if f.subject == "home"}
    assert homes == {
        ("user", "home"): "The user moved to Ljubljana last week.",
        ("Ben", "home"): "Ben lives in Leeds.",
    }
    (mine,) = [f for f in facts if f.key == ("user", "home")]
    assert [former.text for former in mine.history] == ["The user lives in Porto now."]


@pytest.mark.parametrize(
    "text",
    [
        "If I were vegan I would skip cheese.",
        "Are you allergic to mustard seeds?",
        "Do you think I should move to Zurich?",
        "Maybe I'll move to Porto.",
        "My mother says I'm stubborn as a mule.",
        "Oh great, I just love spending four hours at the DMV.",
        "He's obsessed with golf, it's all he talks about.",
        "Please call me Jojo, everybody does.",
    ],
)
def test_what_is_not_the_speakers_fact_is_left_alone(text: str) -> None:
    assert shown(text) == []


def test_advice_from_the_other_participant_is_nobodys_fact() -> None:
    assert shown("Hi!", ("Ben", "You should really try bouldering, it's great.")) == []


def test_a_nickname_asked_for_is_not_a_name() -> None:
    facts = extract_facts(chat(("Ben", "Call me Beezy, nobody says Beatrice.")))
    assert not any(f.subject == "name" or "Beezy" in f.value for f in facts)


def test_provenance_is_the_message_sequence_time_and_speaker() -> None:
    message = Message(role=Role.ASSISTANT, content="I'm vegan.", name="Nate", timestamp=DAY)
    (fact,) = extract_facts([(42, message)])
    assert (fact.holder, fact.sequences, fact.said_at, fact.source) == (
        "Nate",
        (42,),
        DAY,
        "offline",
    )


def test_people_limits_the_speakers() -> None:
    messages = [
        (1, Message(role=Role.USER, content="I'm vegan.", name="Ana")),
        (2, Message(role=Role.ASSISTANT, content="I'm vegetarian.", name="Nate")),
        (3, Message(role=Role.USER, content="I'm allergic to peanuts.")),
    ]
    holders = [f.holder for f in extract_facts(messages, people=["ana", "user"])]
    assert holders == ["Ana", "user"]


def test_retractions_and_history_round_trip_through_storage() -> None:
    said = statements(
        chat("I'm allergic to kiwi.", "Turns out I'm not allergic to kiwi after all.")
    )
    stored = [fact.to_dict() for fact in said]
    assert [DurableFact.from_dict(entry) for entry in stored] == said
    assert said_facts(stored)[0].retracts and stored_facts(stored) == []


def test_a_fact_stated_again_after_a_retraction_is_current_again() -> None:
    said = statements(
        chat(
            "I'm allergic to kiwi.", "I'm not allergic to kiwi after all.", "I'm allergic to kiwi."
        )
    )
    (fact,) = merge_facts([], said)
    assert not fact.retracts and fact.text == "The user is allergic to kiwi."
    assert fact.sequences == (3,) or 3 in fact.sequences


def test_a_fact_never_pretends_to_agree_a_verb_it_cannot() -> None:
    """Where the parse supports no rewrite, the speaker's words are quoted, named."""
    (fact,) = extract_facts(chat("We're both vegetarian."))
    assert fact.text == 'The user said: "We\'re both vegetarian."'
    (fact,) = extract_facts(chat("Please never ring me before 10 am, I work late and sleep in."))
    assert fact.text == "The user works late and sleeps in."


def test_the_kind_model_classes_are_the_fact_kinds() -> None:
    from typing import get_args

    from longtalk.facts.durable_fact import FactKind
    from longtalk.language.kinds import KINDS

    assert set(KINDS) - {"none"} == set(get_args(FactKind))


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Ana is allergic to latex.", "allergic:latex"),
        ("Ana is lactose intolerant.", "intolerant:lactose"),
    ],
)
def test_an_allergy_or_intolerance_lasts_by_what_it_is(text: str, subject: str) -> None:
    assert [(f.holder, f.subject, f.kind) for f in extract_facts(chat(text))] == [
        ("Ana", subject, "constraint")
    ]


def test_a_claim_held_once_keeps_its_key_whatever_kind_it_is_filed_under() -> None:
    facts = extract_facts(chat("I live in Porto now.", "We're moving to Berlin in June."))
    (home,) = [fact for fact in facts if fact.holder == "user"]
    assert home.subject == "home"
    assert [former.text for former in home.history] == ["The user lives in Porto now."]
