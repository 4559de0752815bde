"""An append's commit with the durable facts its messages state, found before it.

Storage only writes: the facts are found here, numbered with the sequences the messages
will get, and handed to the commit as data (``FoundFacts``). The sequences depend on how
many messages the chat holds when the commit lands, so the commit is guarded by that count:
when a concurrent append moved it, nothing is written, ``MessageCountMoved`` says the
count, and the facts are numbered again. Counts are remembered per chat, so an append
usually commits at the first try without reading the chat first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from longtalk.core.history import Numbered
from longtalk.core.messages import Message
from longtalk.facts.offline import remembered
from longtalk.storage.base import (
    CommitResult,
    FoundFacts,
    MessageCountMoved,
    MessageStore,
    TurnCommit,
)

FindFacts = Callable[[Sequence[Numbered], Sequence[Message]], Sequence[Mapping[str, Any]]]
"""The durable facts numbered messages state, serialised (the facts layer's extractor),
given the chat's latest messages before them (whom the first answers) when known."""
RECENT = 8
"""How many of a chat's latest messages tell whom the next ones answer (an append's
remembered speakers, a summary fold's loaded messages)."""
APPEND_ATTEMPTS = 16
"""Commits of one append that concurrent appends to its chat may overtake before it fails."""
KNOWN_COUNTS = 4096
"""Chats whose message count is remembered (what an append's facts are numbered from)."""


class AppendWriter:
    """Commits appends with their found facts; remembers each chat's message count."""

    def __init__(self, storage: MessageStore) -> None:
        self.storage = storage
        self._counts: OrderedDict[str, tuple[int, tuple[Message, ...]]] = OrderedDict()

    async def commit(self, commit: TurnCommit, find: FindFacts) -> CommitResult:
        """Write ``commit`` with the facts ``find`` sees in its new messages.

        ``MessageCountMoved`` only when concurrent appends overtook it every time.
        """
        numbered_for, previous = self._counts.get(commit.chat_id, (0, ()))
        for attempt in range(APPEND_ATTEMPTS):
            found = found_facts(commit.append.messages, numbered_for, find, previous)
            try:
                result = await self.storage.commit_turn(commit.with_found_facts(found))
            except MessageCountMoved as moved:
                numbered_for, previous = moved.message_count, ()
                if attempt + 1 == APPEND_ATTEMPTS:
                    raise
                continue
            said = map(remembered, commit.append.messages)
            recent = (*previous, *said)[-RECENT:]  # who spoke and what they asked, per chat
            self._remember(result.chat.id, result.chat.message_count, recent)
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def _remember(self, chat_id: str, count: int, recent: tuple[Message, ...]) -> None:
        self._counts[chat_id] = (count, recent)
        self._counts.move_to_end(chat_id)
        while len(self._counts) > KNOWN_COUNTS:
            self._counts.popitem(last=False)


def found_facts(
    messages: Sequence[Message],
    numbered_for: int,
    find: FindFacts,
    previous: Sequence[Message] = (),
) -> FoundFacts | None:
    """The facts ``messages`` state, numbered as if the chat held ``numbered_for``; None if none.

    ``previous`` are the chat's latest messages up to number ``numbered_for``, when known.
    """
    if not messages:
        return None
    numbered = [(numbered_for + 1 + index, message) for index, message in enumerate(messages)]
    facts = tuple(find(numbered, previous))
    return FoundFacts(facts, numbered_for) if facts else None
