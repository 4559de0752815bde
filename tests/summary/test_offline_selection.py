"""How the offline narrative weighs sentences: the opening and what the talk keeps returning to."""

from __future__ import annotations

from longtalk.summary.offline import _position_prior, _recurrence
from longtalk.summary.offline_text import Sentence


def test_words_said_again_elsewhere_weigh_more_than_words_said_once() -> None:
    said = [
        Sentence("The train to Lyon leaves early.", "Ann", "Bob", 0),
        Sentence("My cousin plays the violin beautifully.", "Bob", "Ann", 1),
        Sentence("Trains to Lyon are cheap on Sundays.", "Ann", "Bob", 2),
    ]
    recurring = _recurrence(said)
    assert recurring[1] == 0.0
    assert recurring[0] > 0.0 and recurring[2] > 0.0
    assert all(0.0 <= value <= 1.0 for value in recurring)


def test_only_a_first_summary_lifts_its_opening_sentence() -> None:
    fresh = [Sentence(f"Sentence {n} here.", "Ann", "Bob", n) for n in range(3)]
    first = _position_prior(fresh, 0.8, opening=1.2)
    assert first[0] == 1.2 and first[1] < 1.0
    old = Sentence("Ann plans a trip.", turn=-1)
    extended = _position_prior([old, *fresh], 0.8, story=1.25, opening=1.2)
    assert extended[1] == 1.0
