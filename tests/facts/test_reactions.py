"""A message that is one fragment with no verb, naming no one, is a reaction, not a fact."""

from __future__ import annotations

import pytest
from tests.facts.conftest import T0, chat

from longtalk.facts import extract_facts
from longtalk.language import Said, read_statements


def _texts(*turns: tuple[str, str]) -> list[str]:
    return [fact.text for fact in extract_facts(chat(*turns))]


@pytest.mark.parametrize("reaction", ["ooh fancy", "PICKLE 😍", "wise woman", "legend."])
def test_a_reaction_alone_is_no_fact(reaction: str) -> None:
    texts = _texts(("Maya", "I'm starting a masters at LSE in September"), ("Jordan", reaction))
    assert texts == ["Maya is starting a masters at LSE in September."]


@pytest.mark.parametrize(
    ("question", "reply", "kept"),
    [
        # an answer says what the question asks
        ("what car do you drive?", "a battered old Volvo estate.", "Volvo"),
        # a fragment with a verb states what the speaker does
        ("", "driving for DHL now, way less stress", "DHL"),
    ],
)
def test_fragments_that_say_something_are_read_as_before(
    question: str, reply: str, kept: str
) -> None:
    turns = [("Maya", question)] if question else [("Maya", "how are things?")]
    texts = _texts(*turns, ("Jordan", reply))
    assert any(kept in text for text in texts), texts


def test_a_reaction_is_marked_only_when_it_is_the_whole_message() -> None:
    def marked(text: str, asked: str = "") -> list[bool]:
        return [s.reaction for s in read_statements([Said(2, "Jordan", text, "Maya", T0, asked)])]

    assert marked("ooh fancy") == [True]
    assert not any(marked("Spiders. that's my thing, I can't be in a room with one"))
    assert not any(marked("a battered old Volvo estate.", "what car do you drive?"))
