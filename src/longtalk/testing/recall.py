"""Recall doubles: a recording backend (alone or around a real one) and a broken one.

Both implement what the engine's recall needs (``VectorReader`` and ``TurnStore``, with
the batch forms), so they plug in as ``MemoryEngine(recall=...)`` or ``engine.recall``.
``RecordingRecall`` records every query, store and deletion; alone it recalls one fixed
turn, around a real backend it passes every call on; its ``gate`` holds stores (to
interleave another operation with one). ``BrokenRecall`` raises on every call, as a
custom backend whose service is down would. Neither is collected by pytest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from longtalk.core.messages import Message, user
from longtalk.vectors.base import RecalledTurn, RecallQuery, RecallReader, RecallScope

__all__ = ["BrokenRecall", "RecordingRecall"]

Turns = Sequence[tuple[int, Message]]


class RecordingRecall(RecallReader):
    """Records what the engine asks of recall; see the module docstring.

    ``inner``: a real recall backend every call goes on to (None: recall ``said``, a user
    message, with score 0.9 at sequence 1, and store nothing). ``fail``: raised by every
    store (a store that is down). ``stored`` holds (scope, turns) per store, ``deleted``
    the scopes deleted, ``queries`` (query, excluded hashes) per recall.
    """

    __test__ = False

    def __init__(
        self,
        inner: Any = None,
        *,
        said: Message | None = None,
        fail: BaseException | None = None,
    ) -> None:
        self.inner = inner
        self.said = said or user("an old fact about the boat")
        self.fail = fail
        self.stored: list[tuple[RecallScope, int]] = []
        self.deleted: list[RecallScope] = []
        self.queries: list[tuple[str, frozenset[str]]] = []
        self.entered = asyncio.Event()
        """Set when a store begins (before the gate)."""
        self.gate = asyncio.Event()
        """Stores wait for it; set (open) until a test clears it."""
        self.gate.set()

    async def recall_turns(self, asked: RecallQuery) -> list[RecalledTurn]:
        """Record the query; recall through ``inner``, or the one fixed turn."""
        self.queries.append((asked.query, asked.exclude_hashes))
        if self.inner is None:
            return [RecalledTurn(self.said, 0.9, 1)]
        turns: list[RecalledTurn] = await self.inner.get_relevant_history(
            asked.query, asked.scope, k=asked.k, similarity_threshold=asked.similarity_threshold
        )
        return turns

    async def store_many(self, batches: Sequence[tuple[RecallScope, Turns]]) -> int:
        """Wait at the gate, then store (through ``inner``) and record each batch."""
        self.entered.set()
        await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        stored = len([turn for _, turns in batches for turn in turns])
        if self.inner is not None:
            stored = int(await self.inner.store_many(batches))
        self.stored.extend((scope, len(turns)) for scope, turns in batches)
        return stored

    async def store_turns(self, scope: RecallScope, messages: Turns) -> int:
        """:meth:`store_many` for one chat."""
        return await self.store_many([(scope, messages)])

    async def delete_chat(self, scope: RecallScope) -> None:
        """Record the deletion (and delete through ``inner``)."""
        await self.delete_chats([scope])

    async def delete_chats(self, scopes: Sequence[RecallScope]) -> None:
        """Record the deletions (and delete through ``inner``)."""
        self.deleted.extend(scopes)
        if self.inner is not None:
            await self.inner.delete_chats(scopes)


class BrokenRecall(RecallReader):
    """A custom recall backend whose every call raises (its service is down).

    Recalls raise ``recall_error``, stores and deletions ``error``; ``store_calls``
    counts the stores tried.
    """

    __test__ = False

    def __init__(
        self,
        error: BaseException | None = None,
        *,
        recall_error: BaseException | None = None,
    ) -> None:
        self.error = error or RuntimeError("the vector store is down")
        self.recall_error = recall_error or ConnectionResetError("the vector store reset")
        self.store_calls = 0

    async def recall_turns(self, asked: RecallQuery) -> list[RecalledTurn]:
        """Raise ``recall_error``."""
        raise self.recall_error

    async def store_turns(self, scope: RecallScope, messages: Turns) -> int:
        """Count the try, raise ``error``."""
        self.store_calls += 1
        raise self.error

    async def delete_chat(self, scope: RecallScope) -> None:
        """Raise ``error``."""
        raise self.error
