"""PostgreSQL's job and indexing leases are the lease seams the service calls through."""

from __future__ import annotations

import pytest
from tests.storage.conftest import Backend

from longtalk.core.messages import user
from longtalk.storage.leases import ChatLeases, JobBook, JobLeases, JobQueue
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.index_leases import IndexLeases
from longtalk.storage.postgres.job_table import JobTable


@pytest.fixture
async def postgres(make_backend) -> PostgresStorage:
    backend: Backend = await make_backend("postgres")
    storage = backend.open()
    assert isinstance(storage, PostgresStorage)
    await storage.setup()
    return storage


async def test_the_job_table_is_a_job_queue(postgres: PostgresStorage) -> None:
    table: JobQueue = JobTable(postgres, kind="summary", owner="r1", lease=30.0)
    assert isinstance(table, JobLeases) and isinstance(table, JobBook)
    chat = await postgres.create_chat()
    await postgres.append_messages(chat.id, [user("hello")])
    assert await table.recover(["default"]) == 1
    claim = await table.claim()
    assert claim.lease is not None and claim.lease.chat_id == chat.id
    assert claim.state is not None and claim.state.chat.message_count == 1
    assert (await table.status([chat.id]))[chat.id].held
    await table.finish(claim.lease, again=False)
    assert await table.pending() == 0


async def test_index_leases_are_chat_leases(postgres: PostgresStorage) -> None:
    leases: ChatLeases = IndexLeases(postgres, owner="r1", lease=30.0)
    assert isinstance(leases, ChatLeases)
    chat = await postgres.create_chat()
    await postgres.append_messages(chat.id, [user("hello")])
    assert await leases.claim(5) == [chat.id]
    assert await leases.renew([chat.id]) == 1
    await leases.release([chat.id])
    assert await leases.claim(5) == [chat.id]
