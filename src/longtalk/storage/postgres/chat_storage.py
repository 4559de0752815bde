"""PostgreSQL chat storage (the ``postgres`` extra: asyncpg).

The hot path is one statement per operation, run in autocommit (``queries``): a chat read,
a smart load (with the user's memory when asked) and a whole turn each cost one round
trip, and every other one-statement operation skips ``BEGIN``/``COMMIT``. A turn has one
writer, that statement: it locks the chat row; when the snapshot it read from turns out
older than the row it locked (another commit landed in between) it runs again, and after
a few such races it runs after the chat row's lock in one transaction, where its snapshot
cannot be stale. All of PostgreSQL's own statements are in ``queries``. Operations of several
statements run in transactions (``REPEATABLE READ`` for reads); migrations hold a
transaction-scoped advisory lock so that two processes starting on an empty database do
not both create the schema.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from longtalk.errors import (
    ConfigError,
    LongtalkError,
    MissingExtraError,
    NotFoundError,
    StorageError,
    StorageUnavailableError,
    UsageError,
)
from longtalk.storage.base import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    TurnCommit,
)
from longtalk.storage.config import DEFAULT_CONNECT_TIMEOUT_SECONDS
from longtalk.storage.postgres import queries
from longtalk.storage.postgres.codec import (
    commit_params,
    landed_turn,
    state_of,
    turn_answer,
)
from longtalk.storage.postgres.notify_outbox import NotifyOutbox
from longtalk.storage.postgres.pool import ping_when_idle
from longtalk.storage.sql import (
    DRIVER_ERRORS,
    AsyncEngineStorage,
    Progress,
    chat_record,
    connection_lost,
)

# pg_advisory_xact_lock key: the bytes of "memstrat" as a signed 64-bit integer.
_SCHEMA_LOCK_KEY = int.from_bytes(b"memstrat", "big", signed=True)
_SCHEMES = ("postgresql", "postgres", "postgresql+asyncpg")
OPTIMISTIC_ATTEMPTS = 3
"""Races a turn's lone statement may lose before it runs after the chat row's lock."""
TURN_ATTEMPTS = 6
"""Runs of a turn's statement in all (the locked ones never lose a race)."""
CHECK_DELAYS = (0.0, 0.2, 0.5)
"""Waits before each look at whether a commit whose answer was lost landed after all."""


def postgres_url(dsn: str) -> URL:
    """The SQLAlchemy URL (asyncpg driver) for a ``postgresql://`` or ``postgres://`` DSN."""
    try:
        url = make_url(dsn)
    except ArgumentError as exc:
        raise ConfigError(f"not a PostgreSQL DSN: {exc}", path="storage.postgres_dsn") from exc
    if url.drivername not in _SCHEMES:
        raise ConfigError(
            f"a PostgreSQL DSN starts with postgresql://, got {url.drivername}://",
            path="storage.postgres_dsn",
        )
    return url.set(drivername="postgresql+asyncpg")


class PostgresStorage(AsyncEngineStorage):
    """``ChatStorage`` on a PostgreSQL server, given a DSN."""

    backend_name = "PostgreSQL"
    unavailable_hint = (
        "check that the server is running and that the DSN "
        "(storage.url or LONGTALK_STORAGE__URL) is right"
    )
    read_options = {"isolation_level": "REPEATABLE READ"}
    single_options = {"isolation_level": "AUTOCOMMIT"}

    def __init__(
        self,
        dsn: str,
        *,
        pool_size: int = 5,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_SECONDS,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        try:
            import asyncpg
        except ImportError as exc:  # pragma: no cover - installed with the dev extra
            raise MissingExtraError("asyncpg", "postgres") from exc
        url = postgres_url(dsn)
        connect_args: dict[str, Any] = {"timeout": connect_timeout}
        engine = create_async_engine(
            url, pool_size=pool_size, pool_use_lifo=True, connect_args=connect_args
        )
        ping_when_idle(engine)
        location = url.set(drivername="postgresql").render_as_string(hide_password=True)
        super().__init__(engine, location=location, smart_load_tail=smart_load_tail)
        self._driver_errors: tuple[type[BaseException], ...] = (
            *DRIVER_ERRORS,
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
        )
        self._unique_violation: type[BaseException] = asyncpg.UniqueViolationError
        self._last_stamp = datetime.min.replace(tzinfo=UTC)
        self.outbox = NotifyOutbox()
        """Notifications riding along with this storage's next single statement."""
        self.optimistic_attempts = OPTIMISTIC_ATTEMPTS
        """Runs of a turn's lone statement before it takes the chat row's lock first."""

    # -- one statement on the driver's connection ------------------------------------------

    @asynccontextmanager
    async def statement(
        self, operation: str, *, write: bool, doing: str = ""
    ) -> AsyncIterator[Any]:
        """A pooled asyncpg connection for statements that each run alone (autocommit).

        Driver errors leave as ``StorageError`` naming ``operation``; a connection that
        broke, or whose call was cancelled, is discarded instead of going back to the pool.
        """
        await self.setup()
        progress = Progress(operation, write=write)
        progress.doing = doing
        progress.commits = write
        conn = await self._connect(operation)
        clean = False
        try:
            raw = await conn.get_raw_connection()
            yield raw.driver_connection
            clean = True
        except LongtalkError:
            clean = True
            raise
        except self._driver_errors as exc:
            clean = not connection_lost(exc)  # a refused statement leaves it usable
            raise progress.error(exc, self.backend_name) from exc
        finally:
            await self._release(conn, clean)

    @asynccontextmanager
    async def riding(self) -> AsyncIterator[list[list[str]]]:
        """The waiting notifications, as (channels, payloads), for a statement to send.

        Given back to the outbox when the statement fails.
        """
        channels, payloads = self.outbox.take()
        try:
            yield [channels, payloads]
        except BaseException:
            self.outbox.put_back(channels, payloads)
            raise

    async def _release(self, conn: AsyncConnection, clean: bool) -> None:
        with contextlib.suppress(*self._driver_errors):
            if not clean:
                await conn.invalidate()
            await conn.close()

    # -- reads ------------------------------------------------------------------------------

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        async with self.statement(f"get_chat({chat_id!r})", write=False) as db:
            row = await db.fetchrow(queries.GET_CHAT, chat_id, tenant)
        if row is None:
            return None
        return chat_record(row)

    async def load_state(
        self, chat_id: str, *, tail: int | None = None, with_user_memory: bool = False
    ) -> ChatState:
        """Smart load in one statement: the chain, the recent messages, the user's memory."""
        tail = self.smart_load_tail if tail is None else tail
        if tail < 0:
            raise UsageError(f"tail must be 0 or more, got {tail}")
        async with self.statement(f"load_state({chat_id!r})", write=False) as db:
            row = await db.fetchrow(queries.LOAD_STATE, chat_id, tail, with_user_memory)
        if row is None:
            raise NotFoundError(f"no chat with id {chat_id!r}; create it first with create_chat()")
        state = state_of(row, users=with_user_memory)
        return state

    # -- turns ------------------------------------------------------------------------------

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn in one statement (see the module docstring); the same contract."""
        ids = commit.append.lookup_ids
        now = self._stamp()
        try:
            for attempt in range(TURN_ATTEMPTS):
                locked = attempt >= self.optimistic_attempts
                if (result := await self._try_turn(commit, ids, now, locked)) is not None:
                    return result
        except StorageUnavailableError:
            if (settled := await self._landed(commit, ids, now)) is None:
                raise
            return settled
        raise StorageError(
            f"commit_turn({commit.chat_id!r}): the turn could not be written in "
            f"{TURN_ATTEMPTS} attempts; nothing was written"
        )

    async def _try_turn(
        self, commit: TurnCommit, ids: Sequence[str], now: datetime, locked: bool
    ) -> CommitResult | None:
        """One run of the turn's statement: the result, or None when it must run again.

        ``locked``: after the chat row's lock, in one transaction (never stale).
        """
        try:
            doing = (
                f"writing the turn ({len(commit.append.messages)} messages, "
                f"{len(commit.summary.rows)} summary rows)"
            )
            operation = f"commit_turn({commit.chat_id!r})"
            async with (
                self.riding() as notes,
                self.statement(operation, write=True, doing=doing) as db,
            ):
                params = commit_params(commit, ids, now=now, notes=notes)
                if locked:
                    async with db.transaction():
                        await db.execute(queries.LOCK_CHAT, commit.chat_id)
                        row = await db.fetchrow(queries.COMMIT_TURN, *params)
                else:
                    row = await db.fetchrow(queries.COMMIT_TURN, *params)
        except LongtalkError as exc:
            if isinstance(exc.__cause__, self._unique_violation):
                return None  # an id or a chain row landed meanwhile: again
            raise
        return turn_answer(commit, row).result(commit)

    async def _landed(
        self, commit: TurnCommit, ids: Sequence[str], now: datetime
    ) -> CommitResult | None:
        """After a connection broke mid-turn: the turn, if it was written after all.

        Messages with ids tell by their ids; messages without by their commit's timestamp,
        unique per process. A summary-only commit is left to its compare-and-swap.
        """
        if not commit.append.messages:
            return None
        for delay in CHECK_DELAYS:
            await asyncio.sleep(delay)
            try:
                if ids:
                    return await self._committed(commit, ids)
                return await self._stored_at(commit, now)
            except StorageUnavailableError:
                continue
            except LongtalkError:
                return None
        return None

    async def _stored_at(self, commit: TurnCommit, now: datetime) -> CommitResult | None:
        async with self.statement(f"commit_turn({commit.chat_id!r}) check", write=False) as db:
            found = await db.fetchval(queries.MESSAGES_AT, commit.chat_id, now)
            chat = await db.fetchrow(queries.GET_CHAT, commit.chat_id, None)
        return landed_turn(commit, chat, found)

    # -- bookkeeping ------------------------------------------------------------------------

    def _stamp(self) -> datetime:
        """Now, strictly later than any earlier stamp of this process (a commit's identity)."""
        stamp = max(datetime.now(UTC), self._last_stamp + timedelta(microseconds=1))
        self._last_stamp = stamp
        return stamp

    # -- jobs and migrations ------------------------------------------------------------------

    @asynccontextmanager
    async def job_transaction(self, operation: str) -> AsyncIterator[AsyncConnection]:
        """One autocommit statement of the job table (``job_table``); errors as ``StorageError``."""
        await self.setup()
        async with self.async_transaction(Progress(operation, write=True), single=True) as conn:
            yield conn

    def _lock_schema(self, conn: Connection) -> None:
        conn.execute(queries.SCHEMA_LOCK, {"key": _SCHEMA_LOCK_KEY})
