"""Chat storage on SQLAlchemy: the code path SQLite and PostgreSQL share.

The backends (``SqliteStorage``, ``PostgresStorage``) build the engine, run a transaction
where their driver wants it, and add what their database needs (pragmas, locks). Every
public method is one transaction, written as one synchronous function of a SQLAlchemy
``Connection``: the event loop waits for a transaction once, not once per statement.

Each backend has one turn writer. SQLite's is :func:`write_turn` here: it first locks the
chat row (SQLite's write transactions start with ``BEGIN IMMEDIATE`` and so hold the
database's one write lock), so concurrent commits to a chat are applied one after the
other: messages get gapless sequences in commit order, and the summary compare-and-swap
reads the latest version. PostgreSQL's is its own single statement (``postgres.chat_storage``,
with every statement of its own in ``postgres.queries``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import fields, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from sqlalchemy import Connection, Row, Select, case, delete, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from longtalk.core.messages import Message
from longtalk.errors import (
    LongtalkError,
    NotFoundError,
    StorageError,
    StorageUnavailableError,
)
from longtalk.storage import forget_sql, migrations
from longtalk.storage import sql_statements as prebuilt
from longtalk.storage.base import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    StorageBase,
    StoredMessage,
    SummaryPatch,
    SummaryRow,
    SummaryStats,
    TurnCommit,
    chat_after,
    check_commit,
    retry_of,
    smart_load_after,
)
from longtalk.storage.forgetting import ForgetRewrite, PendingForget
from longtalk.storage.schema import chats, conversation_summaries
from longtalk.storage.user_memory_rows import select_items

log = logging.getLogger(__name__)

DRIVER_ERRORS: tuple[type[BaseException], ...] = (SQLAlchemyError, OSError, TimeoutError)
"""What a driver raises: translated to ``StorageError`` naming the operation."""
WRITE_OPTION = "longtalk_write"
T = TypeVar("T")


class Progress:
    """What an operation was doing, for the error message when it fails."""

    def __init__(self, operation: str, *, write: bool) -> None:
        self.operation = operation
        self.write = write
        self.doing = ""
        self.commits = False
        """True while a lone write statement runs: it commits as it ends."""

    def describe(self, exc: BaseException) -> str:
        """The error message: the operation, its step, and whether anything was written."""
        doing = f" while {self.doing}" if self.doing else ""
        rolled_back = "; it was rolled back, nothing was written" if self.write else ""
        return f"{self.operation} failed{doing}{rolled_back}: {_reason(exc)}"

    def error(self, exc: BaseException, backend: str) -> StorageError:
        """The driver's error as longtalk's: a lost connection is ``StorageUnavailableError``.

        A connection that broke (the server went away, a cancelled call left it mid-protocol)
        says so in plain words, without the driver's internals, and the operation can be
        retried; any other failure is a ``StorageError`` with the database's message.
        """
        if not connection_lost(exc):
            return StorageError(self.describe(exc))
        log.warning("%s: the %s connection broke: %r", self.operation, backend, exc)
        doing = f" while {self.doing}" if self.doing else ""
        if not self.write:
            outcome = "nothing was written"
        elif self.doing == "committing" or self.commits:
            outcome = "the write may or may not have been applied"
        else:
            outcome = "it was rolled back, nothing was written"
        return StorageUnavailableError(
            f"{self.operation} failed{doing}: the connection to the {backend} database "
            f"was lost ({type(getattr(exc, 'orig', None) or exc).__name__}); {outcome}. "
            "Retry: a retried append with the same message ids is stored once"
        )

    @contextlib.contextmanager
    def translating(self, backend: str) -> Iterator[None]:
        """Driver errors raised inside leave as longtalk's (:meth:`error`); longtalk's pass."""
        try:
            yield
        except LongtalkError:
            raise
        except DRIVER_ERRORS as exc:
            raise self.error(exc, backend) from exc


def connection_lost(exc: BaseException) -> bool:
    """True when ``exc`` means the connection broke, not that the statement was refused."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    original = getattr(exc, "orig", None) or exc
    if isinstance(original, (OSError, TimeoutError, ConnectionError)):
        return True
    if isinstance(exc, InterfaceError):  # the driver's own state (asyncpg: "cannot switch")
        return True
    return type(original).__name__ in _LOST_CONNECTION_ERRORS


_LOST_CONNECTION_ERRORS = frozenset(
    {
        "InterfaceError",
        "ConnectionDoesNotExistError",
        "ConnectionFailureError",
        "InternalClientError",
        "AdminShutdownError",
        "CannotConnectNowError",
        "CrashShutdownError",
    }
)


def _reason(exc: BaseException) -> str:
    """The driver's message, without SQLAlchemy's echo of the statement and parameters."""
    text = str(getattr(exc, "orig", None) or exc) or type(exc).__name__
    return text if len(text) <= 500 else text[:500] + " ..."


def _now() -> datetime:
    return datetime.now(UTC)


class SqlStorage(StorageBase):
    """``ChatStorage`` on SQLAlchemy; see the module docstring.

    Every public method is one transaction, written as one synchronous function of a
    ``Connection`` (``_run``); the backend decides where it runs (``_execute``): on
    PostgreSQL in the async engine's greenlet, on SQLite in one hop to a database thread.
    The schema is created or migrated on first use (or by ``setup()``); ``close()``
    releases the connections.
    """

    backend_name: ClassVar[str] = "SQL"
    unavailable_hint: ClassVar[str] = "check the database settings"
    read_options: ClassVar[Mapping[str, Any]] = {}
    single_options: ClassVar[Mapping[str, Any]] = {}
    """Options of a transaction that is one statement (PostgreSQL: autocommit, no BEGIN)."""

    def __init__(
        self,
        *,
        location: str,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        super().__init__(smart_load_tail=smart_load_tail)
        self.location = location
        self._ready = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"

    # -- lifecycle ---------------------------------------------------------------------

    async def setup(self) -> None:
        """Create or migrate the schema, one migration per transaction; idempotent.

        Raises ``SchemaVersionError`` for a database newer than this code and
        ``StorageUnavailableError`` when the database cannot be reached.
        """
        if self._ready:
            return
        await self._prepare()

        def migrate(conn: Connection, progress: Progress) -> migrations.Migration | None:
            self._lock_schema(conn)
            progress.doing = "applying schema migrations"
            return migrations.apply_next(conn, where=self.location)

        while (applied := await self._run("setup", migrate, write=True, setup=True)) is not None:
            log.info("%s: applied migration %d (%s)", self, applied.version, applied.name)
        self._ready = True

    async def close(self) -> None:
        """Release every connection (the backend's)."""
        raise NotImplementedError(f"{type(self).__name__}.close")

    async def _prepare(self) -> None:
        """What must exist before the first connection (a backend's hook)."""

    def _lock_schema(self, conn: Connection) -> None:
        """Serialize concurrent migrations for this transaction (a backend's hook)."""

    async def _after_delete(self) -> None:
        """After a committed deletion: erase what the database's files keep (a backend's hook)."""

    # -- transactions ------------------------------------------------------------------

    async def transaction(
        self, body: Callable[[Connection], T], *, write: bool = False, single: bool = False
    ) -> T:
        """Run ``body(connection)`` in one transaction of this database (raw SQL access).

        ``single`` says that ``body`` runs one statement: where the database runs a lone
        statement as its own transaction, no ``BEGIN``/``COMMIT`` round trips are spent.
        """
        body_of: Callable[[Connection, Progress], T] = lambda conn, _: body(conn)  # noqa: E731
        return await self._run("transaction", body_of, write=write, single=single)

    async def _run(
        self,
        operation: str,
        body: Callable[[Connection, Progress], T],
        *,
        write: bool,
        setup: bool = False,
        single: bool = False,
    ) -> T:
        """``body`` in one transaction; driver errors leave as ``StorageError`` naming it.

        ``single``: ``body`` runs one statement (see :meth:`transaction`).
        """
        if not setup:
            await self.setup()
        return await self._execute(Progress(operation, write=write), body, single)

    async def _execute(
        self, progress: Progress, body: Callable[[Connection, Progress], T], single: bool
    ) -> T:
        """Run one transaction (the backend's); ``progress`` names it and its step."""
        raise NotImplementedError(f"{type(self).__name__}._execute")

    def _options(self, write: bool, single: bool = False) -> dict[str, Any]:
        if single and self.single_options:
            return dict(self.single_options)
        return {WRITE_OPTION: True} if write else dict(self.read_options)

    def _unavailable(self, operation: str, exc: BaseException) -> StorageUnavailableError:
        return StorageUnavailableError(
            f"{operation}: cannot reach the {self.backend_name} database at "
            f"{self.location}: {_reason(exc)} - {self.unavailable_hint}"
        )

    # -- chats -------------------------------------------------------------------------

    async def insert_chat(self, chat: ChatRecord) -> None:
        """Store a new chat; ``StorageError`` when a chat with its id exists."""

        def create(conn: Connection, _: Progress) -> None:
            try:
                conn.execute(insert(chats).values(_chat_values(chat)))
            except IntegrityError as exc:
                raise StorageError(
                    f"create_chat: a chat with id {chat.id!r} already exists"
                ) from exc

        await self._run(f"create_chat({chat.id!r})", create, write=True, single=True)

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        query = select(chats).where(chats.c.id == chat_id)
        if tenant is not None:
            query = query.where(chats.c.tenant == tenant)

        def get(conn: Connection, _: Progress) -> ChatRecord | None:
            row = conn.execute(query).first()
            return None if row is None else _chat_record(row)

        return await self._run(f"get_chat({chat_id!r})", get, write=False, single=True)

    async def list_chats(
        self, *, tenant: str = "default", limit: int = 50, offset: int = 0
    ) -> list[ChatRecord]:
        """A tenant's chats, most recently updated first."""
        query = (
            select(chats)
            .where(chats.c.tenant == tenant)
            .order_by(chats.c.updated_at.desc(), chats.c.id)
            .limit(limit)
            .offset(offset)
        )
        return await self._run("list_chats", _chat_records(query), write=False, single=True)

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """``mark_indexed`` for several chats (chat id: sequence) in one transaction.

        Returns the ids of the chats (of the given incarnations) that no longer exist.
        """
        known = incarnations or {}

        def same(chat_id: str) -> list[Any]:
            where = [chats.c.id == chat_id]
            if chat_id in known:
                where.append(chats.c.incarnation == known[chat_id])
            return where

        def mark(conn: Connection, _: Progress) -> set[str]:
            gone = set()
            for chat_id, sequence in watermarks.items():
                statement = (
                    update(chats)
                    .where(*same(chat_id), chats.c.indexed_sequence < sequence)
                    .values(
                        indexed_sequence=case(
                            (chats.c.message_count < sequence, chats.c.message_count),
                            else_=sequence,
                        )
                    )
                )
                if conn.execute(statement).rowcount:
                    continue
                if conn.scalar(select(chats.c.id).where(*same(chat_id))) is None:
                    gone.add(chat_id)
            return gone

        if not watermarks:
            return set()
        return await self._run(f"mark_indexed({len(watermarks)} chats)", mark, write=True)

    async def index_backlog(
        self, *, limit: int = 100, chat_ids: Sequence[str] | None = None
    ) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first."""
        query = (
            select(chats)
            .where(chats.c.message_count > chats.c.indexed_sequence)
            .order_by(chats.c.updated_at, chats.c.id)
            .limit(limit)
        )
        if chat_ids is not None:
            query = query.where(chats.c.id.in_(list(chat_ids)))
        return await self._run("index_backlog", _chat_records(query), write=False, single=True)

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        statement = update(chats).values(indexed_sequence=0)
        query = select(chats).order_by(chats.c.id)
        if chat_id is not None:
            statement = statement.where(chats.c.id == chat_id)
            query = query.where(chats.c.id == chat_id)

        def reset(conn: Connection, progress: Progress) -> list[ChatRecord]:
            conn.execute(statement)
            return _chat_records(query)(conn, progress)

        return await self._run("reset_index", reset, write=True)

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat; its messages and summary rows go with it (foreign-key cascade)."""
        statement = delete(chats).where(chats.c.id == chat_id)
        if tenant is not None:
            statement = statement.where(chats.c.tenant == tenant)

        def remove(conn: Connection, _: Progress) -> bool:
            return bool(conn.execute(statement).rowcount)

        removed = await self._run(f"delete_chat({chat_id!r})", remove, write=True, single=True)
        if removed:
            await self._after_delete()
        return removed

    async def delete_chats(self, *, tenant: str, user: str | None = None) -> list[ChatRecord]:
        """Delete every chat of a tenant (or of one of its users) in one transaction."""
        where = [chats.c.tenant == tenant]
        if user is not None:
            where.append(chats.c.user_id == user)
        statement = delete(chats).where(*where).returning(*chats.c)

        def remove(conn: Connection, _: Progress) -> list[Row[Any]]:
            return list(conn.execute(statement).all())

        rows = await self._run(f"delete_chats({tenant!r})", remove, write=True, single=True)
        if rows:
            await self._after_delete()
        return sorted((_chat_record(row) for row in rows), key=lambda chat: chat.id)

    # -- messages ----------------------------------------------------------------------

    async def list_messages(
        self, chat_id: str, *, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages after a sequence, oldest first ([] for an unknown chat)."""

        def page(conn: Connection, _: Progress) -> list[StoredMessage]:
            return _select_messages(conn, chat_id, after_sequence, limit)

        return await self._run(f"list_messages({chat_id!r})", page, write=False, single=True)

    async def load_state(
        self, chat_id: str, *, tail: int | None = None, with_user_memory: bool = False
    ) -> ChatState:
        """Smart load, as the LangGraph backend does it: the summary chain and recent messages.

        With a summary: its rows, the messages not yet folded into it and at least the last
        ``tail`` (default ``smart_load_tail``); without one, every message. One read
        transaction, so the three parts are consistent with each other.
        """
        tail = self.smart_load_tail if tail is None else tail

        def load(conn: Connection, _: Progress) -> ChatState:
            row = _chat_row(conn, chat_id, lock=False)
            chat = _chat_record(row)
            summaries = _select_summaries(conn, chat_id, active=True)
            after = smart_load_after(chat, has_summary=bool(summaries), tail=tail)
            stored = _select_messages(conn, chat_id, after, None)
            facts = tuple(row._mapping["facts"] or ())
            users = None
            if with_user_memory:
                found = select_items(conn, chat.tenant, chat.user) if chat.user else []
                users = tuple(found)
            return ChatState(chat, tuple(summaries), tuple(stored), facts, users)

        return await self._run(f"load_state({chat_id!r})", load, write=False)

    # -- turns -------------------------------------------------------------------------

    async def _committed(self, commit: TurnCommit, ids: Sequence[str]) -> CommitResult | None:
        """After a connection broke mid-commit: the turn if it was applied after all.

        Messages with ids tell: a commit is all or nothing, so when they are stored the
        turn committed and the caller gets the success it earned, not a 5xx.
        """

        def look(conn: Connection, _: Progress) -> CommitResult | None:
            chat = _chat(conn, commit.chat_id, lock=False)
            return retry_of(chat, commit, _messages_by_id(conn, chat.id, ids))

        try:
            return await self._run(f"commit_turn({commit.chat_id!r}) check", look, write=False)
        except LongtalkError:
            return None

    # -- summary rows (the episode-summary service's operations) -----------------------

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""

        def rows(conn: Connection, _: Progress) -> list[SummaryRow]:
            return _select_summaries(conn, chat_id)

        return await self._run(f"list_summaries({chat_id!r})", rows, write=False, single=True)

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a row; bumps its version and the chat's summary version."""
        now = _now()
        table = conversation_summaries

        def write(conn: Connection, _: Progress) -> SummaryRow:
            chat_id = conn.scalar(select(table.c.chat_id).where(table.c.id == summary_id))
            if chat_id is None:
                raise NotFoundError(f"update_summary: no summary row with id {summary_id}")
            chat = _chat(conn, chat_id, lock=True)
            row = _patch_summary(conn, chat_id, summary_id, patch, now)
            bumped = replace(chat, summary_version=chat.summary_version + 1, updated_at=now)
            _update_chat(conn, bumped)
            return row

        return await self._run(f"update_summary({summary_id})", write, write=True)

    # -- forgetting ---------------------------------------------------------------------

    async def begin_forget(
        self, chat_id: str, sequences: Sequence[int], *, tenant: str | None = None
    ) -> PendingForget:
        """Delete the messages and record the pending forget (see ``ForgetStore``)."""
        now = _now()

        def write(conn: Connection, _: Progress) -> PendingForget:
            return forget_sql.begin(conn, chat_id, sequences, tenant, now)

        return await self._run(f"begin_forget({chat_id!r})", write, write=True)

    async def pending_forgets(self, chat_id: str | None = None) -> list[PendingForget]:
        """Forgets whose rewrite is still owed."""

        def read(conn: Connection, _: Progress) -> list[PendingForget]:
            return forget_sql.pending(conn, chat_id)

        return await self._run("pending_forgets", read, write=False)

    async def finish_forget(self, rewrite: ForgetRewrite) -> ChatRecord:
        """Write the rewrite and drop the pending record, in one transaction."""
        now = _now()

        def write(conn: Connection, _: Progress) -> ChatRecord:
            forget_sql.finish(conn, rewrite, now)
            return _chat(conn, rewrite.chat_id, lock=False)

        return await self._run(f"finish_forget({rewrite.chat_id!r})", write, write=True)


class AsyncEngineStorage(SqlStorage):
    """``SqlStorage`` on an async engine (PostgreSQL).

    A transaction's function runs in the engine's greenlet, the driver's awaits inside it.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        location: str,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        super().__init__(location=location, smart_load_tail=smart_load_tail)
        self.engine = engine

    async def close(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()

    async def _execute(
        self, progress: Progress, body: Callable[[Connection, Progress], T], single: bool
    ) -> T:
        async with self.async_transaction(progress, single=single) as conn:
            result = await conn.run_sync(body, progress)
            progress.doing = "committing"
        return result

    @contextlib.asynccontextmanager
    async def async_transaction(
        self, progress: Progress, *, single: bool = False
    ) -> AsyncIterator[AsyncConnection]:
        """One transaction on an async connection; driver errors leave as ``StorageError``.

        ``single``: the body runs one statement (see :meth:`transaction`).
        """
        conn = await self._connect(progress.operation)
        try:
            with progress.translating(self.backend_name):
                await conn.execution_options(**self._options(progress.write, single))
                async with conn.begin():
                    yield conn
        finally:
            with contextlib.suppress(*DRIVER_ERRORS):  # a broken connection is discarded
                await conn.close()

    async def _connect(self, operation: str) -> AsyncConnection:
        conn = self.engine.connect()
        try:
            await conn.start()
        except DRIVER_ERRORS as exc:
            raise self._unavailable(operation, exc) from exc
        return conn


def _chat_records(query: Select[Any]) -> Callable[[Connection, Progress], list[ChatRecord]]:
    def read(conn: Connection, _: Progress) -> list[ChatRecord]:
        return [_chat_record(row) for row in conn.execute(query).all()]

    return read


def write_turn(
    conn: Connection, progress: Progress, commit: TurnCommit, ids: Sequence[str], now: datetime
) -> CommitResult:
    """Write ``commit`` in the open transaction (SQLite's turn writer; see ``SqliteStorage``).

    ``ids`` are ``commit.append.lookup_ids``. Locks the chat first, recognises a
    retry by its message ids, checks the commit's guards,
    then writes messages, summary rows, the chat (with its facts) and the job request.
    """
    progress.doing = "locking the chat"
    row = _chat_row(conn, commit.chat_id, lock=True)
    chat = _chat_record(row)
    found = _messages_by_id(conn, chat.id, ids) if ids else []
    if (retry := retry_of(chat, commit, found)) is not None:
        return retry
    check_commit(chat, commit)
    after = chat_after(chat, commit, added=len(commit.append.messages), now=now)
    progress.doing = f"inserting {len(commit.append.messages)} messages"
    stored = _insert_messages(conn, chat, commit.append.messages, now)
    progress.doing = f"writing {len(commit.summary.rows)} summary rows"
    rows = _write_summaries(conn, chat.id, commit.summary.rows, now)
    progress.doing = "updating the chat"
    chat = _update_chat(conn, after, facts=commit.facts_after(row._mapping["facts"] or ()))
    if commit.append.enqueue is not None and stored:
        progress.doing = f"requesting a {commit.append.enqueue} job"
        _enqueue(conn, chat, commit.append.enqueue)
    return CommitResult(chat, tuple(stored), tuple(rows))


def _enqueue(conn: Connection, chat: ChatRecord, kind: str) -> bool:
    """Request a ``kind`` job for ``chat`` in the commit; True when its row is new.

    An existing row (queued or running) gets a new generation, so a worker finishing
    the older one runs the chat again instead of dropping the request.
    """
    if conn.execute(prebuilt.bump_job(), {"job_kind": kind, "job_chat": chat.id}).rowcount:
        return False
    values = {"kind": kind, "chat_id": chat.id, "tenant": chat.tenant, "generation": 0}
    conn.execute(prebuilt.insert_job(), {**values, "due_at": _now()})
    return True


# -- row mapping and statements ------------------------------------------------------------


_STATS_COLUMNS = {
    "calls": "summary_calls",
    "input_tokens": "summary_input_tokens",
    "output_tokens": "summary_output_tokens",
    "failures": "summary_failures",
    "last_error": "last_error",
    "retry_at": "retry_at",
    "retry_volume": "retry_volume",
}
"""Each field of a chat's ``SummaryStats`` and its column (``failure_kinds`` is JSON apart)."""


def _chat_values(chat: ChatRecord) -> dict[str, Any]:
    return {
        "id": chat.id,
        "tenant": chat.tenant,
        "user_id": chat.user,
        "created_at": chat.created_at,
        "incarnation": chat.incarnation,
        **_changing_values(chat),
    }


def _changing_values(chat: ChatRecord) -> dict[str, Any]:
    """The columns a commit can change."""
    stats = chat.stats
    return {
        "title": chat.title,
        "title_source": chat.title_source,
        "updated_at": chat.updated_at,
        "message_count": chat.message_count,
        "content_chars": chat.content_chars,
        "last_summarized_sequence": chat.last_summarized_sequence,
        "summary_version": chat.summary_version,
        **{column: getattr(stats, name) for name, column in _STATS_COLUMNS.items()},
        "failure_kinds": stats.by_kind,
    }


def _chat_record(row: Row[Any]) -> ChatRecord:
    return chat_record(row._mapping)


_CHAT_FIELDS = tuple(
    field.name for field in fields(ChatRecord) if field.name not in ("user", "stats")
)
"""A chat's fields stored in the column of its name (``user`` is ``user_id``; ``stats`` spans
several columns)."""


def chat_record(m: Mapping[Any, Any]) -> ChatRecord:
    """A chat from its row's columns, by name (any mapping of them)."""
    kinds = tuple(sorted((m["failure_kinds"] or {}).items()))
    stats = SummaryStats(
        **{name: m[column] for name, column in _STATS_COLUMNS.items()}, failure_kinds=kinds
    )
    return ChatRecord(**{name: m[name] for name in _CHAT_FIELDS}, user=m["user_id"], stats=stats)


def _message_values(chat_id: str, sequence: int, message: Message, now: datetime) -> dict[str, Any]:
    return {
        "chat_id": chat_id,
        "sequence": sequence,
        "message_id": message.id,
        "role": message.role.value,
        "content": message.content,
        "name": message.name,
        "type": message.type.value,
        "tool_call_ids": list(message.tool_call_ids),
        "timestamp": message.timestamp,
        "metadata": message.metadata,
        "created_at": now,
    }


def stored_message(m: Mapping[Any, Any]) -> StoredMessage:
    """A stored message from its row's columns, by name (any mapping of them)."""
    message = Message(
        role=m["role"],
        content=m["content"],
        name=m["name"],
        type=m["type"],
        tool_call_ids=tuple(m["tool_call_ids"]),
        timestamp=m["timestamp"],
        id=m["message_id"],
        metadata=m["metadata"],
    )
    return StoredMessage(m["chat_id"], m["sequence"], message)


_SUMMARY_FIELDS = tuple(field.name for field in fields(SummaryRow))
"""A summary row's fields, each stored in the column of its name."""


def summary_row(m: Mapping[Any, Any]) -> SummaryRow:
    """A summary row from its row's columns, by name (any mapping of them)."""
    return SummaryRow(**{name: m[name] for name in _SUMMARY_FIELDS})


def _chat(conn: Connection, chat_id: str, *, lock: bool) -> ChatRecord:
    return _chat_record(_chat_row(conn, chat_id, lock=lock))


def _chat_row(conn: Connection, chat_id: str, *, lock: bool) -> Row[Any]:
    row = conn.execute(prebuilt.chat_by_id(lock), {"chat_id": chat_id}).first()
    if row is None:
        raise NotFoundError(f"no chat with id {chat_id!r}; create it first with create_chat()")
    return row


def _messages_by_id(conn: Connection, chat_id: str, ids: Sequence[str]) -> list[StoredMessage]:
    query = prebuilt.messages_by_id()
    return [
        stored_message(row._mapping)
        for row in conn.execute(query, {"chat_id": chat_id, "ids": ids})
    ]


def _select_messages(
    conn: Connection, chat_id: str, after: int, limit: int | None
) -> list[StoredMessage]:
    query = prebuilt.messages_after(limited=limit is not None)
    values = {"chat_id": chat_id, "after": after, "limit": limit}
    return [stored_message(row._mapping) for row in conn.execute(query, values)]


def _select_summaries(conn: Connection, chat_id: str, *, active: bool = False) -> list[SummaryRow]:
    """Every row by sequence, or (``active``) the shown chain: no archived rows, by episode."""
    query = prebuilt.summaries_of(active)
    return [summary_row(row._mapping) for row in conn.execute(query, {"chat_id": chat_id})]


def _insert_messages(
    conn: Connection, chat: ChatRecord, new: Sequence[Message], now: datetime
) -> list[StoredMessage]:
    first = chat.message_count + 1
    if new:
        values = [_message_values(chat.id, first + i, m, now) for i, m in enumerate(new)]
        conn.execute(prebuilt.insert_messages(), values)
    return [StoredMessage(chat.id, first + i, message) for i, message in enumerate(new)]


def _write_summaries(
    conn: Connection, chat_id: str, rows: Sequence[SummaryRow], now: datetime
) -> list[SummaryRow]:
    written: list[SummaryRow] = []
    next_sequence: int | None = None
    for row in rows:
        if row.id is not None:
            patch = SummaryPatch.from_row(row)
            written.append(_patch_summary(conn, chat_id, row.id, patch, now))
            continue
        if next_sequence is None:
            next_sequence = _next_summary_sequence(conn, chat_id)
        written.append(_insert_summary(conn, chat_id, row, next_sequence, now))
        next_sequence += 1
    return written


def _next_summary_sequence(conn: Connection, chat_id: str) -> int:
    table = conversation_summaries
    last = conn.scalar(select(func.max(table.c.sequence)).where(table.c.chat_id == chat_id))
    return int(last or 0) + 1


def _insert_summary(
    conn: Connection, chat_id: str, row: SummaryRow, sequence: int, now: datetime
) -> SummaryRow:
    table = conversation_summaries
    values = {
        **SummaryPatch.from_row(row).values(),
        "chat_id": chat_id,
        "sequence": sequence,
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }
    result = conn.execute(insert(table).values(values).returning(*table.c))
    return summary_row(result.one()._mapping)


def _patch_summary(
    conn: Connection, chat_id: str, summary_id: int, patch: SummaryPatch, now: datetime
) -> SummaryRow:
    table = conversation_summaries
    statement = (
        update(table)
        .where(table.c.id == summary_id, table.c.chat_id == chat_id)
        .values(**patch.values(), version=table.c.version + 1, updated_at=now)
        .returning(*table.c)
    )
    row = (conn.execute(statement)).first()
    if row is None:
        raise NotFoundError(f"chat {chat_id!r} has no summary row with id {summary_id}")
    return summary_row(row._mapping)


def _update_chat(
    conn: Connection, chat: ChatRecord, *, facts: Sequence[Mapping[str, Any]] | None = None
) -> ChatRecord:
    """Write what a commit changed of ``chat`` (and its facts, when given)."""
    values = _changing_values(chat)
    if facts is not None:
        values["facts"] = [dict(fact) for fact in facts]
    statement = prebuilt.update_chat(tuple(values))
    bound = {f"new_{name}": value for name, value in values.items()}
    return _chat_record(conn.execute(statement, {"chat_id": chat.id, **bound}).one())
