"""Clauses the parse hangs under a wrapper, a tag or a participle are still read."""

from __future__ import annotations

from longtalk.language.statements import Said, Statement, read_statements


def _read(text: str) -> list[Statement]:
    return read_statements([Said(1, "Ana", text, "Ben")])


def test_a_clause_wrapped_in_turns_out_is_read_with_its_negation() -> None:
    found = [
        s for s in _read("Turns out I'm not allergic to kiwi after all, the test was negative.")
    ]
    kiwi = [s for s in found if s.claim.key == "allergic:kiwi"]
    assert kiwi and not kiwi[0].polarity and kiwi[0].change and kiwi[0].modality == "asserted"


def test_a_question_tag_to_the_listener_does_not_make_a_clause_reported() -> None:
    age = [s for s in _read("I'm 34, can you believe it.") if s.claim.key == "age"]
    assert age and age[0].modality == "asserted"
    told = [s for s in _read("My mother says I'm stubborn as a mule.") if s.lemma == "be"]
    assert all(s.modality == "reported" for s in told)


def test_a_leading_participle_describes_the_main_subject() -> None:
    owl = [s for s in _read("Being a night owl, I never book anything before noon.")]
    assert any(s.holder == "Ana" and "night owl" in s.value for s in owl)


def test_a_rewrite_keeps_a_leading_phrase_whole_and_names_its_speaker_once() -> None:
    diabetic = _read("As a diabetic I have to watch my sugar.")
    assert [s.quote for s in diabetic if not s.text] == ["As a diabetic I have to watch my sugar."]
    limit = [s.text for s in _read("Update on the car hunt: my limit is now 4,200.")]
    assert "Ana's limit is now 4,200." in limit


def test_lets_is_quoted_with_its_let() -> None:
    raised = [s for s in _read("Let's raise the budget to 4,000 euros.") if s.claim.key == "budget"]
    assert raised and raised[0].quote == "Let's raise the budget to 4,000 euros."


def test_a_state_reached_is_read_as_a_state() -> None:
    went = [s for s in _read("I went vegetarian last spring.")]
    assert any(s.claim.key == "diet" for s in went)


def test_a_quoted_title_keeps_its_closing_mark() -> None:
    read = _read('I recently finished rereading "The Alchemist".')
    assert [s.text for s in read] == ['Ana recently finished rereading "The Alchemist".']


def test_words_that_run_up_to_a_question_mark_ask_and_are_never_rewritten() -> None:
    asked = [s for s in _read("I never really asked, what breed is Toby?") if s.lemma == "ask"]
    assert [(s.modality, s.text) for s in asked] == [("question", "")]
    pork = [s for s in _read("I don't eat pork, so maybe not the bbq place?") if s.lemma == "eat"]
    assert [(s.modality, s.text) for s in pork] == [("asserted", "Ana doesn't eat pork.")]
    late = "had to drop my daughter Priya at practice and the lot was chaos, anyway what's new?"
    assert [s.modality for s in _read(late) if s.claim.key == "daughter:name"] == ["asserted"]
    assert [s.text for s in _read("I love sushi, do you?") if s.lemma == "love"] == [
        "Ana loves sushi."
    ]
