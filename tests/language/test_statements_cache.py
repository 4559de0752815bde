"""A message's statements are read once and kept: a second read returns the very same."""

from __future__ import annotations

from datetime import datetime

from longtalk.core.recent import RecentCache
from longtalk.language import nlp, statements
from longtalk.language.statements import Said, read_statements, statements_of


def test_a_message_read_again_is_not_parsed_again_and_reads_the_same() -> None:
    said = Said(3, "Ines", "I'm vegetarian and my sister Rosa lives in Porto.", "Rui")
    first = read_statements([said])
    assert said in statements._read
    nlp._cache.discard(said.text)  # a second parse would leave the text cached again
    again = read_statements([Said(2, "Rui", "Hi Ines!", "Ines"), said])
    assert again[-len(first) :] == first
    assert all(a is b for a, b in zip(again[-len(first) :], first, strict=True))
    assert said.text not in nlp._cache
    assert first == list(statements_of(said, nlp.parse(said.text)))


def test_what_a_message_states_is_kept_per_speaker_listener_and_date() -> None:
    text = "I moved to Lisbon last year."
    one = read_statements([Said(1, "Ines", text, "Rui", datetime(2024, 5, 1))])
    other = read_statements([Said(1, "Rui", text, "Ines", datetime(2021, 5, 1))])
    assert [s.holder for s in one] == ["Ines"] and [s.holder for s in other] == ["Rui"]
    assert one[0].said_at != other[0].said_at


def test_the_kept_statements_are_bounded() -> None:
    saids = [Said(n, "Ines", f"I have {n} cats.", "Rui") for n in range(5)]
    kept = statements._read
    try:
        statements._read = RecentCache(3)
        read_statements(saids)
        assert len(statements._read) == 3
        assert all(said in statements._read for said in saids[-3:])
    finally:
        statements._read = kept
