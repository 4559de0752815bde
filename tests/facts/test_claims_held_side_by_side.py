"""Claims one holds side by side: a second of many, another family, a change said by "now"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.facts.conftest import T0, current_facts, said_by_ines

from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.merge import merge_facts, read_together
from longtalk.facts.offline import extract_facts


def _claim(subject: str, sequence: int) -> DurableFact:
    return DurableFact("constraint", subject, "Ines", f"Ines on {subject}.", (sequence,))


@pytest.mark.parametrize(
    ("earlier", "later", "first", "second"),
    [
        (  # a second named thing one does
            "I usually play CS:GO with my friends.",
            "These days I'm playing Xenoblade Chronicles, a huge fantasy RPG.",
            "CS:GO",
            "Xenoblade",
        ),
        ("I'm vegetarian.", "I'm allergic to zorblatnuts.", "vegetarian", "zorblatnuts"),
        (  # "now" alone is no word of change
            "I've started learning to play the piano.",
            "I'm learning to play the violin now, so fun.",
            "piano",
            "violin",
        ),
        (  # budgets of two purposes
            "For the used car I'm saving for, I can spend at most 3,500 dollars.",
            "Our budget for the Japan trip is 3,500 euros.",
            "3,500 dollars",
            "Japan trip",
        ),
    ],
)
def test_both_claims_stay_current(earlier: str, later: str, first: str, second: str) -> None:
    current = current_facts(earlier, later)
    assert any(first in text for text in current), current
    assert any(second in text for text in current), current


def test_a_new_amount_of_a_budget_sets_it_without_a_word_of_change() -> None:
    current = current_facts(
        "My budget for the car is 5,000 euros.",
        "Update on the car hunt: my limit is 4,200 euros.",
    )
    assert any("4,200" in text for text in current), current
    assert not any("5,000" in text for text in current), current


def test_a_word_of_change_still_ends_a_claim_named_otherwise() -> None:
    current = current_facts(
        "I play tennis every weekend.", "I switched from tennis to padel, way more fun."
    )
    assert not any("tennis every weekend" in text for text in current), current
    assert any("padel" in text for text in current), current


def test_the_succession_model_reads_only_claims_the_parse_could_not_tell_apart() -> None:
    def together(earlier: str, later: str) -> bool:
        return read_together(_claim(earlier, 1), _claim(later, 2))

    assert not together("diet", "allergic:zorblatnut")
    assert not together("home", "employer")
    assert not together("budget:car", "budget:japan trip")
    assert together("budget:car", "budget")  # a bare budget may be the car's
    assert together("employer", "said:joining brother landscaping business")
    assert together("play:tennis", "switch:padel")


def test_merging_the_merged_facts_again_changes_nothing() -> None:
    # a change that has ended its claim carries that claim as its history; merged again (as
    # the chat's stored facts are, with every new batch), it must not look for another
    texts = [
        "Whenever I fly I book an aisle seat so I can stretch my legs.",
        "I play tennis twice a week.",
        "I switched from tennis to padel, my knees are happier.",
    ]
    messages = [
        (n, said_by_ines(text, T0 + timedelta(days=n))) for n, text in enumerate(texts, start=1)
    ]
    merged = extract_facts(messages)
    assert any("aisle seat" in fact.text for fact in merged), merged
    assert merge_facts(merged, ()) == merged


def test_a_verb_alone_is_no_claim_two_statements_share() -> None:
    current = current_facts(
        "I take them on road trips once every couple of months.",
        "I took them to a snowy one last winter and they were so confused!",
    )
    assert any("road trips" in text for text in current), current
    assert any("snowy" in text for text in current), current
