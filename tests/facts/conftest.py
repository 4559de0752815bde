"""What the facts tests share: one speaker's messages, a day apart, read for current facts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from longtalk.core.messages import Message
from longtalk.facts.offline import extract_facts

T0 = datetime(2024, 3, 1, tzinfo=UTC)
"""When the first message of :func:`current_facts` is said."""


def said_by_ines(text: str, at: datetime) -> Message:
    """``text`` as a user message of Ines's, said at ``at``."""
    return Message(role="user", content=text, name="Ines", timestamp=at)


def chat(*turns: tuple[str, str]) -> list[tuple[int, Message]]:
    """``(speaker, text)`` turns as user messages of those speakers, one a minute."""
    return [
        (n, Message(role="user", content=text, name=who, timestamp=T0 + timedelta(minutes=n)))
        for n, (who, text) in enumerate(turns, start=1)
    ]


def current_facts(*texts: str) -> list[str]:
    """The current facts' texts after Ines says ``texts``, one a day (no retraction is one)."""
    messages = [
        (n, said_by_ines(text, T0 + timedelta(days=n))) for n, text in enumerate(texts, start=1)
    ]
    return [fact.text for fact in extract_facts(messages)]
