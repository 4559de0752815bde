"""Chat events across replicas: PostgreSQL ``NOTIFY`` out, ``LISTEN`` in, re-read on receipt.

A replica publishes an event locally (its own subscribers get it at once) and queues it for
the others in the storage's outbox (``storage.postgres.notify_outbox``): the next statement
the replica runs (a turn, a job claim, a job's end) carries it; what none took within a
moment is sent by the sender task, everything queued in one ``NOTIFY`` batch. The payload
carries ids and numbers only (origin replica, kind, chat id, state, episode ranges); the
receiving replica re-reads what the event reports (the chat's message count and summary
version, a failed job's error) from the database before delivering it to its subscribers,
so it never shows a stale or truncated copy. Events are best-effort, as within a replica:
a replica that was not listening (restarting) misses them; the chat itself is the truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from longtalk.errors import LongtalkError
from longtalk.jobs.background import stop_tasks
from longtalk.service.event_hub import ChatEvent, EventHub
from longtalk.storage.leases import JobBook
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.notify_channel import NotifyChannel

log = logging.getLogger(__name__)
EVENTS_CHANNEL = "longtalk_events"
QUEUE_LIMIT = 10_000
MAX_RANGES = 64


class PostgresEventRelay:
    """Sends this replica's chat events to the others and delivers theirs here."""

    def __init__(
        self, hub: EventHub, storage: PostgresStorage, jobs: JobBook, *, origin: str
    ) -> None:
        self.hub = hub
        self.storage = storage
        self.jobs = jobs
        self.origin = origin
        self.channel: NotifyChannel | None = None
        self.received = 0
        """Events from other replicas delivered here."""
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue(QUEUE_LIMIT)
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, channel: NotifyChannel) -> None:
        """Send and receive through ``channel`` (already listening)."""
        self.channel = channel
        self._tasks = [
            asyncio.create_task(self._send_loop(), name="longtalk-events-out"),
            asyncio.create_task(self._receive_loop(), name="longtalk-events-in"),
        ]

    async def stop(self) -> None:
        """Stop sending and receiving."""
        await stop_tasks(self._tasks)
        self._tasks.clear()

    # -- out ----------------------------------------------------------------------------------

    def send(self, event: ChatEvent) -> None:
        """Queue ``event`` for the other replicas (dropped when the queue is full)."""
        payload = {
            "o": self.origin,
            "k": event.kind,
            "c": event.chat_id,
            "s": event.state,
            "r": event.episode_ranges[:MAX_RANGES],
            "i": event.incarnation,
        }
        self.storage.outbox.put(EVENTS_CHANNEL, json.dumps(payload, separators=(",", ":")))

    async def _send_loop(self) -> None:
        assert self.channel is not None
        while True:
            channels, payloads = await self.storage.outbox.due()
            try:
                await self.channel.notify(channels, payloads)
            except (LongtalkError, OSError) as exc:
                log.warning("sending %d events to other replicas failed: %s", len(payloads), exc)
            except Exception:
                log.exception("sending events to other replicas failed")

    # -- in -----------------------------------------------------------------------------------

    def receive(self, payload: str) -> None:
        """A notification arrived: queue it (ours are ignored; they were delivered here)."""
        data = json.loads(payload)
        if data.get("o") != self.origin:
            with contextlib.suppress(asyncio.QueueFull):
                self._inbox.put_nowait(data)

    async def _receive_loop(self) -> None:
        while True:
            data = await self._inbox.get()
            try:
                event = await self._reread(data)
            except LongtalkError as exc:
                log.warning("re-reading a relayed event failed: %s", exc)
                continue
            if event is not None:
                self.received += 1
                self.hub.deliver(event)

    async def _reread(self, data: dict[str, Any]) -> ChatEvent | None:
        """The event as the database tells it now; None when nobody here needs it."""
        chat_id, kind = str(data["c"]), data["k"]
        followed = self.hub.subscribers(chat_id) > 0
        if kind in ("appended", "state") and not followed:
            return None
        ranges = [(int(first), int(last)) for first, last in data.get("r", [])]
        incarnation = str(data.get("i", ""))
        event = ChatEvent(kind, chat_id, data["s"], ranges, incarnation=incarnation)
        if kind == "failed":
            error = await self.jobs.last_error(chat_id)
            event = ChatEvent(kind, chat_id, "failed", error=error, incarnation=incarnation)
        if not followed:
            return event
        chat = await self.storage.get_chat(chat_id)
        if chat is None or incarnation not in ("", chat.incarnation):
            return None  # the chat is gone, or the event was about a deleted one
        return ChatEvent(
            kind,
            chat_id,
            event.state,
            ranges,
            error=event.error,
            summary_version=chat.summary_version if kind == "summarized" else None,
            message_count=chat.message_count if kind == "appended" else None,
            incarnation=chat.incarnation,
        )
