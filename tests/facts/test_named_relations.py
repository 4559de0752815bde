"""A relation named in passing (``my best friend Lena``) is its owner's fact, and one fact."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from longtalk.core.messages import Message
from longtalk.facts.offline import extract_facts

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def _current(*texts: str) -> list[str]:
    messages = [
        (n, Message(role="user", content=text, name="Ines", timestamp=T0 + timedelta(days=n)))
        for n, text in enumerate(texts, start=1)
    ]
    return [fact.text for fact in extract_facts(messages)]


def test_a_relation_named_in_passing_is_kept_as_a_fact() -> None:
    current = _current("My best friend Lena carries an EpiPen.")
    assert "Lena is Ines's best friend." in current, current


def test_named_twice_it_is_one_fact() -> None:
    current = _current("My wife Rosa cooked.", "We ate late because my wife Rosa worked.")
    assert current.count("Rosa is Ines's wife.") == 1, current


def test_a_name_asked_about_is_no_fact() -> None:
    assert not any("Rosa" in text for text in _current("Is your wife Rosa coming?"))
