"""Indexing leases on chat rows: one replica at a time indexes a chat (PostgreSQL).

What lags is already in each chat row (``indexed_sequence`` below ``message_count``), so the
append path writes nothing for indexing. A replica about to index claims a few lagging
chats nobody holds: one ``UPDATE`` stamps ``index_lease_owner`` / ``index_lease_until``
(migration 9) on rows chosen with ``FOR UPDATE SKIP LOCKED``, so two replicas never claim
the same chat and never wait for each other. It renews the leases while it embeds, then
releases them. A replica killed mid-run stops renewing; once its leases expire another
replica claims those chats and indexes what the watermarks say is missing. Times are the
database's ``now()``, so replicas' clocks never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.storage.postgres import queries
from longtalk.storage.postgres.chat_storage import PostgresStorage


class IndexLeases:
    """The indexing leases one replica (``owner``) takes on chat rows: ``ChatLeases``."""

    def __init__(self, storage: PostgresStorage, *, owner: str, lease: float) -> None:
        self.storage = storage
        self.owner = owner
        self.lease = lease

    async def claim(self, limit: int) -> list[str]:
        """Lease up to ``limit`` lagging chats nobody holds, the longest waiting first."""
        params = {"owner": self.owner, "lease": self.lease, "limit": limit}
        async with self.storage.job_transaction("claiming chats to index") as conn:
            rows = (await conn.execute(queries.INDEX_CLAIM, params)).all()
        return [row[0] for row in sorted(rows, key=lambda row: (row[1], row[0]))]

    async def renew(self, chat_ids: Sequence[str]) -> int:
        """Extend the leases; how many are still held (a lost one expired and was taken)."""
        params = {"ids": list(chat_ids), "owner": self.owner, "lease": self.lease}
        async with self.storage.job_transaction("renewing indexing leases") as conn:
            result = await conn.execute(queries.INDEX_RENEW, params)
        return int(result.rowcount)

    async def release(self, chat_ids: Sequence[str]) -> None:
        """Give the chats back (whatever still lags is claimed by the next run anywhere)."""
        params = {"ids": list(chat_ids), "owner": self.owner}
        async with self.storage.job_transaction("releasing indexing leases") as conn:
            await conn.execute(queries.INDEX_RELEASE, params)
