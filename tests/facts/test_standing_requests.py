"""A person's standing request of how to treat them is their fact, quoted; nothing else is."""

from __future__ import annotations

from longtalk.facts.claims import fact_of
from longtalk.language import ASSISTANT
from longtalk.language.statements import Said, read_statements


def _facts(text: str, listener: str = "Ben") -> list[tuple[str, str]]:
    found = [fact_of(s) for s in read_statements([Said(1, "Ana", text, listener)])]
    return [(f.holder, f.text) for f in found if f is not None]


def test_a_request_bounded_in_time_is_the_speakers_fact_in_their_words() -> None:
    expected = ("Ana", 'Ana said: "Don\'t call me after 9 pm."')
    assert _facts("Don't call me after 9 pm.") == [expected]
    assert ("Ana", 'Ana said: "Never send me voice notes."') in _facts("Never send me voice notes.")


def test_a_request_opening_a_sentence_the_parser_hung_under_the_next_clause_is_read() -> None:
    found = _facts("Please never ring me before 10 am, I work late and sleep in.")
    assert ("Ana", 'Ana said: "Please never ring me before 10 am."') in found


def test_naming_the_speaker_and_a_one_off_request_are_not_facts() -> None:
    assert _facts("Please call me Jojo, everybody does.") == []
    assert _facts("Call me tomorrow.") == []
    assert _facts("Send me the photos!") == []


def test_the_same_words_to_an_assistant_are_an_instruction_never_a_fact() -> None:
    assert _facts("Don't call me after 9 pm.", listener=ASSISTANT) == []
