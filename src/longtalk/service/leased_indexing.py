"""Background indexing leased per chat across replicas on PostgreSQL.

Each run claims a batch of lagging chats nobody holds (``storage.postgres.index_leases``),
indexes just those, renewing the leases while the embedder works, and releases them. Two replicas
therefore never embed the same turns, and a replica killed mid-run leaves its chats to the
others once its leases expire (idle workers look at the backlog every few seconds).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError
from longtalk.jobs.background import stop_tasks
from longtalk.recall.outbox import BACKLOG_CHATS, IndexRun
from longtalk.storage.leases import ChatLeases

log = logging.getLogger(__name__)


class LeasedIndexPass:
    """An ``index_worker.IndexPass`` that indexes only the chats this replica leased."""

    def __init__(
        self,
        leases: ChatLeases,
        *,
        chats: int = BACKLOG_CHATS,
    ) -> None:
        self.leases = leases
        self.chats = chats

    async def index(self, engine: MemoryEngine) -> IndexRun:
        """Claim lagging chats, index them under renewed leases, release them."""
        try:
            claimed = await self.leases.claim(self.chats)
        except LongtalkError as exc:  # the database is away: the worker backs off
            return IndexRun(error=str(exc))
        if not claimed:
            return IndexRun()
        renewer = asyncio.create_task(self._renew(claimed), name="index-leases")
        try:
            return await engine.index_pending(chat_ids=claimed)
        finally:
            await stop_tasks([renewer])
            await self._release(claimed)

    async def _renew(self, chat_ids: Sequence[str]) -> None:
        while True:
            await asyncio.sleep(self.leases.lease / 3)
            try:
                held = await self.leases.renew(chat_ids)
            except LongtalkError as exc:
                log.warning(
                    "renewing the indexing leases of %d chats failed: %s", len(chat_ids), exc
                )
                continue
            if held < len(chat_ids):
                log.warning(
                    "%d indexing leases expired; another replica may index those chats too "
                    "(turns are stored once whoever embeds them)",
                    len(chat_ids) - held,
                )

    async def _release(self, chat_ids: Sequence[str]) -> None:
        try:
            await self.leases.release(chat_ids)
        except LongtalkError as exc:  # the leases expire instead
            log.warning("releasing the indexing leases of %d chats failed: %s", len(chat_ids), exc)
