"""Merging facts: duplicates unite their provenance, the later supersedes, order is stable."""

from __future__ import annotations

from datetime import UTC, datetime

from longtalk.facts import DurableFact, merge_facts


def budget(amount: str, sequence: int, day: int | None = None) -> DurableFact:
    when = datetime(2023, 5, day, tzinfo=UTC) if day else None
    return DurableFact(
        "constraint",
        "budget:car",
        "Ana",
        f"Ana's budget for the car is {amount}.",
        (sequence,),
        when,
        value=amount.replace(",", ""),
    )


def diet(text: str, sequence: int, value: str = "vegetarian") -> DurableFact:
    return DurableFact("constraint", "diet", "Ana", text, (sequence,), None, value=value)


def test_a_later_budget_supersedes_the_earlier() -> None:
    merged = merge_facts([budget("3,500", 10)], [budget("4,000", 200)])
    assert [f.text for f in merged] == ["Ana's budget for the car is 4,000."]
    assert merged[0].sequences == (200,)


def test_an_older_statement_found_later_does_not_supersede() -> None:
    merged = merge_facts([budget("4,000", 200, day=20)], [budget("3,500", 10, day=2)])
    assert [f.value for f in merged] == ["4000"]


def test_time_decides_before_sequence_and_naive_times_compare_with_aware_ones() -> None:
    naive = DurableFact(
        "constraint",
        "budget:car",
        "Ana",
        "Ana's budget for the car is 5,000.",
        (1,),
        datetime(2023, 6, 1),
        value="5000",
    )
    merged = merge_facts([naive], [budget("4,000", 50, day=20)])
    assert [f.value for f in merged] == ["5000"]


def test_duplicates_merge_with_provenance_united() -> None:
    first = diet("Ana is vegetarian.", 4)
    again = diet("Ana has been vegetarian for years.", 90)
    (merged,) = merge_facts([first], [again])
    assert merged.text == "Ana is vegetarian."  # the first wording stays
    assert merged.sequences == (4, 90)


def test_the_same_words_under_another_subject_are_one_fact() -> None:
    offline = diet("Ana is vegan.", 4, value="vegan")
    summary = DurableFact(
        "preference", "taste:vegan", "Ana", "Ana is vegan", (7,), None, source="summary"
    )
    (merged,) = merge_facts([offline], [summary])
    assert merged.sequences == (4, 7) and merged.source == "offline"


def test_a_given_fact_stays_given_and_the_latest_time_is_kept() -> None:
    given = DurableFact(
        "constraint",
        "diet",
        "Ana",
        "Ana is vegetarian.",
        (),
        datetime(2023, 1, 1),
        source="given",
        value="vegetarian",
    )
    said = DurableFact(
        "constraint",
        "diet",
        "Ana",
        "Ana is vegetarian.",
        (12,),
        datetime(2023, 3, 1),
        value="vegetarian",
    )
    (merged,) = merge_facts([given], [said])
    assert merged.source == "given"
    assert merged.said_at == datetime(2023, 3, 1)
    assert merged.sequences == (12,)


def test_holders_and_subjects_are_kept_apart_in_first_seen_order() -> None:
    bob = DurableFact("constraint", "diet", "Bob", "Bob is vegan.", (5,), value="vegan")
    allergy = DurableFact(
        "constraint", "allergy:nut", "Ana", "Ana is allergic to nuts.", (6,), value="nut"
    )
    merged = merge_facts([diet("Ana is vegetarian.", 1), bob], [allergy, budget("900", 8)])
    assert [(f.holder, f.subject) for f in merged] == [
        ("Ana", "diet"),
        ("Bob", "diet"),
        ("Ana", "allergy:nut"),
        ("Ana", "budget:car"),
    ]


def test_a_changed_mind_replaces_the_fact_in_place() -> None:
    vegetarian = diet("Ana is vegetarian.", 1)
    pet = DurableFact("possession", "pet:rex", "Ana", "Ana's dog is called Rex.", (2,))
    vegan = diet("Ana is vegan.", 30, value="vegan")
    merged = merge_facts([vegetarian, pet], [vegan])
    assert [f.text for f in merged] == ["Ana is vegan.", "Ana's dog is called Rex."]


def test_merging_is_idempotent() -> None:
    facts = merge_facts([], [budget("3,500", 10), diet("Ana is vegetarian.", 3)])
    assert merge_facts(facts, facts) == facts


def test_a_plan_on_a_lasting_claim_is_its_latest_word() -> None:
    home = DurableFact("identity", "home", "Ana", "Ana lives in Porto.", (3,), value="Porto")
    move = DurableFact(
        "commitment", "home:lisbon", "Ana", 'Ana said: "We move to Lisbon in May."', (90,)
    )
    visit = DurableFact(
        "commitment", "visit:lisbon", "Ana", 'Ana said: "We visit Lisbon in May."', (90,)
    )
    merged = merge_facts([home], [move])
    assert [f.text for f in merged] == [move.text]
    assert [former.text for former in merged[0].history] == [home.text]
    assert [f.text for f in merge_facts([home], [visit])] == [home.text, visit.text]
