"""PostgreSQL ``LISTEN/NOTIFY`` on one dedicated asyncpg connection, reconnected when lost.

The pooled connections of ``PostgresStorage`` are for short transactions; a listener needs
a session of its own. :class:`NotifyChannel` listens on a set of channels, hands every
payload to its channel's callback, and sends batches of notifications in one round trip
(those that found no statement to ride along with: ``notify_outbox``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from longtalk.errors import StorageUnavailableError
from longtalk.storage.postgres.chat_storage import PostgresStorage
from longtalk.storage.postgres.queries import NOTIFY_MANY

log = logging.getLogger(__name__)
RECONNECT_SECONDS = 1.0

Handler = Callable[[str], None]


class NotifyChannel:
    """One listening session for a replica; see the module docstring."""

    def __init__(
        self,
        storage: PostgresStorage,
        handlers: Mapping[str, Handler],
        *,
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        url = storage.engine.url.set(drivername="postgresql")
        self._dsn = url.render_as_string(hide_password=False)
        self._location = storage.location
        self._handlers = dict(handlers)
        self._on_connect = on_connect
        """Called after each (re)connection: listeners missed what was sent meanwhile."""
        self._conn: Any = None
        self._watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect and listen; then keep the session alive in the background."""
        await self._connect()
        self._watch = asyncio.create_task(self._keep_alive(), name="longtalk-listen")

    async def close(self) -> None:
        """Stop listening and close the session."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        if self._conn is not None and not self._conn.is_closed():
            await self._conn.close()

    async def notify(self, channels: list[str], payloads: list[str]) -> None:
        """Send each payload on its channel (one statement; delivered in order)."""
        if self._conn is None or self._conn.is_closed():
            raise StorageUnavailableError(f"no listening session to {self._location}")
        await self._conn.execute(NOTIFY_MANY, channels, payloads)

    async def _connect(self) -> None:
        import asyncpg

        try:
            conn = await asyncpg.connect(self._dsn, timeout=10)
        except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
            raise StorageUnavailableError(
                f"cannot open a listening session to {self._location}: {exc}"
            ) from exc
        for channel, handler in self._handlers.items():
            await conn.add_listener(channel, _callback(handler))
        self._conn = conn
        if self._on_connect is not None:
            self._on_connect()

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(RECONNECT_SECONDS)
            if self._conn is not None and not self._conn.is_closed():
                continue
            try:
                await self._connect()
                log.info("listening session to %s re-opened", self._location)
            except StorageUnavailableError as exc:
                log.warning("%s (retrying)", exc)


def _callback(handler: Handler) -> Callable[[Any, int, str, str], None]:
    def on_notification(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
        try:
            handler(payload)
        except Exception:  # a bad payload must not end the session
            log.exception("handling a notification failed")

    return on_notification
