"""Conformance suites of the lease seams replicas share work through: jobs and indexing.

Subclass a suite and give it two fixtures: ``storage``, a set-up, empty ``ChatStorage`` the
leases' chats live in, and ``make_jobs`` (``JobQueueConformance``: owner -> a
``JobQueue`` of kind ``summary`` over that storage, leases of 30 s) or ``make_leases``
(``ChatLeasesConformance``: owner -> ``ChatLeases``)::

    class TestMyJobs(JobQueueConformance):
        @pytest.fixture
        def make_jobs(self, storage):
            return lambda owner: MyJobQueue(storage, kind="summary", owner=owner, lease=30.0)

An append requests a job in its own commit (``NewMessages(enqueue="summary")``) on a backend
with a job table; these suites request work through ``recover`` and ``claim_chat`` so that
they ask nothing of how the table is filled.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from longtalk.core.messages import assistant, user
from longtalk.storage.base import ChatStorage
from longtalk.storage.leases import ChatLeases, JobQueue, Lease

__all__ = ["ChatLeasesConformance", "JobQueueConformance"]

MakeJobs = Callable[[str], JobQueue]
MakeLeases = Callable[[str], ChatLeases]


async def _chat_with_messages(storage: ChatStorage, chat_id: str) -> str:
    chat = await storage.create_chat(chat_id)
    await storage.append_messages(chat.id, [user("hello"), assistant("hi")])
    return chat.id


async def _claimed_by_first(storage: ChatStorage, make_jobs: MakeJobs) -> tuple[JobQueue, Lease]:
    """A chat with messages whose job the owner ``first`` has claimed: its queue and lease."""
    chat_id = await _chat_with_messages(storage, "c1")
    jobs = make_jobs("first")
    lease = await jobs.claim_chat(chat_id, "default")
    assert lease is not None and lease.chat_id == chat_id
    return jobs, lease


class JobQueueConformance:
    """Jobs leased by one owner at a time: claimed with state, renewed, ended three ways."""

    async def test_recovered_work_is_claimed_once_with_its_chat_state(
        self, storage: ChatStorage, make_jobs: MakeJobs
    ) -> None:
        chat_id = await _chat_with_messages(storage, "c1")
        first, second = make_jobs("first"), make_jobs("second")
        assert isinstance(first, JobQueue)
        assert await first.recover(["default"]) == 1
        assert await first.recover(["default"]) == 0  # queued already
        claim = await first.claim()
        assert claim.lease is not None and claim.lease.chat_id == chat_id
        assert claim.state is not None and claim.state.chat.message_count == 2
        assert (await second.claim()).lease is None  # held
        assert await second.claim_chat(chat_id, "default") is None
        assert (await first.status([chat_id]))[chat_id].held
        assert await first.renew(claim.lease)
        await first.finish(claim.lease, again=False)
        assert await first.pending() == 0
        assert await first.status([chat_id]) == {}

    async def test_finishing_with_more_due_releases_the_job(
        self, storage: ChatStorage, make_jobs: MakeJobs
    ) -> None:
        jobs, lease = await _claimed_by_first(storage, make_jobs)
        await jobs.finish(lease, again=True)
        again = await make_jobs("second").claim()
        assert again.lease is not None and again.lease.chat_id == lease.chat_id

    async def test_a_failure_is_recorded_and_retried_when_due(
        self, storage: ChatStorage, make_jobs: MakeJobs
    ) -> None:
        jobs, lease = await _claimed_by_first(storage, make_jobs)
        chat_id = lease.chat_id
        later = datetime.now(UTC) + timedelta(hours=1)
        failure = await jobs.fail(lease, "the model is down", retry_at=later)
        assert failure.attempts == 1 and failure.delay > 3500
        assert await jobs.last_error(chat_id) == "the model is down"
        status = (await jobs.status([chat_id]))[chat_id]
        assert (status.held, status.error) == (False, "the model is down")
        assert (await jobs.claim()).lease is None  # not due for an hour
        retry = await jobs.claim_chat(chat_id, "default")  # asked for now: claimed
        assert retry is not None
        await jobs.fail(retry, "down again", retry_at=None)  # due at once
        due = await make_jobs("second").claim()
        assert due.lease is not None and due.lease.attempts == 2

    async def test_a_deferred_job_waits_until_its_time(
        self, storage: ChatStorage, make_jobs: MakeJobs
    ) -> None:
        jobs, lease = await _claimed_by_first(storage, make_jobs)
        await jobs.defer(lease, datetime.now(UTC) + timedelta(hours=1))
        assert (await make_jobs("second").claim()).lease is None
        assert await jobs.pending() == 0  # waiting out a backoff is not pending
        assert not await jobs.renew(lease)  # released: nothing left to renew


class ChatLeasesConformance:
    """Lagging chats leased by one owner at a time, longest waiting first."""

    async def test_held_chats_are_skipped_and_released_ones_claimed(
        self, storage: ChatStorage, make_leases: MakeLeases
    ) -> None:
        first, second = make_leases("first"), make_leases("second")
        assert isinstance(first, ChatLeases)
        assert await first.claim(10) == []  # nothing lags
        ids = [await _chat_with_messages(storage, f"c{n}") for n in range(3)]
        held = await first.claim(2)
        assert held == ids[:2]
        assert await second.claim(10) == [ids[2]]
        assert await second.claim(10) == []
        assert await first.renew(held) == 2
        assert await second.renew(held) == 0  # not its leases
        await first.release(held)
        assert sorted(await second.claim(10)) == ids[:2]

    async def test_an_indexed_chat_is_not_claimed(
        self, storage: ChatStorage, make_leases: MakeLeases
    ) -> None:
        chat_id = await _chat_with_messages(storage, "c1")
        await storage.mark_indexed(chat_id, 2)
        assert await make_leases("first").claim(10) == []
