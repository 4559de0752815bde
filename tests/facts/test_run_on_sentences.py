"""Chat runs sentences on: each clause is read for what it says, and changes find their claim."""

from __future__ import annotations

from tests.facts.conftest import T0, current_facts

from longtalk.language import Said, read_statements


def _quotes(text: str) -> dict[str, str]:
    """Claim key -> the words quoted for it."""
    return {s.claim.key: s.quote for s in read_statements([Said(1, "Ines", text, "Rui", T0)])}


def test_a_clause_run_on_after_another_is_its_own_claim() -> None:
    current = current_facts(
        "Had to cancel the picnic, my buddy Marco is allergic to bees and there was a nest."
    )
    assert "Ines's buddy Marco is allergic to bees." in current


def test_a_thanks_set_off_by_a_comma_is_not_part_of_the_claim() -> None:
    quotes = _quotes("Thanks, I've been learning the cello for three years.")
    assert quotes["learn:cello"] == "I've been learning the cello for three years."
    assert _quotes("Please never ring me before 10 am.")["ring"].startswith("Please")


def test_quitting_a_place_ends_the_work_there() -> None:
    current = current_facts(
        "I work as a barista at a café on Elm Street.",
        "Big news, I quit the café and started as a junior web developer this week!",
    )
    assert not any("barista" in text for text in current)


def test_a_withdrawal_the_parser_hung_under_another_clause_still_withdraws() -> None:
    current = current_facts(
        "I have a cat named Biscuit.",
        "Ignore what I said about a cat, Biscuit is my sister's, I've never had pets.",
    )
    assert not any("cat named Biscuit" in text for text in current)


def test_dropping_out_ends_what_was_trained_for() -> None:
    current = current_facts(
        "I'm training for the Berlin marathon.",
        "I dropped out of the Berlin marathon, my knee couldn't take it.",
    )
    assert not any("training" in text for text in current)


def test_a_correction_run_on_after_a_remark_supersedes_the_home() -> None:
    current = current_facts("I live in Madrid.", "That's not right actually, I live in Valencia.")
    assert "Ines lives in Valencia." in current
    assert not any("Madrid" in text for text in current)


def test_denying_any_object_takes_back_the_claim() -> None:
    current = current_facts(
        "I'm training for a triathlon.", "I'm not training for anything, I said that to sound cool."
    )
    assert not any("triathlon" in text for text in current)


def test_a_verb_phrase_run_on_after_a_comma_is_not_part_of_the_claim() -> None:
    quotes = _quotes("lol jk I don't have a hamster, was just messing with you")
    assert quotes["have:hamster"].endswith("I don't have a hamster.")
    quotes = _quotes(
        "Just so you know I don't drink alcohol, never have, so a bar crawl isn't really my scene"
    )
    assert quotes["drink:alcohol"] == "I don't drink alcohol."  # the unbroken run, negation kept


def test_a_question_run_on_after_a_statement_asks_only_itself() -> None:
    current = current_facts("fyi I don't eat pork, so maybe not the bbq place?")
    assert "Ines doesn't eat pork." in current, current
    assert not current_facts("Do you eat pork, or is it just beef?")


def test_a_tag_question_asks_the_clause_it_follows() -> None:
    for asked in ("You're vegetarian, aren't you?", "You're a nurse, right?"):
        assert not current_facts(asked), asked
    assert current_facts("I'm vegetarian, remember?") == ["Ines is vegetarian."]  # a reminder
    (loves, _) = read_statements([Said(1, "Ines", "I love sushi, do you?", "Rui", T0)])
    assert (loves.claim.key, loves.modality) == ("taste:sushi", "asserted")  # asks the listener
