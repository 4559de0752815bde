"""Per-chat summarization events, fanned out to Server-Sent-Event subscribers."""

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

    def to_sse(self) -> str:
        """The event as one Server-Sent-Events frame."""
        data = asdict(self)
        data.pop("kind")
        return f"event: {self.kind}\ndata: {json.dumps(data)}\n\n"


class EventHub:
    """Delivers chat events to every subscriber of that chat; slow subscribers drop events."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[asyncio.Queue[ChatEvent | None]]] = defaultdict(set)

    def publish(self, event: ChatEvent) -> None:
        """Send ``event`` to the chat's subscribers (never blocks)."""
        for queue in list(self._subscribers.get(event.chat_id, ())):
            if queue.full():
                continue
            queue.put_nowait(event)

    def close(self) -> None:
        """End every subscription (at shutdown)."""
        for queues in self._subscribers.values():
            for queue in queues:
                if not queue.full():
                    queue.put_nowait(None)

    def subscribers(self, chat_id: str) -> int:
        """How many streams follow the chat."""
        return len(self._subscribers.get(chat_id, ()))

    async def subscribe(
        self, chat_id: str, first: ChatEvent, *, heartbeat: float = 15.0
    ) -> AsyncIterator[str]:
        """SSE frames for one chat: ``first``, then live events, with comment heartbeats."""
        queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue(QUEUE_SIZE)
        self._subscribers[chat_id].add(queue)
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
            self._subscribers[chat_id].discard(queue)
            if not self._subscribers[chat_id]:
                del self._subscribers[chat_id]
