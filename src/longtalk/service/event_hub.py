"""Per-chat summarization events, fanned out to Server-Sent-Event subscribers.

Within one process :class:`EventHub` delivers an event to the chat's subscribers directly.
Several replicas share events through an :class:`EventRelay` (PostgreSQL ``LISTEN/NOTIFY``,
see ``event_relay``): a published event is also sent to the relay, and events relayed from
other replicas are delivered here as if published locally.

Streams follow one incarnation of a chat (``ChatRecord.incarnation``): events of a chat
created later under the same id never reach them, and deleting the chat ends them. An event
with an empty incarnation is about whatever chat has the id now.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from typing import Literal, Protocol

from longtalk.wire.fields import SummaryState as SummaryState  # the jobs name it from here

EventKind = Literal["state", "appended", "summarizing", "summarized", "failed"]
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


class EventRelay(Protocol):
    """Carries this replica's events to the other replicas (fire and forget)."""

    def send(self, event: ChatEvent) -> None:
        """Queue ``event`` for the other replicas; never blocks."""
        ...


class SummaryStates:
    """Each chat's summary state as its events tell it; only non-idle chats are kept.

    Each state remembers when it was observed (``time.monotonic()``), so that a check
    against the job table (:meth:`settle`) never overrides an event newer than the check,
    and which incarnation of the chat it is of: a chat id deleted and created again reads
    ``idle`` until its own jobs report, whatever a late event of the former chat said.
    """

    def __init__(self) -> None:
        self._states: dict[str, tuple[SummaryState, str | None, float]] = {}
        self._incarnations: dict[str, str] = {}

    def observe(self, event: ChatEvent) -> None:
        """Follow a ``summarizing``, ``summarized`` or ``failed`` event."""
        if event.kind not in ("summarizing", "summarized", "failed"):
            return
        if event.state == "idle":
            self.clear(event.chat_id)
        else:
            self._states[event.chat_id] = (event.state, event.error, time.monotonic())
            self._incarnations[event.chat_id] = event.incarnation

    def get(self, chat_id: str, incarnation: str = "") -> tuple[SummaryState, str | None]:
        """The chat's state and last error (``idle`` when nothing is known of this chat).

        With ``incarnation``, a state another incarnation of the id reported is not this
        chat's: ``idle``.
        """
        known = self._incarnations.get(chat_id, "")
        if incarnation and known and known != incarnation:
            return "idle", None
        state, error, _ = self._states.get(chat_id, ("idle", None, 0.0))
        return state, error

    def clear(self, chat_id: str) -> None:
        """Back to ``idle`` (the chat is gone, or a failure no longer holds)."""
        self._states.pop(chat_id, None)
        self._incarnations.pop(chat_id, None)

    def failing(self) -> list[str | None]:
        """The last error of each chat whose summary job is failing, oldest failure first."""
        return [error for state, error, _ in self._states.values() if state == "failed"]

    def observed_before(self, moment: float) -> list[str]:
        """The chats in a non-idle state that no event changed since ``moment``."""
        return [chat_id for chat_id, (_, _, seen) in self._states.items() if seen < moment]

    def settle(
        self, chat_id: str, state: SummaryState, error: str | None, *, checked: float
    ) -> None:
        """Set a known chat's state as checked at ``checked``, unless an event came since."""
        known = self._states.get(chat_id)
        if known is None or known[2] >= checked:
            return
        if state == "idle":
            self.clear(chat_id)
        elif (state, error) != known[:2]:
            self._states[chat_id] = (state, error, known[2])


class EventHub:
    """Delivers chat events to every subscriber of that chat; slow subscribers drop events."""

    def __init__(self) -> None:
        # chat id -> each stream's queue -> the incarnation it follows
        self._subscribers: dict[str, dict[asyncio.Queue[ChatEvent | None], str]] = defaultdict(dict)
        self._watchers: list[Callable[[ChatEvent], None]] = []
        self.relay: EventRelay | None = None

    def watch(self, watcher: Callable[[ChatEvent], None]) -> None:
        """Call ``watcher`` with every event, published here or relayed from elsewhere."""
        self._watchers.append(watcher)

    def publish(self, event: ChatEvent) -> None:
        """Send ``event`` to the chat's subscribers and to the relay (never blocks)."""
        self.deliver(event)
        if self.relay is not None:
            self.relay.send(event)

    def deliver(self, event: ChatEvent) -> None:
        """Hand ``event`` to this process's watchers and subscribers only."""
        for watcher in self._watchers:
            watcher(event)
        for queue, incarnation in list(self._subscribers.get(event.chat_id, {}).items()):
            if queue.full() or not _same_incarnation(event.incarnation, incarnation):
                continue
            queue.put_nowait(event)

    def end(self, chat_id: str, incarnation: str) -> None:
        """End every stream of a deleted chat (the end is delivered even to a full queue)."""
        for queue, followed in list(self._subscribers.get(chat_id, {}).items()):
            if followed == incarnation:
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
        """How many streams follow the chat."""
        return len(self._subscribers.get(chat_id, ()))

    async def subscribe(
        self, chat_id: str, first: ChatEvent, *, heartbeat: float = 15.0
    ) -> AsyncIterator[str]:
        """SSE frames for one chat: ``first``, then live events, with comment heartbeats.

        The stream follows the incarnation ``first`` names.
        """
        queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue(QUEUE_SIZE)
        self._subscribers[chat_id][queue] = first.incarnation
        try:
            yield first.to_sse()
            while True:
                try:
                    async with asyncio.timeout(heartbeat):  # wait_for can lose a cancellation
                        event = await queue.get()
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if event is None:
                    return
                yield event.to_sse()
        finally:
            self._subscribers[chat_id].pop(queue, None)
            if not self._subscribers[chat_id]:
                del self._subscribers[chat_id]


def _same_incarnation(event: str, followed: str) -> bool:
    """Whether an event of ``event``'s incarnation reaches a stream following ``followed``."""
    return not event or not followed or event == followed
