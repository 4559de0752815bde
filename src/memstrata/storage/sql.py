"""Chat storage on SQLAlchemy's async engine: one code path for SQLite and PostgreSQL.

The backends (``SqliteStorage``, ``PostgresStorage``) only build the engine and add what
their database needs (pragmas, locks). Every public method is one transaction. A commit
first locks the chat row (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's write
transactions start with ``BEGIN IMMEDIATE`` and so hold the database's one write lock), so
concurrent commits to a chat are applied one after the other: messages get gapless
sequences in commit order, and the summary compare-and-swap reads the latest version.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import Row, case, delete, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memstrata.core.messages import Message
from memstrata.errors import (
    MemstrataError,
    NotFoundError,
    StorageError,
    StorageUnavailableError,
)
from memstrata.storage import migrations
from memstrata.storage.base import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    StorageBase,
    StoredMessage,
    SummaryPatch,
    SummaryRow,
    TurnCommit,
    check_commit,
    message_ids,
    replayed,
    smart_load_after,
)
from memstrata.storage.schema import chats, conversation_summaries, messages

log = logging.getLogger(__name__)

_DRIVER_ERRORS = (SQLAlchemyError, OSError, TimeoutError)
WRITE_OPTION = "memstrata_write"


class _Progress:
    """What an operation was doing, for the error message when it fails."""

    def __init__(self, operation: str, *, write: bool) -> None:
        self.operation = operation
        self.write = write
        self.doing = ""

    def describe(self, exc: BaseException) -> str:
        doing = f" while {self.doing}" if self.doing else ""
        rolled_back = "; it was rolled back, nothing was written" if self.write else ""
        return f"{self.operation} failed{doing}{rolled_back}: {_reason(exc)}"


def _reason(exc: BaseException) -> str:
    """The driver's message, without SQLAlchemy's echo of the statement and parameters."""
    text = str(getattr(exc, "orig", None) or exc) or type(exc).__name__
    return text if len(text) <= 500 else text[:500] + " ..."


def _now() -> datetime:
    return datetime.now(UTC)


class SqlStorage(StorageBase):
    """``ChatStorage`` on an async SQLAlchemy engine; see the module docstring.

    The schema is created or migrated on first use (or by ``setup()``); ``close()`` releases
    the connection pool.
    """

    backend_name: ClassVar[str] = "SQL"
    unavailable_hint: ClassVar[str] = "check the database settings"
    read_options: ClassVar[Mapping[str, Any]] = {}
    single_writer: ClassVar[bool] = False
    """True where the database takes one writer at a time (SQLite): this process's writes
    then queue on a lock instead of sleeping in the database's busy handler."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        location: str,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        super().__init__(smart_load_tail=smart_load_tail)
        self.engine = engine
        self.location = location
        self._ready = False
        self._writer = asyncio.Lock()

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
        while True:
            async with self._transaction("setup", write=True, setup=True) as (conn, progress):
                await self._lock_schema(conn)
                progress.doing = "applying schema migrations"
                applied = await conn.run_sync(migrations.apply_next, where=self.location)
            if applied is None:
                break
            log.info("%s: applied migration %d (%s)", self, applied.version, applied.name)
        self._ready = True

    async def close(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()

    async def _prepare(self) -> None:
        """What must exist before the first connection (a backend's hook)."""

    async def _lock_schema(self, conn: AsyncConnection) -> None:
        """Serialize concurrent migrations for this transaction (a backend's hook)."""

    async def _after_delete(self) -> None:
        """After a committed deletion: erase what the database's files keep (a backend's hook)."""

    # -- transactions ------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(
        self, operation: str, *, write: bool, setup: bool = False
    ) -> AsyncIterator[tuple[AsyncConnection, _Progress]]:
        """One transaction; driver errors leave as ``StorageError`` naming the operation."""
        if not setup:
            await self.setup()
        queue = self._writer if write and self.single_writer else contextlib.nullcontext()
        async with queue:
            async with self._connection(operation, write=write) as yielded:
                yield yielded

    @asynccontextmanager
    async def _connection(
        self, operation: str, *, write: bool
    ) -> AsyncIterator[tuple[AsyncConnection, _Progress]]:
        progress = _Progress(operation, write=write)
        conn = await self._connect(operation)
        try:
            options = {WRITE_OPTION: True} if write else dict(self.read_options)
            await conn.execution_options(**options)
            async with conn.begin():
                yield conn, progress
                progress.doing = "committing"
        except MemstrataError:
            raise
        except _DRIVER_ERRORS as exc:
            raise StorageError(progress.describe(exc)) from exc
        finally:
            await conn.close()

    async def _connect(self, operation: str) -> AsyncConnection:
        conn = self.engine.connect()
        try:
            await conn.start()
        except _DRIVER_ERRORS as exc:
            raise StorageUnavailableError(
                f"{operation}: cannot reach the {self.backend_name} database at "
                f"{self.location}: {_reason(exc)} - {self.unavailable_hint}"
            ) from exc
        return conn

    # -- chats -------------------------------------------------------------------------

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """Create a chat (a random id when none is given)."""
        now = _now()
        chat = ChatRecord(
            id=chat_id or uuid.uuid4().hex,
            tenant=tenant,
            user=user,
            title=title,
            created_at=now,
            updated_at=now,
            incarnation=uuid.uuid4().hex,
        )
        async with self._transaction(f"create_chat({chat.id!r})", write=True) as (conn, _):
            if await conn.scalar(select(chats.c.id).where(chats.c.id == chat.id)) is not None:
                raise StorageError(f"create_chat: a chat with id {chat.id!r} already exists")
            await conn.execute(insert(chats).values(_chat_values(chat)))
        return chat

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        query = select(chats).where(chats.c.id == chat_id)
        if tenant is not None:
            query = query.where(chats.c.tenant == tenant)
        async with self._transaction(f"get_chat({chat_id!r})", write=False) as (conn, _):
            row = (await conn.execute(query)).first()
        return None if row is None else _chat_record(row)

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
        async with self._transaction("list_chats", write=False) as (conn, _):
            rows = (await conn.execute(query)).all()
        return [_chat_record(row) for row in rows]

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        same = [chats.c.id == chat_id]
        if incarnation is not None:
            same.append(chats.c.incarnation == incarnation)
        statement = (
            update(chats)
            .where(*same, chats.c.indexed_sequence < sequence)
            .values(
                indexed_sequence=case(
                    (chats.c.message_count < sequence, chats.c.message_count), else_=sequence
                )
            )
        )
        async with self._transaction(f"mark_indexed({chat_id!r})", write=True) as (conn, _):
            if (await conn.execute(statement)).rowcount:
                return True
            return await conn.scalar(select(chats.c.id).where(*same)) is not None

    async def index_backlog(self, *, limit: int = 100) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first."""
        query = (
            select(chats)
            .where(chats.c.message_count > chats.c.indexed_sequence)
            .order_by(chats.c.updated_at, chats.c.id)
            .limit(limit)
        )
        async with self._transaction("index_backlog", write=False) as (conn, _):
            rows = (await conn.execute(query)).all()
        return [_chat_record(row) for row in rows]

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        statement = update(chats).values(indexed_sequence=0)
        query = select(chats).order_by(chats.c.id)
        if chat_id is not None:
            statement = statement.where(chats.c.id == chat_id)
            query = query.where(chats.c.id == chat_id)
        async with self._transaction("reset_index", write=True) as (conn, _):
            await conn.execute(statement)
            rows = (await conn.execute(query)).all()
        return [_chat_record(row) for row in rows]

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat; its messages and summary rows go with it (foreign-key cascade)."""
        statement = delete(chats).where(chats.c.id == chat_id)
        if tenant is not None:
            statement = statement.where(chats.c.tenant == tenant)
        async with self._transaction(f"delete_chat({chat_id!r})", write=True) as (conn, _):
            result = await conn.execute(statement)
        if result.rowcount:
            await self._after_delete()
        return bool(result.rowcount)

    async def delete_chats(self, *, tenant: str, user: str | None = None) -> list[ChatRecord]:
        """Delete every chat of a tenant (or of one of its users) in one transaction."""
        where = [chats.c.tenant == tenant]
        if user is not None:
            where.append(chats.c.user_id == user)
        statement = delete(chats).where(*where).returning(*chats.c)
        async with self._transaction(f"delete_chats({tenant!r})", write=True) as (conn, _):
            rows = (await conn.execute(statement)).all()
        if rows:
            await self._after_delete()
        return sorted((_chat_record(row) for row in rows), key=lambda chat: chat.id)

    # -- messages ----------------------------------------------------------------------

    async def list_messages(
        self, chat_id: str, *, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages after a sequence, oldest first ([] for an unknown chat)."""
        async with self._transaction(f"list_messages({chat_id!r})", write=False) as (conn, _):
            return await _select_messages(conn, chat_id, after_sequence, limit)

    async def load_state(self, chat_id: str, *, tail: int | None = None) -> ChatState:
        """Smart load (seed 003): the summary chain and only the recent messages.

        With a summary: its rows, the messages not yet folded into it and at least the last
        ``tail`` (default ``smart_load_tail``); without one, every message. One read
        transaction, so the three parts are consistent with each other.
        """
        tail = self.smart_load_tail if tail is None else tail
        async with self._transaction(f"load_state({chat_id!r})", write=False) as (conn, _):
            chat = await _chat(conn, chat_id, lock=False)
            summaries = await _select_summaries(conn, chat_id, active=True)
            after = smart_load_after(chat, has_summary=bool(summaries), tail=tail)
            stored = await _select_messages(conn, chat_id, after, None)
        return ChatState(chat, tuple(summaries), tuple(stored))

    # -- turns -------------------------------------------------------------------------

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write the turn's messages, summary rows, title and bookkeeping in one transaction.

        ``ConflictError`` when the summary compare-and-swap fails; any other failure is a
        ``StorageError`` naming the step; in both cases nothing of the turn is written.
        """
        now = _now()
        operation = f"commit_turn({commit.chat_id!r})"
        async with self._transaction(operation, write=True) as (conn, progress):
            progress.doing = "locking the chat"
            chat = await _chat(conn, commit.chat_id, lock=True)
            ids = message_ids(commit.new_messages)
            found = await _messages_by_id(conn, chat.id, ids) if ids else []
            if (replay := replayed(found, commit.new_messages)) is not None:
                return CommitResult(chat, replay, ())
            check_commit(chat, commit)
            progress.doing = f"inserting {len(commit.new_messages)} messages"
            stored = await _insert_messages(conn, chat, commit.new_messages, now)
            progress.doing = f"writing {len(commit.summaries)} summary rows"
            rows = await _write_summaries(conn, chat.id, commit.summaries, now)
            progress.doing = "updating the chat"
            chat = await _update_chat(
                conn,
                chat,
                now,
                added=len(stored),
                title=commit.title,
                last_summarized_sequence=commit.last_summarized_sequence,
                summaries_changed=commit.changes_summaries,
            )
        return CommitResult(chat, tuple(stored), tuple(rows))

    # -- summary rows (seed 002's memory-service operations) ---------------------------

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        async with self._transaction(f"list_summaries({chat_id!r})", write=False) as (conn, _):
            return await _select_summaries(conn, chat_id)

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a row; bumps its version and the chat's summary version."""
        now = _now()
        table = conversation_summaries
        async with self._transaction(f"update_summary({summary_id})", write=True) as (conn, _):
            chat_id = await conn.scalar(select(table.c.chat_id).where(table.c.id == summary_id))
            if chat_id is None:
                raise NotFoundError(f"update_summary: no summary row with id {summary_id}")
            chat = await _chat(conn, chat_id, lock=True)
            row = await _patch_summary(conn, chat_id, summary_id, patch, now)
            await _update_chat(conn, chat, now, summaries_changed=True)
        return row


# -- row mapping and statements ------------------------------------------------------------


def _chat_values(chat: ChatRecord) -> dict[str, Any]:
    return {
        "id": chat.id,
        "tenant": chat.tenant,
        "user_id": chat.user,
        "title": chat.title,
        "created_at": chat.created_at,
        "updated_at": chat.updated_at,
        "message_count": chat.message_count,
        "last_summarized_sequence": chat.last_summarized_sequence,
        "summary_version": chat.summary_version,
        "incarnation": chat.incarnation,
    }


def _chat_record(row: Row[Any]) -> ChatRecord:
    m = row._mapping
    return ChatRecord(
        id=m["id"],
        tenant=m["tenant"],
        user=m["user_id"],
        title=m["title"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
        message_count=m["message_count"],
        last_summarized_sequence=m["last_summarized_sequence"],
        summary_version=m["summary_version"],
        indexed_sequence=m["indexed_sequence"],
        incarnation=m["incarnation"],
    )


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


def _stored_message(row: Row[Any]) -> StoredMessage:
    m = row._mapping
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


def _summary_row(row: Row[Any]) -> SummaryRow:
    m = row._mapping
    return SummaryRow(
        chat_id=m["chat_id"],
        summary_text=m["summary_text"],
        sequence=m["sequence"],
        format=m["format"],
        episode_first=m["episode_first"],
        episode_last=m["episode_last"],
        turn_number=m["turn_number"],
        token_count=m["token_count"],
        kind=m["kind"],
        version=m["version"],
        id=m["id"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
    )


async def _chat(conn: AsyncConnection, chat_id: str, *, lock: bool) -> ChatRecord:
    query = select(chats).where(chats.c.id == chat_id)
    row = (await conn.execute(query.with_for_update() if lock else query)).first()
    if row is None:
        raise NotFoundError(f"no chat with id {chat_id!r}; create it first with create_chat()")
    return _chat_record(row)


async def _messages_by_id(
    conn: AsyncConnection, chat_id: str, ids: Sequence[str]
) -> list[StoredMessage]:
    query = select(messages).where(messages.c.chat_id == chat_id, messages.c.message_id.in_(ids))
    return [_stored_message(row) for row in await conn.execute(query.order_by(messages.c.sequence))]


async def _select_messages(
    conn: AsyncConnection, chat_id: str, after: int, limit: int | None
) -> list[StoredMessage]:
    query = (
        select(messages)
        .where(messages.c.chat_id == chat_id, messages.c.sequence > after)
        .order_by(messages.c.sequence)
        .limit(limit)
    )
    return [_stored_message(row) for row in await conn.execute(query)]


async def _select_summaries(
    conn: AsyncConnection, chat_id: str, *, active: bool = False
) -> list[SummaryRow]:
    """Every row by sequence, or (``active``) the shown chain: no archived rows, by episode."""
    table = conversation_summaries
    query = select(table).where(table.c.chat_id == chat_id)
    if active:
        query = query.where(table.c.kind != "archived").order_by(
            table.c.episode_first, table.c.sequence
        )
    else:
        query = query.order_by(table.c.sequence)
    return [_summary_row(row) for row in await conn.execute(query)]


async def _insert_messages(
    conn: AsyncConnection, chat: ChatRecord, new: Sequence[Message], now: datetime
) -> list[StoredMessage]:
    first = chat.message_count + 1
    if new:
        values = [_message_values(chat.id, first + i, m, now) for i, m in enumerate(new)]
        await conn.execute(insert(messages), values)
    return [StoredMessage(chat.id, first + i, message) for i, message in enumerate(new)]


async def _write_summaries(
    conn: AsyncConnection, chat_id: str, rows: Sequence[SummaryRow], now: datetime
) -> list[SummaryRow]:
    written: list[SummaryRow] = []
    next_sequence: int | None = None
    for row in rows:
        if row.id is not None:
            patch = SummaryPatch.from_row(row)
            written.append(await _patch_summary(conn, chat_id, row.id, patch, now))
            continue
        if next_sequence is None:
            next_sequence = await _next_summary_sequence(conn, chat_id)
        written.append(await _insert_summary(conn, chat_id, row, next_sequence, now))
        next_sequence += 1
    return written


async def _next_summary_sequence(conn: AsyncConnection, chat_id: str) -> int:
    table = conversation_summaries
    last = await conn.scalar(select(func.max(table.c.sequence)).where(table.c.chat_id == chat_id))
    return int(last or 0) + 1


async def _insert_summary(
    conn: AsyncConnection, chat_id: str, row: SummaryRow, sequence: int, now: datetime
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
    result = await conn.execute(insert(table).values(values).returning(*table.c))
    return _summary_row(result.one())


async def _patch_summary(
    conn: AsyncConnection, chat_id: str, summary_id: int, patch: SummaryPatch, now: datetime
) -> SummaryRow:
    table = conversation_summaries
    statement = (
        update(table)
        .where(table.c.id == summary_id, table.c.chat_id == chat_id)
        .values(**patch.values(), version=table.c.version + 1, updated_at=now)
        .returning(*table.c)
    )
    row = (await conn.execute(statement)).first()
    if row is None:
        raise NotFoundError(f"chat {chat_id!r} has no summary row with id {summary_id}")
    return _summary_row(row)


async def _update_chat(
    conn: AsyncConnection,
    chat: ChatRecord,
    now: datetime,
    *,
    added: int = 0,
    title: str | None = None,
    last_summarized_sequence: int | None = None,
    summaries_changed: bool = False,
) -> ChatRecord:
    values: dict[str, Any] = {"updated_at": now, "message_count": chat.message_count + added}
    if title is not None:
        values["title"] = title
    if last_summarized_sequence is not None:
        values["last_summarized_sequence"] = last_summarized_sequence
    if summaries_changed:
        values["summary_version"] = chat.summary_version + 1
    statement = update(chats).where(chats.c.id == chat.id).values(values).returning(*chats.c)
    return _chat_record((await conn.execute(statement)).one())
