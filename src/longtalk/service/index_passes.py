"""Which chats one run of the background indexer takes: the seam between one node and many.

A single node indexes the whole backlog (:class:`WholeBacklog`). Replicas on PostgreSQL
lease the chats they index (``leased_indexing.LeasedIndexPass``), so every turn is embedded once
across replicas.
"""

from __future__ import annotations

from typing import Protocol

from longtalk.engine import MemoryEngine
from longtalk.recall.outbox import IndexRun


class IndexPass(Protocol):
    """One indexing run of a replica."""

    async def index(self, engine: MemoryEngine) -> IndexRun:
        """Index some of the turns past the chats' watermarks; what it did, or its error."""
        ...


class WholeBacklog:
    """A single node: every run takes the storage's backlog, the longest waiting first."""

    async def index(self, engine: MemoryEngine) -> IndexRun:
        """Index the backlog (see ``RecallIndexer.index_pending``)."""
        return await engine.index_pending()
