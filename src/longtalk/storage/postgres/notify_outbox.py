"""Notifications that ride along with the next statement a replica runs anyway.

A ``NOTIFY`` is a statement of its own, one round trip each; but a busy replica runs
statements all the time (a turn, a job claim, a job's end), and each of those can carry
``pg_notify`` calls for free, committed with it. :class:`NotifyOutbox` holds what waits
to be sent: the single statements of ``queries`` take everything in it (``take``), and give
it back when they fail (``put_back``); what no statement took within ``ride_seconds`` is
sent by its owner in one statement of its own (``due``). Order is kept.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

RIDE_SECONDS = 0.05
"""How long a notification waits for a statement to ride on before it is sent alone."""
LIMIT = 10_000
"""Notifications kept at most; past it the oldest are dropped (they are best effort)."""


class NotifyOutbox:
    """(channel, payload) pairs waiting for a statement; see the module docstring."""

    def __init__(self, *, ride_seconds: float = RIDE_SECONDS, limit: int = LIMIT) -> None:
        self.ride_seconds = ride_seconds
        self._items: deque[tuple[str, str, float]] = deque(maxlen=limit)
        self._added = asyncio.Event()

    def __len__(self) -> int:
        return len(self._items)

    def put(self, channel: str, payload: str) -> None:
        """Queue a notification (never blocks; the oldest go past ``limit``)."""
        self._items.append((channel, payload, time.monotonic()))
        self._added.set()

    def take(self) -> tuple[list[str], list[str]]:
        """Everything queued, as (channels, payloads); the outbox is empty afterwards."""
        items = list(self._items)
        self._items.clear()
        return [item[0] for item in items], [item[1] for item in items]

    def put_back(self, channels: list[str], payloads: list[str]) -> None:
        """Requeue what a failed statement took, ahead of anything queued since."""
        now = time.monotonic()
        self._items.extendleft(
            reversed([(c, p, now) for c, p in zip(channels, payloads, strict=True)])
        )
        if channels:
            self._added.set()

    async def due(self) -> tuple[list[str], list[str]]:
        """Wait for notifications no statement took within ``ride_seconds``; take them all."""
        while True:
            if not self._items:
                self._added.clear()
                await self._added.wait()
                continue
            waited = time.monotonic() - self._items[0][2]
            if waited < self.ride_seconds:
                await asyncio.sleep(self.ride_seconds - waited)
                continue
            return self.take()
