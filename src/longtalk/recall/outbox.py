"""The recall index's outbox: turns are indexed from each chat's durable watermark.

Storage keeps, per chat, the last sequence the recall index holds (``indexed_sequence``).
An indexing run reads the turns past the watermarks of the chats that lag (the longest
waiting first), embeds the turns of several chats in ONE embedder call, upserts them, and
only then moves the watermarks. A crash or a failing vector store therefore never loses a
turn: the next run indexes it; and since points have deterministic ids and known turns are
skipped, a retried run never duplicates one.

A run embeds at background priority while the indexer keeps up; when more turns wait than
one run embeds, it catches up at the process's priority, so a load that never lets up
cannot grow the backlog without bound (appends then share the CPU with it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from longtalk.embed.priority import catching_up
from longtalk.errors import BackendError, LongtalkError, VectorStoreError
from longtalk.storage.base import ChatRecord, ChatStorage, StoredMessage
from longtalk.vectors.base import (
    BatchTurnStore,
    ModelChangedError,
    RecallScope,
    StoreUnreadableError,
    TurnStore,
    VectorStore,
)

log = logging.getLogger(__name__)

INDEX_BATCH_TURNS = 512
"""Turns one indexing run embeds at most (across chats, in one embedder call)."""
BACKLOG_CHATS = 64
"""Chats one run looks at."""


@dataclass(frozen=True, slots=True)
class IndexRun:
    """What an indexing run did: turns and chats indexed, or the error that stopped it."""

    turns: int = 0
    chats: int = 0
    error: str | None = None

    def __add__(self, other: IndexRun) -> IndexRun:
        return IndexRun(self.turns + other.turns, self.chats + other.chats, other.error)


Batch = tuple[ChatRecord, list[StoredMessage]]


class RecallIndexer:
    """Brings the recall index up to each chat's stored messages, through the watermark."""

    def __init__(
        self,
        storage: ChatStorage,
        store: TurnStore,
        scope: Callable[[ChatRecord], RecallScope],
    ) -> None:
        self.storage = storage
        self.store = store
        self.scope = scope

    async def index_pending(
        self, *, chat_ids: Sequence[str] | None = None, max_turns: int = INDEX_BATCH_TURNS
    ) -> IndexRun:
        """Index the turns past each chat's watermark, in one batch across chats.

        ``chat_ids`` limits the run to those chats (default: the storage's backlog). A
        failing embedder or vector store leaves the watermarks where they were (the next
        run retries) and is reported in ``IndexRun.error``.
        """
        batches: list[Batch] = []
        try:
            batches, behind = await self._batches(chat_ids, max_turns)
            if batches:
                with catching_up(behind):
                    await self._store(batches)
            if batches:
                marks = {chat.id: stored[-1].sequence for chat, stored in batches}
                incarnations = {chat.id: chat.incarnation for chat, _ in batches}
                gone = await self.storage.mark_indexed_many(marks, incarnations=incarnations)
                for chat, _ in batches:
                    if chat.id in gone:
                        log.info(
                            "chat %s was deleted while it was indexed: deleting its turns", chat.id
                        )
                        await self.store.delete_chat(self.scope(chat))
        except BackendError as exc:
            log.warning("indexing %d chats for recall failed: %s", len(batches), exc)
            return IndexRun(error=str(exc), chats=len(batches))
        return IndexRun(turns=sum(len(stored) for _, stored in batches), chats=len(batches))

    async def reindex(self, chat_id: str | None = None) -> IndexRun:
        """Rebuild the recall index of one chat (default: every chat) from storage.

        The chats' vectors are deleted and their watermarks reset, then every turn is
        indexed again, batch by batch; a failure stops the rebuild (run it again).
        """
        chats = await self.storage.reset_index(chat_id)
        for chat in chats:
            await self.store.delete_chat(self.scope(chat))
        ids = [chat.id for chat in chats]
        total = IndexRun()
        for start in range(0, len(ids), BACKLOG_CHATS):
            total = total + await self.catch_up(ids[start : start + BACKLOG_CHATS])
            if total.error:
                break
        return replace(total, chats=len(chats))

    async def catch_up(self, chat_ids: Sequence[str]) -> IndexRun:
        """Index these chats run after run until nothing lags (or a run fails)."""
        total = IndexRun()
        while (run := await self.index_pending(chat_ids=chat_ids)).turns:
            total = total + run
        return total + run

    async def _batches(
        self, chat_ids: Sequence[str] | None, max_turns: int
    ) -> tuple[list[Batch], bool]:
        """The run's turns, and whether more wait than it embeds (the indexer is behind)."""
        if chat_ids is None:
            chats = await self.storage.index_backlog(limit=BACKLOG_CHATS)
        elif chat_ids:
            chats = await self.storage.index_backlog(limit=len(chat_ids), chat_ids=chat_ids)
        else:
            chats = []
        batches: list[Batch] = []
        room = max_turns
        for chat in chats:
            if room <= 0:
                break
            stored = await self.storage.list_messages(
                chat.id, after_sequence=chat.indexed_sequence, limit=room
            )
            if stored:
                batches.append((chat, stored))
                room -= len(stored)
        return batches, sum(chat.index_lag for chat in chats) > max_turns

    async def _store(self, batches: Sequence[Batch]) -> None:
        """Store the batches; a custom store's own exception becomes a ``VectorStoreError``."""
        try:
            await self._store_turns(batches)
        except LongtalkError:
            raise
        except Exception as exc:  # noqa: BLE001 - any foreign error is a store failure here
            raise VectorStoreError(
                f"storing turns for recall failed: {type(exc).__name__}: {exc}"
            ) from exc

    async def _store_turns(self, batches: Sequence[Batch]) -> None:
        pairs = [
            (self.scope(chat), [(item.sequence, item.message) for item in stored])
            for chat, stored in batches
        ]
        if isinstance(self.store, BatchTurnStore):
            await self.store.store_many(pairs)
            return
        for scope, turns in pairs:
            await self.store.store_turns(scope, turns)


async def open_for_model(
    storage: ChatStorage, store: VectorStore, *, dimension: int, model_id: str
) -> bool:
    """Open ``store`` for this embedding model; True when it had to be rebuilt.

    A store whose vectors another model made is never mixed with new ones, and a store that
    cannot read its own files back is not left closed (recall off for every chat): either
    way every chat's watermark goes back to 0 first, then the store is emptied for this
    model, and the indexer embeds every stored turn again (recall lags meanwhile). A crash
    between the two steps leaves the old identity (or the unreadable files), so the next
    start does both again.
    """
    try:
        await store.setup(dimension=dimension, model_id=model_id)
        return False
    except ModelChangedError as exc:
        log.warning("the embedding model changed, the recall index is rebuilt: %s", exc)
    except StoreUnreadableError as exc:
        log.warning(
            "the recall index cannot be read back, it is rebuilt from storage "
            "(recall catches up as turns are indexed again): %s",
            exc,
        )
    await storage.reset_index()
    await store.recreate(dimension=dimension, model_id=model_id)
    return True
