"""A message that takes back its speaker's last words in words of its own: the learned model.

The sentences here are in none of the model's training data. The model is a linear head
over a parse and a sentence vector: on the held-out labelled messages it finds about half
of the take-backs (``docs/benchmarks.md``), so it is asked for a share of a list, and
asked never to fire on plain claims as short as many take-backs are.
"""

from __future__ import annotations

from tests.facts.conftest import current_facts

from longtalk.language.nlp import parse
from longtalk.language.take_backs import takes_back

CORRECTIONS = (
    "sorry that was a typo, she's 6",
    "no idea why I wrote Madrid, she lives in Porto",
    "ok 'expert' was an exaggeration, I've skied twice",
    "wrong chat, sorry! that was for my sister",
    "I misspoke earlier, it's my aunt not my mum",
    "ugh ignore what I just said, my son was typing",
    "that's not right actually, I've never been to Cuba",
)
PLAIN = (
    "I'm 34.",
    "My sister is a nurse in Leeds.",
    "We moved to Porto last year.",
    "I was wrong to worry about the exam.",
    "Sorry, I can't talk now, I'm at work.",
    "I mean, it's a great city to live in.",
    "Honestly I love my job.",
)


def test_corrections_in_words_of_their_own_are_found() -> None:
    found = [text for text in CORRECTIONS if takes_back(parse(text))]
    assert len(found) >= 3, found


def test_a_plain_claim_takes_nothing_back() -> None:
    assert not [text for text in PLAIN if takes_back(parse(text))]


def test_a_correction_undoes_the_main_claim_of_the_message_before() -> None:
    current = current_facts(
        "I'm allergic to penicillin.",
        "my dog Biscuit is 12 this year",
        "sorry typo, he's 2, still a baby",
    )
    assert not any("12" in text for text in current), current
    assert any("Biscuit" in text for text in current), current  # his name stands
    assert any("penicillin" in text for text in current), current


def test_a_take_back_undoes_what_the_speaker_said_of_another() -> None:
    current = current_facts("my dad's a pilot", "wrong chat, sorry! that was for my sister")
    assert not any("pilot" in text for text in current), current
