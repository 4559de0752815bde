"""Leases on background work shared by replicas: the seams, and the records they pass.

A replica's summary jobs go through a :class:`JobQueue` (a worker's hold on a job,
:class:`JobLeases`, and the rows as the service sees them, :class:`JobBook`); its indexing
through :class:`ChatLeases`. PostgreSQL implements them (``postgres.job_table.JobTable``,
``postgres.index_leases.IndexLeases``); the service calls only these protocols.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from longtalk.storage.records import ChatState

__all__ = [
    "ChatLeases",
    "Claim",
    "Failure",
    "JobBook",
    "JobLeases",
    "JobQueue",
    "JobStatus",
    "Lease",
]


@dataclass(frozen=True, slots=True)
class Lease:
    """A claimed job: the chat and the request generation it covers."""

    chat_id: str
    tenant: str
    generation: int
    attempts: int


@dataclass(frozen=True, slots=True)
class Claim:
    """What a claim found: a lease with its chat's state (or none), and the rest of the queue.

    ``more`` is how many other jobs are due now; ``next_in`` the seconds until the next
    lease expires or retry falls due (None when nothing is waiting).
    """

    lease: Lease | None = None
    state: ChatState | None = None
    more: int = 0
    next_in: float | None = None


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed job's record: how many failures in a row, seconds until the retry."""

    attempts: int
    delay: float


@dataclass(frozen=True, slots=True)
class JobStatus:
    """A chat's job as its row tells it: held by a live lease, and its last error."""

    held: bool
    error: str | None


@runtime_checkable
class JobLeases(Protocol):
    """A worker's hold on a job: claim it, keep it, and end it one of three ways."""

    async def claim(self) -> Claim:
        """Lease the oldest due job nobody holds, with its chat's state."""
        ...

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease; False when it was lost (expired and claimed by another)."""
        ...

    async def finish(self, lease: Lease, *, again: bool) -> None:
        """The job succeeded: drop it, or release it when more work is due (``again``)."""
        ...

    async def fail(self, lease: Lease, error: str, *, retry_at: datetime | None) -> Failure:
        """The job failed: release it, due again at ``retry_at``."""
        ...

    async def defer(self, lease: Lease, retry_at: datetime) -> None:
        """Release the job, due again at ``retry_at`` (the chat is backing off)."""
        ...


@runtime_checkable
class JobBook(Protocol):
    """The queue's rows as the service sees them: requests, recovery, states."""

    async def claim_chat(self, chat_id: str, tenant: str) -> Lease | None:
        """Lease this chat's job now (creating it); None while another worker holds it."""
        ...

    async def recover(self, tenants: Iterable[str]) -> int:
        """Queue every chat of ``tenants`` with unsummarized messages; how many."""
        ...

    async def pending(self) -> int:
        """How many chats have work due or running (retries waiting out a backoff excepted)."""
        ...

    async def status(self, chat_ids: Iterable[str]) -> dict[str, JobStatus]:
        """The jobs of these chats (a chat without one has no work queued)."""
        ...

    async def last_error(self, chat_id: str) -> str | None:
        """The chat's last recorded job error, if its job is failing."""
        ...


@runtime_checkable
class JobQueue(JobLeases, JobBook, Protocol):
    """One kind of job (``kind``), leased for ``lease`` seconds at a time: both seams."""

    kind: str
    lease: float


@runtime_checkable
class ChatLeases(Protocol):
    """Leases on chats to index: one replica at a time indexes a chat."""

    lease: float

    async def claim(self, limit: int) -> list[str]:
        """Lease up to ``limit`` lagging chats nobody holds, the longest waiting first."""
        ...

    async def renew(self, chat_ids: Sequence[str]) -> int:
        """Extend the leases; how many are still held."""
        ...

    async def release(self, chat_ids: Sequence[str]) -> None:
        """Give the chats back."""
        ...
