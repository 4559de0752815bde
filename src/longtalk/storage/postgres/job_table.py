"""Background work as PostgreSQL rows, leased by one worker at a time across replicas.

The ``longtalk_jobs`` table (migration 7) holds one row per (kind, chat) with pending
work; an append requests it in its own commit (``NewMessages.enqueue``), which announces a
new row on the ``longtalk_jobs`` channel. A worker claims the oldest due, unleased row with
``FOR UPDATE SKIP LOCKED`` and reads its chat's state in the same statement
(``queries.CLAIM_JOB``), stamping a lease (``lease_owner``, ``lease_until``) that it renews
while it works; the claim also tells how many more rows are due and when the next lease
or retry falls due, so idle workers sleep until then. A replica killed mid-job stops
renewing, its lease expires and another worker claims the row. Every request for work
bumps ``generation``: finishing generation g deletes the row only when no newer request
came in meanwhile (else it releases the row and announces it). Failures move ``due_at``
into the future (the durable backoff). Times are the database's ``now()``, so replicas'
clocks never disagree. Every method is one statement, run alone (autocommit).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import TextClause

from longtalk.storage.leases import Claim, Failure, JobStatus, Lease
from longtalk.storage.postgres import queries
from longtalk.storage.postgres.chat_storage import PostgresStorage
from longtalk.storage.postgres.codec import state_of


class JobTable:
    """The ``longtalk_jobs`` rows of one kind of work, for one worker: a ``JobQueue``."""

    def __init__(self, storage: PostgresStorage, *, kind: str, owner: str, lease: float) -> None:
        self.storage = storage
        self.kind = kind
        self.owner = owner
        self.lease = lease

    async def claim(self) -> Claim:
        """Lease the oldest due job nobody holds, with its chat's state, in one statement."""
        args = (self.kind, self.owner, self.lease, self.storage.smart_load_tail)
        async with (
            self.storage.riding() as notes,
            self.storage.statement(f"claiming a {self.kind} job", write=True) as db,
        ):
            row = await db.fetchrow(queries.CLAIM_JOB, *args, *notes)
        due, next_in = int(row["due"]), row["next_in"]
        if row["job_chat"] is None:
            return Claim(more=due, next_in=next_in)
        lease = Lease(
            row["job_chat"], row["job_tenant"], int(row["generation"]), int(row["attempts"])
        )
        state = state_of(row) if row["id"] is not None else None
        return Claim(lease, state, max(0, due - 1), next_in)

    async def claim_chat(self, chat_id: str, tenant: str) -> Lease | None:
        """Lease this chat's job now (creating it); None while another worker holds it."""
        row = await self._first(
            queries.JOB_CLAIM_CHAT,
            kind=self.kind,
            chat_id=chat_id,
            tenant=tenant,
            owner=self.owner,
            lease=self.lease,
        )
        return None if row is None else Lease(row[0], row[1], int(row[2]), int(row[3]))

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease; False when it was lost (expired and claimed by another)."""
        key = {"kind": self.kind, "chat_id": lease.chat_id, "owner": self.owner}
        async with self.storage.job_transaction("renewing a job lease") as conn:
            result = await conn.execute(queries.JOB_RENEW, {**key, "lease": self.lease})
        return bool(result.rowcount)

    async def finish(self, lease: Lease, *, again: bool) -> None:
        """The job succeeded: drop the row, or release it when more work is due.

        The row is released (and announced) instead of dropped when ``again`` or when a
        newer request came in while the job ran (its generation moved on).
        """
        async with self.storage.riding() as (channels, payloads):
            await self._first(
                queries.JOB_FINISH,
                kind=self.kind,
                chat_id=lease.chat_id,
                owner=self.owner,
                generation=lease.generation,
                again=again,
                channels=channels,
                payloads=payloads,
            )

    async def fail(self, lease: Lease, error: str, *, retry_at: datetime | None) -> Failure:
        """The job failed: release it, due again at ``retry_at`` (the job path's backoff)."""
        row = await self._first(
            queries.JOB_FAIL,
            kind=self.kind,
            chat_id=lease.chat_id,
            owner=self.owner,
            error=error[:2000],
            due_at=retry_at,
        )
        if row is None:  # the lease was lost meanwhile: the new holder decides
            return Failure(lease.attempts + 1, 0.0)
        return Failure(int(row[0]), float(row[1]))

    async def defer(self, lease: Lease, retry_at: datetime) -> None:
        """Release the job, due again at ``retry_at`` (the chat is backing off)."""
        key = {"kind": self.kind, "chat_id": lease.chat_id, "owner": self.owner}
        async with self.storage.job_transaction("deferring a job") as conn:
            await conn.execute(queries.JOB_DEFER, {**key, "due_at": retry_at})

    async def last_error(self, chat_id: str) -> str | None:
        """The chat's last recorded job error, if its job is failing."""
        row = await self._first(queries.JOB_ERROR, kind=self.kind, chat_id=chat_id)
        return None if row is None else row[0]

    async def status(self, chat_ids: Iterable[str]) -> dict[str, JobStatus]:
        """The job rows of these chats (a chat without a row has no work queued)."""
        params = {"kind": self.kind, "chat_ids": list(chat_ids)}
        async with self.storage.job_transaction(f"{self.kind} job states") as conn:
            rows = (await conn.execute(queries.JOB_STATUS, params)).all()
        return {row[0]: JobStatus(bool(row[1]), row[2]) for row in rows}

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages (idempotent)."""
        row = await self._first(queries.JOB_RECOVER, kind=self.kind, tenants=list(tenants))
        return 0 if row is None else int(row[0])

    async def pending(self) -> int:
        """How many chats have work due or running (retries waiting out a backoff excepted)."""
        row = await self._first(queries.JOB_PENDING, kind=self.kind)
        return 0 if row is None else int(row[0])

    async def _first(self, statement: TextClause, **params: Any) -> tuple[Any, ...] | None:
        async with self.storage.job_transaction(f"{self.kind} job queue") as conn:
            row = (await conn.execute(statement, params)).first()
        return None if row is None else tuple(row)
