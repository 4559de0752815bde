"""SQLite chat storage: the embedded default.

Every connection runs with WAL journaling (readers never block the writer), a busy timeout
(a writer waits for the lock instead of failing) and foreign keys on (deleting a chat
cascades). longtalk issues ``BEGIN`` itself: ``BEGIN IMMEDIATE`` for writes, so a write
transaction holds the write lock from its first statement and never fails upgrading a read
lock, and a plain deferred ``BEGIN`` for reads, which see one consistent snapshot.

The driver is the standard library's blocking ``sqlite3``. A transaction is one function
run on a database thread, so the event loop hands it over once and waits once. Writes run on
one writer thread (SQLite takes one writer at a time: this process's writes queue there
instead of sleeping in the busy handler); reads on a few reader threads.

Deleted rows do not stay readable in the files: ``secure_delete`` overwrites freed content
with zeros, and after a deletion the write-ahead log is checkpointed and truncated.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, event
from sqlalchemy.exc import SQLAlchemyError

from longtalk.errors import StorageUnavailableError
from longtalk.storage.base import DEFAULT_SMART_LOAD_TAIL, CommitResult, TurnCommit
from longtalk.storage.config import DEFAULT_BUSY_TIMEOUT_SECONDS, default_sqlite_path
from longtalk.storage.sql import (
    DRIVER_ERRORS,
    WRITE_OPTION,
    Progress,
    SqlStorage,
    T,
    write_turn,
)

log = logging.getLogger(__name__)


class SqliteStorage(SqlStorage):
    """``ChatStorage`` in one SQLite file (default: under the user's data directory)."""

    backend_name = "SQLite"
    unavailable_hint = (
        "the path must be a SQLite file (or a new one) in a writable directory; "
        "set another with storage.sqlite_path or LONGTALK_STORAGE__SQLITE_PATH"
    )

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT_SECONDS,
        pool_size: int = 5,
        smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL,
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_sqlite_path()
        self.busy_timeout = busy_timeout
        readers = max(1, pool_size - 1)
        self.engine = create_engine(
            f"sqlite:///{self.path}",
            pool_size=readers + 1,
            max_overflow=0,
            pool_timeout=max(30.0, busy_timeout * 2),
            connect_args={"check_same_thread": False},
        )
        event.listen(self.engine, "connect", self._on_connect)
        event.listen(self.engine, "begin", _begin)
        self._reader_count = readers
        self._writer: ThreadPoolExecutor | None = None
        self._readers: ThreadPoolExecutor | None = None
        super().__init__(location=str(self.path), smart_load_tail=smart_load_tail)

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write the turn's messages, summary rows, title and bookkeeping in one transaction.

        ``ConflictError`` when a guard of the commit fails; any other failure is a
        ``StorageError`` naming the step; in both cases nothing of the turn is written.
        """
        now = datetime.now(UTC)
        ids = commit.append.lookup_ids

        def write(conn: Connection, progress: Progress) -> CommitResult:
            return write_turn(conn, progress, commit, ids, now)

        try:
            return await self._run(f"commit_turn({commit.chat_id!r})", write, write=True)
        except StorageUnavailableError:
            if not ids or (settled := await self._committed(commit, ids)) is None:
                raise
            return settled

    async def close(self) -> None:
        """Close every pooled connection and stop the database threads (reopened on use)."""
        await asyncio.get_running_loop().run_in_executor(self._threads(True), self.engine.dispose)
        for threads in (self._writer, self._readers):
            if threads is not None:
                threads.shutdown(wait=False)
        self._writer = self._readers = None

    def _threads(self, write: bool) -> ThreadPoolExecutor:
        """The writer thread or the reader threads, started on first use."""
        if write:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(1, "longtalk-sqlite-writer")
            return self._writer
        if self._readers is None:
            self._readers = ThreadPoolExecutor(self._reader_count, "longtalk-sqlite-reader")
        return self._readers

    async def _prepare(self) -> None:
        try:
            await asyncio.to_thread(self.path.parent.mkdir, parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageUnavailableError(
                f"setup: cannot create the directory of the SQLite database {self.path}: "
                f"{exc} - {self.unavailable_hint}"
            ) from exc

    async def _execute(
        self, progress: Progress, body: Callable[[Connection, Progress], T], single: bool
    ) -> T:
        loop = asyncio.get_running_loop()
        threads = self._threads(progress.write)
        return await loop.run_in_executor(threads, self._transaction, progress, body)

    def _transaction(self, progress: Progress, body: Callable[[Connection, Progress], T]) -> T:
        """One transaction, on a database thread."""
        try:
            conn = self.engine.connect()
        except DRIVER_ERRORS as exc:
            raise self._unavailable(progress.operation, exc) from exc
        try:
            with progress.translating(self.backend_name):
                conn.execution_options(**self._options(progress.write))
                with conn.begin():
                    result = body(conn, progress)
                    progress.doing = "committing"
            return result
        finally:
            conn.close()

    async def _after_delete(self) -> None:
        """Checkpoint and truncate the write-ahead log, which still holds the deleted rows.

        Best effort, on the writer thread outside a transaction: a reader holding an old
        snapshot lets the checkpoint finish only in part; the log is then truncated by the
        next deletion or at the next checkpoint.
        """
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._threads(True), self._checkpoint)

    def _checkpoint(self) -> None:
        try:
            raw = self.engine.raw_connection()  # no transaction: a checkpoint runs outside one
            try:
                raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                raw.close()
        except (SQLAlchemyError, OSError, sqlite3.Error) as exc:
            log.warning("%s: truncating the write-ahead log after a deletion failed: %s", self, exc)

    def _on_connect(self, dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN away from the driver: ``_begin`` emits it with the right mode.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA secure_delete = ON")
            self._use_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    def _use_wal(self, cursor: Any) -> None:
        """Switch the file to WAL (persistent, so usually already done).

        Switching takes a lock for which SQLite does not call the busy handler, so
        connections racing on a new file retry here for up to ``busy_timeout``.
        """
        cursor.execute("PRAGMA journal_mode")
        if str(cursor.fetchone()[0]).lower() == "wal":
            return
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                cursor.execute("PRAGMA journal_mode = WAL")
                return
            except Exception as exc:  # the driver's OperationalError; re-raised below
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)


def _begin(conn: Connection) -> None:
    write = conn.get_execution_options().get(WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
