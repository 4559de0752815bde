"""The named features the statement-kind model reads: what each says of the words."""

from __future__ import annotations

from longtalk.language.kinds import feature_names
from longtalk.language.statements import Said, read_statements


def names(text: str) -> list[str]:
    (statement,) = read_statements([Said(1, "Ana", text, listener="Sam")])
    return feature_names(statement)


def test_an_exclamation_is_a_feature_of_its_own() -> None:
    assert "exclaimed" in names("I'm on fire!")
    assert "exclaimed" not in names("I'm a nurse.")


def test_words_addressed_to_the_listener_are_a_feature() -> None:
    assert "to-listener" in names("I noticed a pin on your purse.")
    assert "to-listener" not in names("I noticed a pin on my purse.")


def test_how_often_is_a_feature() -> None:
    assert "habitual" in names("I build furniture in my shed every weekend.")
    assert "habitual" not in names("I built furniture in my shed last weekend.")
