"""A change or retraction filed under a new subject replaces the claim it speaks of."""

from __future__ import annotations

from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.merge import merge_facts


def _fact(subject: str, text: str, value: str, sequence: int, **flags: bool) -> DurableFact:
    return DurableFact(
        kind="preference",
        subject=subject,
        holder="Ana",
        text=text,
        sequences=(sequence,),
        value=value,
        **flags,
    )


def test_a_switch_replaces_the_claim_sharing_its_object() -> None:
    tennis = _fact("play:tennis", "Ana plays tennis twice a week.", "tennis twice a week", 1)
    cello = _fact("play:cello", "Ana plays the cello.", "the cello", 2)
    padel = _fact(
        "switch:tennis",
        "Ana switched from tennis to padel.",
        "from tennis to padel",
        3,
        changes=True,
    )
    merged = merge_facts([tennis, cello], [padel])
    assert [f.text for f in merged] == [
        "Ana switched from tennis to padel.",
        "Ana plays the cello.",
    ]
    assert [former.text for former in merged[0].history] == ["Ana plays tennis twice a week."]


def test_a_retraction_by_name_replaces_the_named_thing_and_no_other_of_its_kind() -> None:
    boat = _fact(
        "own:sailboat", "Ana owns a sailboat called Marlin.", "a sailboat called marlin", 1
    )
    shellfish = _fact(
        "allergic:shellfish", "Ana is allergic to shellfish.", "allergic to shellfish", 2
    )
    gone = _fact("own", "Ana no longer owns Marlin.", "not marlin", 3, retracts=True, changes=True)
    kiwi = _fact(
        "allergic:nuts",
        "Ana is not allergic to nuts.",
        "not allergic to nuts",
        4,
        retracts=True,
        changes=True,
    )
    merged = merge_facts([boat, shellfish], [gone, kiwi])
    current = [f.text for f in merged if not f.retracts]
    assert current == ["Ana is allergic to shellfish."]  # "allergic" alone matches nothing


def test_an_ordinary_statement_never_replaces_another_subject() -> None:
    tennis = _fact("play:tennis", "Ana plays tennis twice a week.", "tennis twice a week", 1)
    watched = _fact("watch:tennis", "Ana watches tennis on TV.", "tennis on tv", 2)
    merged = merge_facts([tennis], [watched])
    assert [f.text for f in merged] == [
        "Ana plays tennis twice a week.",
        "Ana watches tennis on TV.",
    ]
