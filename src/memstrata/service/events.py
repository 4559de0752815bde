"""Per-chat summarization events, fanned out to Server-Sent-Event subscribers.

Streams follow one incarnation of a chat (``ChatRecord.incarnation``): events of a chat
created later under the same id never reach them, and deleting the chat ends them.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Literal

EventKind = Literal["state", "appended", "summarizing", "summarized", "failed"]
SummaryState = Literal["idle", "summarizing", "failed"]
QUEUE_SIZE = 100


@dataclass(frozen=True, slots=True)
class ChatEvent:
    """One summarization event of a chat."""

    kind: EventKind
    chat_id: str
    state: SummaryState
    episode_ranges: list[tuple[int, int]] = field(default_factory=list)
    error: str | None = None
    summary_version: int | None = None
    message_count: int | None = None
    incarnation: str = ""

    def to_sse(self) -> str:
        """The event as one Server-Sent-Events frame (the incarnation stays internal)."""
        data = asdict(self)
        data.pop("kind")
        data.pop("incarnation")
        return f"event: {self.kind}\ndata: {json.dumps(data)}\n\n"


class EventHub:
    """Delivers chat events to every subscriber of that chat; slow subscribers drop events."""

    def __init__(self) -> None:
        self._subscribers: dict[tuple[str, str], set[asyncio.Queue[ChatEvent | None]]] = (
            defaultdict(set)
        )

    def publish(self, event: ChatEvent) -> None:
        """Send ``event`` to the subscribers of its chat incarnation (never blocks)."""
        for queue in list(self._subscribers.get((event.chat_id, event.incarnation), ())):
            if queue.full():
                continue
            queue.put_nowait(event)

    def end(self, chat_id: str, incarnation: str) -> None:
        """End every stream of a deleted chat (the end is delivered even to a full queue)."""
        for queue in list(self._subscribers.get((chat_id, incarnation), ())):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    def close(self) -> None:
        """End every subscription (at shutdown)."""
        for queues in self._subscribers.values():
            for queue in queues:
                if not queue.full():
                    queue.put_nowait(None)

    def subscribers(self, chat_id: str) -> int:
        """How many streams follow the chat (any incarnation)."""
        found = [queues for (chat, _), queues in self._subscribers.items() if chat == chat_id]
        return sum(len(queues) for queues in found)

    async def subscribe(
        self, chat_id: str, first: ChatEvent, *, heartbeat: float = 15.0
    ) -> AsyncIterator[str]:
        """SSE frames for one chat: ``first``, then live events, with comment heartbeats.

        The stream follows the incarnation ``first`` names.
        """
        key = (chat_id, first.incarnation)
        queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue(QUEUE_SIZE)
        self._subscribers[key].add(queue)
        try:
            yield first.to_sse()
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), heartbeat)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if event is None:
                    return
                yield event.to_sse()
        finally:
            self._subscribers[key].discard(queue)
            if not self._subscribers[key]:
                del self._subscribers[key]
