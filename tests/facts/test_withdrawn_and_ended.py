"""Taking back what one said by its topic, and ending a habit, change the claim they name."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.facts.conftest import T0, current_facts, said_by_ines

from longtalk.facts.offline import extract_facts
from longtalk.language import WITHDRAWN, Said, read_statements


def _read(text: str) -> list[tuple[str, str, bool, bool]]:
    statements = read_statements([Said(1, "Ines", text, "Rui", T0)])
    return [(s.holder, s.claim.key, s.polarity, s.change) for s in statements]


def test_a_withdrawal_names_its_topic_and_is_the_speakers_change() -> None:
    assert _read("Forget what I told you about my brother.") == [
        ("Ines", f"{WITHDRAWN}:brother", False, True)
    ]
    assert _read("I was wrong about the keto thing.") == [
        ("Ines", f"{WITHDRAWN}:keto", False, True)
    ]
    assert _read("Disregard the Madrid plan.")[0][:2] == ("Ines", f"{WITHDRAWN}:madrid")


def test_remembering_and_forgetting_things_are_not_withdrawals() -> None:
    for text in ("Don't forget the umbrella!", "I forgot my charger at home.", "Ignore him."):
        assert not any(key.startswith(WITHDRAWN) for _, key, _, _ in _read(text)), text


@pytest.mark.parametrize(
    ("said", "gone", "kept"),
    [
        (  # a withdrawal names its topic
            (
                "My brother lives in Bilbao.",
                "I'm allergic to penicillin.",
                "Forget what I told you about my brother.",
            ),
            "Bilbao",
            "penicillin",
        ),
        (  # an end meets its claim by what ended, not by its own verb ("give")
            (
                "I drink black coffee every morning.",
                "I love to give my dogs treats.",
                "I gave up coffee.",
            ),
            "coffee",
            "treats",
        ),
    ],
)
def test_an_undoing_takes_the_claim_it_names_and_leaves_the_others(
    said: tuple[str, ...], gone: str, kept: str
) -> None:
    current = current_facts(*said)
    assert not any(gone in text for text in current), current
    assert any(kept in text for text in current), current


def test_giving_up_a_habit_supersedes_it_with_its_end() -> None:
    facts = extract_facts(
        [
            (1, said_by_ines("I smoke a pipe every evening.", T0)),
            (2, said_by_ines("I gave up the pipe in January.", T0 + timedelta(days=40))),
        ]
    )
    current = [f for f in facts if not f.retracts]
    assert not any("every evening" in f.text for f in current)
    ended = [f for f in current if "gave up" in f.text or "gave up" in f.text.lower()]
    assert ended and any("every evening" in former.text for former in ended[0].history)


def test_quitting_a_habit_said_in_another_form_of_its_verb_ends_it() -> None:
    habit = "Quick update: I smoke way less now, maybe two a day."
    assert any("two a day" in text for text in current_facts(habit))  # a fact on its own
    current = current_facts(habit, "Actually, I quit smoking completely last week!")
    assert not any("two a day" in text for text in current), current


def test_a_habit_given_up_ends_its_claim_even_when_the_end_is_no_fact_itself() -> None:
    assert current_facts("I go running every morning before work.")  # a fact on its own
    current = current_facts("I go running every morning before work.", "I gave up running.")
    assert not any("every morning" in text for text in current)


def test_leaving_what_a_claim_names_ends_the_claim() -> None:
    current = current_facts(
        "I work as an accountant at a small firm.",
        "Big news, I left accounting and now I teach maths at a primary school!",
    )
    assert not any("accountant" in text for text in current)
    assert any("teaches maths" in text for text in current)


def test_leaving_something_else_or_for_a_while_ends_nothing() -> None:
    current = current_facts(
        "I work as a nurse at the city hospital.",
        "I live in Bristol.",
        "I left work early today.",
        "I left my phone at home.",
    )
    assert any("nurse" in text for text in current)
    assert any("Bristol" in text for text in current)


def test_two_budgets_of_one_person_stand_apart_and_a_change_finds_its_own() -> None:
    current = current_facts(
        "For the kitchen I'm redoing, I can spend at most 6,000 euros.",
        "Our budget for the Iceland trip is 2,500 euros.",
        "News on the kitchen front: my limit is now 7,500 euros.",
    )
    assert any("2,500" in text for text in current)  # the trip's budget stays
    assert any("7,500" in text for text in current)
    assert not any("6,000" in text for text in current)


def test_a_budget_that_went_up_is_the_same_budget() -> None:
    current = current_facts(
        "My gym budget is 40 euros a month.", "My gym budget went up to 55 euros."
    )
    assert any("55" in text for text in current) and not any("40" in text for text in current)


async def test_a_request_made_to_a_person_at_the_start_of_an_append_is_kept() -> None:
    from longtalk import AsyncMemory

    async with AsyncMemory("memory:") as memory:
        chat = await memory.chat("two-people")
        await chat.append("assistant", "How are the night shifts going?", name="Rui", timestamp=T0)
        await chat.append("user", "Fine, tiring.", name="Ines")  # she says two in a row
        await chat.append("user", "Please never text me before 11 am, I sleep late.", name="Ines")
        facts = [fact.text for fact in await chat.facts()]
    assert any("11 am" in text for text in facts)  # said to Rui, not to an assistant


def test_a_change_said_of_the_same_time_changes_only_what_it_is_about() -> None:
    for said, change in (
        ("I do yoga every Sunday.", "I now work on Sundays."),
        ("I walk my dog Rex every morning.", "I now drink green tea every morning."),
    ):
        current = current_facts(said, change)
        assert current_facts(said)[0] in current, current


def test_a_ceasing_verb_denied_goes_on_and_ends_nothing() -> None:
    assert not any(change for *_, change in _read("I can't stop thinking about the screenplay."))
    habit = "I go running every morning before work."
    current = current_facts(habit, "I won't stop running, whatever my knee says.")
    assert any("every morning" in text for text in current), current
