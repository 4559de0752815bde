"""The lease seams' conformance suites over PostgreSQL, the backend that shares work."""

from __future__ import annotations

import pytest
from tests.storage.conftest import Backend

from longtalk.storage import ChatStorage
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.index_leases import IndexLeases
from longtalk.storage.postgres.job_table import JobTable
from longtalk.testing.lease_suite import ChatLeasesConformance, JobQueueConformance


@pytest.fixture
async def storage(make_backend) -> ChatStorage:
    backend: Backend = await make_backend("postgres")
    store = backend.open()
    await store.setup()
    return store


class TestPostgresJobs(JobQueueConformance):
    @pytest.fixture
    def make_jobs(self, storage: PostgresStorage):
        return lambda owner: JobTable(storage, kind="summary", owner=owner, lease=30.0)


class TestPostgresIndexLeases(ChatLeasesConformance):
    @pytest.fixture
    def make_leases(self, storage: PostgresStorage):
        return lambda owner: IndexLeases(storage, owner=owner, lease=30.0)
