"""A ``where`` clause with its own subject and complement states a fact of its own."""

from __future__ import annotations

from tests.facts.conftest import current_facts


def test_where_i_work_as_says_what_the_speaker_does() -> None:
    said = (
        "After a long day at the dental clinic, where I work as a hygienist, I just want to sleep."
    )
    assert "Ines works as a hygienist." in current_facts(said)


def test_a_relative_clause_missing_its_object_is_no_rewrite() -> None:
    # "the car I want to buy" lacks what is bought: "Ines wants to buy." would be garbled
    for said in ("That's the car I want to buy.", "The movie I saw yesterday was great."):
        assert not any(
            text.endswith(("wants to buy.", "saw yesterday.")) for text in current_facts(said)
        )
