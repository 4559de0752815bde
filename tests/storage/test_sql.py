"""What only the database backends have: migrations, real faults, cascades, processes."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import func, inspect, select, text

from longtalk.core.messages import assistant, user
from longtalk.errors import (
    NotFoundError,
    SchemaVersionError,
    StorageError,
    StorageUnavailableError,
)
from longtalk.storage import (
    NewMessages,
    RecordUpdate,
    SummaryRow,
    SummaryUpdate,
    TurnCommit,
    resolve_storage,
)
from longtalk.storage import schema as tables
from longtalk.storage.migrations import LATEST_VERSION, MIGRATIONS
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.queries import INDEX_CLAIM
from longtalk.storage.sql import SqlStorage
from longtalk.testing import free_port


def sql(backend) -> SqlStorage:  # type: ignore[no-untyped-def]
    storage = backend.open()
    assert isinstance(storage, SqlStorage)
    return storage


async def scalar(storage: SqlStorage, statement):  # type: ignore[no-untyped-def]
    return await storage.transaction(lambda conn: conn.scalar(statement))


async def execute(storage: SqlStorage, *statements: str) -> None:
    def run(conn):  # type: ignore[no-untyped-def]
        for statement in statements:
            conn.execute(text(statement))

    await storage.transaction(run, write=True)


# -- migrations ----------------------------------------------------------------------------


async def test_first_use_migrates_an_empty_database(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    chat = await storage.create_chat()  # no explicit setup(): first use migrates
    assert chat.id

    def columns(conn):  # type: ignore[no-untyped-def]
        found = inspect(conn)
        return {
            table.name: {c["name"] for c in found.get_columns(table.name)}
            for table in tables.metadata.sorted_tables
        }

    assert await storage.transaction(columns) == {
        table.name: set(table.c.keys()) for table in tables.metadata.sorted_tables
    }
    versions = select(func.count()).select_from(tables.schema_versions)
    assert await scalar(storage, versions) == len(MIGRATIONS)
    await storage.setup()
    again = sql(sql_backend)
    await again.setup()
    assert await scalar(again, versions) == len(MIGRATIONS)
    assert await again.get_chat(chat.id) == chat


async def test_lagging_chats_are_found_through_a_partial_index(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    for name in ("done", "behind"):
        await storage.create_chat(name)
        await storage.append_messages(name, [user("hello"), assistant("hi")])
    await storage.mark_indexed("done", 2)
    backlog = (
        "SELECT id FROM chats WHERE chats.message_count > chats.indexed_sequence "
        "ORDER BY updated_at, id LIMIT 64"
    )

    def plan(conn):  # type: ignore[no-untyped-def]
        if conn.dialect.name == "sqlite":
            rows = conn.execute(text("EXPLAIN QUERY PLAN " + backlog)).all()
            return " ".join(str(row[-1]) for row in rows)
        conn.execute(text("SET LOCAL enable_seqscan = off"))  # a tiny table is scanned anyway
        return " ".join(row[0] for row in conn.execute(text("EXPLAIN " + backlog)).all())

    assert "ix_chats_index_backlog" in await storage.transaction(plan)
    assert [chat.id for chat in await storage.index_backlog()] == ["behind"]
    if isinstance(storage, PostgresStorage):  # the replicas' indexing claim reads it too

        def claim_plan(conn):  # type: ignore[no-untyped-def]
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            query = text("EXPLAIN " + str(INDEX_CLAIM))
            params = {"owner": "r", "lease": 30.0, "limit": 64}
            return " ".join(row[0] for row in conn.execute(query, params).all())

        assert "ix_chats_index_backlog" in await storage.transaction(claim_plan)
    # a database migrated before the index gets it from migration 10
    await execute(
        storage,
        "DROP INDEX ix_chats_index_backlog",
        "DELETE FROM longtalk_schema WHERE version >= 10",
    )
    again = sql(sql_backend)
    await again.setup()
    assert "ix_chats_index_backlog" in await again.transaction(plan)
    assert [chat.id for chat in await again.index_backlog()] == ["behind"]


async def test_concurrent_first_use_migrates_once(sql_backend) -> None:  # type: ignore[no-untyped-def]
    stores = [sql(sql_backend) for _ in range(4)]
    await asyncio.gather(*(s.setup() for s in stores))
    await asyncio.gather(*(s.create_chat() for s in stores))
    versions = select(func.count()).select_from(tables.schema_versions)
    assert await scalar(stores[0], versions) == len(MIGRATIONS)  # each step recorded once
    assert len(await stores[1].list_chats()) == 4


async def test_a_newer_database_is_refused(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    await storage.setup()
    newest = tables.schema_versions.insert().values(
        version=LATEST_VERSION + 1, name="from the future", applied_at=datetime.now(UTC)
    )
    await storage.transaction(lambda conn: conn.execute(newest), write=True)
    newer = sql(sql_backend)
    with pytest.raises(SchemaVersionError, match=f"schema version {LATEST_VERSION + 1}.*upgrade"):
        await newer.create_chat()


# -- faults inside a commit ----------------------------------------------------------------

TRIGGERS = {
    "sqlite": [
        """CREATE TRIGGER fail_boom BEFORE INSERT ON conversation_summaries
           WHEN NEW.summary_text = 'boom'
           BEGIN SELECT RAISE(ABORT, 'injected failure'); END"""
    ],
    "postgres": [
        """CREATE FUNCTION fail_boom() RETURNS trigger AS $$
           BEGIN
             IF NEW.summary_text = 'boom' THEN RAISE EXCEPTION 'injected failure'; END IF;
             RETURN NEW;
           END $$ LANGUAGE plpgsql""",
        """CREATE TRIGGER fail_boom BEFORE INSERT ON conversation_summaries
           FOR EACH ROW EXECUTE FUNCTION fail_boom()""",
    ],
}


async def test_database_failure_mid_commit_rolls_back(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    chat = await storage.create_chat(title="before")
    await storage.append_messages(chat.id, [user("one"), assistant("two")])
    await storage.create_summary(SummaryRow(chat.id, "kept"))
    before = await storage.load_state(chat.id)
    await execute(storage, *TRIGGERS[sql_backend.name])
    commit = TurnCommit(
        chat.id,
        append=NewMessages([user("three"), assistant("four")]),
        summary=SummaryUpdate(
            rows=(SummaryRow(chat.id, "fine"), SummaryRow(chat.id, "boom")),
            last_summarized_sequence=4,
            expected_version=before.chat.summary_version,
        ),
        record=RecordUpdate(title="after"),
    )
    with pytest.raises(StorageError) as caught:
        await storage.commit_turn(commit)
    message = str(caught.value)
    assert f"commit_turn({chat.id!r}) failed while writing" in message
    assert "2 summary rows" in message
    assert "rolled back, nothing was written" in message and "injected failure" in message
    other = sql(sql_backend)
    assert await other.load_state(chat.id) == before
    count = select(func.count()).select_from(tables.messages)
    assert await scalar(other, count) == 2


async def test_delete_cascades_to_rows(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    keep, drop = await storage.create_chat(), await storage.create_chat()
    for chat in (keep, drop):
        await storage.append_messages(chat.id, [user("q"), assistant("a")])
        await storage.create_summary(SummaryRow(chat.id, "s"))
    assert await storage.delete_chat(drop.id)
    for table in (tables.messages, tables.conversation_summaries):
        rows = select(table.c.chat_id).distinct()
        found = await storage.transaction(lambda conn, rows=rows: conn.scalars(rows).all())
        assert found == [keep.id]


# -- unreachable databases -----------------------------------------------------------------


async def test_unreachable_postgres_is_a_clear_error() -> None:
    port = free_port()
    storage = resolve_storage(f"postgresql://longtalk:secret@127.0.0.1:{port}/chats")
    started = time.monotonic()
    try:
        with pytest.raises(StorageUnavailableError) as caught:
            await storage.create_chat()
    finally:
        await storage.close()
    message = str(caught.value)
    assert (
        f"cannot reach the PostgreSQL database at postgresql://longtalk:***@127.0.0.1:{port}/chats"
        in message
    )
    assert "secret" not in message and "check that the server is running" in message
    assert time.monotonic() - started < 10


async def test_unopenable_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    storage = resolve_storage(f"sqlite:///{blocker}/chats.db")
    try:
        with pytest.raises(StorageUnavailableError, match="a-file/chats.db.*writable directory"):
            await storage.create_chat()
    finally:
        await storage.close()


async def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    garbage = tmp_path / "chats.db"
    garbage.write_bytes(b"this is not a SQLite file" * 100)
    storage = resolve_storage(f"sqlite:///{garbage}")
    try:
        with pytest.raises(StorageError, match="not a database"):
            await storage.create_chat()
    finally:
        await storage.close()


# -- writers in separate processes ---------------------------------------------------------


def _process_writer(url: str, chat_id: str, name: str, turns: int) -> None:
    async def run() -> None:
        storage = resolve_storage(url)
        try:
            for t in range(turns):
                await storage.append_messages(
                    chat_id, [user(f"{name} {t} q"), assistant(f"{name} {t} a")]
                )
        finally:
            await storage.close()

    asyncio.run(run())


async def test_writers_in_separate_processes(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    chat = await storage.create_chat()
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_process_writer, args=(sql_backend.url, chat.id, f"p{i}", 15))
        for i in range(3)
    ]
    for process in processes:
        process.start()
    await asyncio.gather(*(asyncio.to_thread(p.join, 120) for p in processes))
    assert [p.exitcode for p in processes] == [0, 0, 0]
    stored = await storage.list_messages(chat.id)
    assert [s.sequence for s in stored] == list(range(1, 91))
    for i in range(3):
        own = [s.message.content for s in stored if s.message.content.startswith(f"p{i} ")]
        assert own == [f"p{i} {t} {part}" for t in range(15) for part in ("q", "a")]


# -- broken connections --------------------------------------------------------------------


async def test_a_connection_killed_mid_transaction_is_unavailable_not_a_driver_message(
    make_backend,  # type: ignore[no-untyped-def]
) -> None:
    backend = await make_backend("postgres")
    storage, admin = sql(backend), sql(backend)
    chat = await storage.create_chat()
    pids: list[int] = []

    def slow(conn):  # type: ignore[no-untyped-def]
        pids.append(conn.scalar(text("SELECT pg_backend_pid()")))
        conn.execute(text("SELECT pg_sleep(10)"))

    task = asyncio.create_task(storage.transaction(slow, write=True))
    while not pids:
        await asyncio.sleep(0.02)
    kill = text("SELECT pg_terminate_backend(:pid)").bindparams(pid=pids[0])
    await admin.transaction(lambda conn: conn.execute(kill))
    with pytest.raises(StorageUnavailableError) as caught:
        await task
    message = str(caught.value)
    assert "connection to the PostgreSQL database was lost" in message
    assert "rolled back, nothing was written" in message and "Retry" in message
    assert "terminating connection" not in message  # the driver's text stays in the log
    stored = await storage.append_messages(chat.id, [user("after"), assistant("fine")])
    assert [s.sequence for s in stored] == [1, 2]  # the pool dropped the dead connection


async def test_cancelled_calls_leave_no_connection_in_a_broken_state(make_backend) -> None:  # type: ignore[no-untyped-def]
    backend = await make_backend("postgres")
    storage = sql(backend)
    chat = await storage.create_chat()
    for _ in range(5):
        sleeping = asyncio.create_task(
            storage.transaction(lambda conn: conn.execute(text("SELECT pg_sleep(5)")))
        )
        appending = asyncio.create_task(storage.append_messages(chat.id, [user("q")]))
        await asyncio.sleep(0.05)
        sleeping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sleeping
        await appending
    results = await asyncio.gather(
        *(storage.append_messages(chat.id, [user(f"m{i}")]) for i in range(10)),
        return_exceptions=True,
    )
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert (await storage.get_chat(chat.id)).message_count == 15  # type: ignore[union-attr]


async def test_a_connection_lost_while_committing_is_retried_safely_by_message_ids(
    make_backend,  # type: ignore[no-untyped-def]
) -> None:
    backend = await make_backend("postgres")
    storage, admin = sql(backend), sql(backend)
    chat = await storage.create_chat()
    await execute(
        storage,
        """CREATE FUNCTION slow_commit() RETURNS trigger AS $$
           BEGIN PERFORM pg_sleep(10); RETURN NULL; END $$ LANGUAGE plpgsql""",
        """CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON messages
           DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
           WHEN (NEW.content = 'slow') EXECUTE FUNCTION slow_commit()""",
    )
    turn = [user("slow", id="m-1"), assistant("answer", id="m-2")]
    task = asyncio.create_task(storage.append_messages(chat.id, turn))
    waiting = text(
        "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND state = 'active'"
    )
    pids: list[int] = []
    while not pids:
        await asyncio.sleep(0.05)
        pids = list(await admin.transaction(lambda conn: conn.scalars(waiting).all()))
    kill = text("SELECT pg_terminate_backend(:pid)").bindparams(pid=pids[0])
    await admin.transaction(lambda conn: conn.execute(kill))
    with pytest.raises(StorageUnavailableError, match="may or may not have been applied"):
        await task  # the commit did not land: its ids are not there, so it is an error
    await execute(storage, "DROP TRIGGER slow_commit ON messages")
    stored = await storage.append_messages(chat.id, turn)  # the client's retry
    again = await storage.append_messages(chat.id, turn)  # and another: a replay
    assert [s.sequence for s in stored] == [s.sequence for s in again] == [1, 2]
    assert len(await storage.list_messages(chat.id)) == 2


# -- jobs requested in the commit --------------------------------------------------------------


async def test_a_job_requested_in_a_commit_lands_with_it_and_only_then(sql_backend) -> None:  # type: ignore[no-untyped-def]
    storage = sql(sql_backend)
    chat = await storage.create_chat(tenant="t")
    job = select(tables.jobs.c.kind, tables.jobs.c.tenant, tables.jobs.c.generation)

    async def rows() -> list[tuple[str, str, int]]:
        found = await storage.transaction(lambda conn: conn.execute(job).all())
        return [tuple(row) for row in found]

    refused = TurnCommit(chat.id, append=NewMessages([user("q")], enqueue="summary"), tenant="u")
    with pytest.raises(NotFoundError):
        await storage.commit_turn(refused)
    await storage.commit_turn(
        TurnCommit(
            chat.id, append=NewMessages(enqueue="summary"), record=RecordUpdate(title="no messages")
        )
    )
    assert await rows() == []  # nothing stored, nothing requested
    turn = [user("q", id="k:0"), assistant("a", id="k:1")]
    await storage.commit_turn(TurnCommit(chat.id, append=NewMessages(turn, enqueue="summary")))
    assert await rows() == [("summary", "t", 0)]
    await storage.commit_turn(TurnCommit(chat.id, append=NewMessages(turn, enqueue="summary")))
    assert await rows() == [("summary", "t", 0)]  # a replay requests nothing
    await storage.commit_turn(
        TurnCommit(chat.id, append=NewMessages([user("q2")], enqueue="summary"))
    )
    assert await rows() == [("summary", "t", 1)]  # the pending job covers the new request


async def test_postgres_announces_a_new_job_row_when_its_commit_lands(make_backend) -> None:  # type: ignore[no-untyped-def]
    backend = await make_backend("postgres")
    storage = sql(backend)
    assert isinstance(storage, PostgresStorage)
    chat = await storage.create_chat()
    heard: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(backend.url)
    await listener.add_listener("longtalk_jobs", lambda *args: heard.put_nowait(args[-1]))
    try:
        for number in range(2):  # a new row is announced, a newer request of it is not
            turn = TurnCommit(chat.id, append=NewMessages([user(f"q{number}")], enqueue="summary"))
            await storage.commit_turn(turn)
        assert await asyncio.wait_for(heard.get(), 5) == chat.id
        await asyncio.sleep(0.2)
        assert heard.empty()
    finally:
        await listener.close()
