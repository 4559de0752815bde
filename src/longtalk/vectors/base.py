"""The recall seam: read relevant past turns, and store new ones."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from longtalk.core.messages import Message
from longtalk.errors import VectorStoreError


class ModelChangedError(VectorStoreError):
    """The store holds vectors of another embedding model: rebuild it, never mix."""


class StoreUnreadableError(VectorStoreError):
    """The store's files cannot be read back (a corrupt or unreadable entry): rebuild it.

    The recall index is derived data: storage holds every message, so the store is emptied
    and indexed again rather than leaving recall off.
    """


MEMORY_NAMESPACE = "__memory__"


@dataclass(frozen=True, slots=True)
class RecallScope:
    """Who may see a turn: every query is filtered by all of these that are set.

    ``incarnation`` is the chat's (see ``ChatRecord``): turns stored for a deleted chat never
    reach a chat created later under the same id. Empty for chats older than incarnations.
    """

    chat_id: str
    tenant: str = "default"
    user: str | None = None
    namespace: str = MEMORY_NAMESPACE
    incarnation: str = ""


@dataclass(frozen=True, slots=True)
class RecalledTurn:
    """A past message brought back for the current query.

    ``score`` orders recall (the learned ranker's probability, or the fused score);
    ``similarity`` is the turn's cosine similarity to the query when known.
    """

    message: Message
    score: float
    sequence: int = 0
    similarity: float | None = None


def above_floor(found: Sequence[RecalledTurn], floor: float) -> list[RecalledTurn]:
    """The recalled turns at least ``floor`` as relevant as the best one, and their neighbours.

    A turn equal to the floor is kept; so is a turn said right before or after one that
    reaches it (not a neighbour's neighbour).
    Relevance is relative within one recall: a turn far below the best is noise that would
    only fill leftover room. A turn beside a relevant one is not: it is the question that
    turn answers or the reply it got, shown with it as one exchange (no gap mark, no date
    line of its own), and it may carry more of what was asked. The fill still chooses among
    them by relevance per token.
    """
    best = max((turn.score for turn in found), default=0.0)
    if floor <= 0 or best <= 0:
        return list(found)
    relevant = {turn.sequence for turn in found if turn.score >= floor * best}
    beside = {sequence + step for sequence in relevant if sequence > 0 for step in (-1, 1)}
    return [
        turn
        for turn in found
        if turn.score >= floor * best or (turn.sequence > 0 and turn.sequence in beside)
    ]


@runtime_checkable
class VectorReader(Protocol):
    """Reads the past turns most relevant to a query."""

    async def get_relevant_history(
        self,
        query: str,
        scope: RecallScope,
        *,
        k: int = 5,
        similarity_threshold: float = 0.5,
        exclude_hashes: frozenset[str] = frozenset(),
    ) -> list[RecalledTurn]:
        """At most ``k`` turns scoring at least the threshold; [] on any failure."""
        ...


@runtime_checkable
class TurnStore(Protocol):
    """Stores turns for later recall; storing the same turn twice is a no-op."""

    async def store_turns(self, scope: RecallScope, messages: Sequence[tuple[int, Message]]) -> int:
        """Store (sequence, message) pairs; returns how many were new."""
        ...

    async def delete_chat(self, scope: RecallScope) -> None:
        """Remove every stored turn of the chat."""
        ...


@runtime_checkable
class BatchTurnDeleter(Protocol):
    """A turn store that deletes the turns of several chats at once (and compacts once)."""

    async def delete_chats(self, scopes: Sequence[RecallScope]) -> None:
        """Remove every stored turn of these chats."""
        ...


@runtime_checkable
class CompactingStore(Protocol):
    """A vector store whose files keep deleted points until compacted."""

    async def compact(self) -> None:
        """Rewrite the store's files without deleted points."""
        ...


@runtime_checkable
class BatchTurnStore(Protocol):
    """A turn store that embeds the turns of several chats in one call."""

    async def store_many(
        self, batches: Sequence[tuple[RecallScope, Sequence[tuple[int, Message]]]]
    ) -> int:
        """Store turns of several chats; returns how many were new."""
        ...


@runtime_checkable
class WriteCheck(Protocol):
    """A store that can tell, without writing, whether a write would succeed now."""

    async def check_writable(self) -> None:
        """Raise ``VectorStoreError`` when a write would fail (e.g. no disk space)."""
        ...


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """One ``get_relevant_history`` call: the query, the scope and the keywords as given."""

    query: str
    scope: RecallScope
    k: int = 5
    similarity_threshold: float = 0.5
    exclude_hashes: frozenset[str] = frozenset()


class RecallReader(ABC):
    """A :class:`VectorReader` that writes only how it answers a :class:`RecallQuery`.

    ``get_relevant_history``'s keywords and their defaults are declared here once, as the
    protocol has them, so the readers (the retriever, the null reader, the test doubles)
    cannot drift from the protocol or from each other.
    """

    async def get_relevant_history(
        self,
        query: str,
        scope: RecallScope,
        *,
        k: int = 5,
        similarity_threshold: float = 0.5,
        exclude_hashes: frozenset[str] = frozenset(),
    ) -> list[RecalledTurn]:
        """The turns :meth:`recall_turns` finds for this query."""
        return await self.recall_turns(
            RecallQuery(query, scope, k, similarity_threshold, exclude_hashes)
        )

    @abstractmethod
    async def recall_turns(self, asked: RecallQuery) -> list[RecalledTurn]:
        """At most ``asked.k`` turns scoring at least its threshold."""


class NullVectorReader(RecallReader):
    """No vector store: recall returns nothing and the engine behaves as running_summary.

    ``unavailable`` says why when it stands in for a vector store that failed to open
    (``/healthz`` then reports the vector store down and the service degraded).
    """

    def __init__(self, unavailable: str | None = None) -> None:
        self.unavailable = unavailable

    async def recall_turns(self, asked: RecallQuery) -> list[RecalledTurn]:
        """Always []."""
        return []

    async def store_turns(self, scope: RecallScope, messages: Sequence[tuple[int, Message]]) -> int:
        """Stores nothing."""
        return 0

    async def delete_chat(self, scope: RecallScope) -> None:
        """Nothing to delete."""


@dataclass(frozen=True, slots=True)
class SparseVector:
    """A sparse vector (lexical terms): parallel index and weight tuples."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class VectorPoint:
    """One stored turn: its id, dense vector, optional sparse vector and payload.

    The payload carries the scope fields (``namespace``, ``tenant``, ``user``, ``chat_id``,
    ``incarnation``)
    and the turn (``role``, ``name``, ``message_id``, ``sequence``, ``timestamp``,
    ``content``, ``content_hash``).
    """

    id: str
    vector: Sequence[float]
    payload: Mapping[str, Any]
    sparse: SparseVector | None = None


@dataclass(frozen=True, slots=True)
class ScoredPoint:
    """A search hit: the point's id, its score and its payload."""

    id: str
    score: float
    payload: Mapping[str, Any]


@runtime_checkable
class VectorSearch(Protocol):
    """Reads turn vectors. Every read is filtered by a ``RecallScope``."""

    async def search(
        self,
        scope: RecallScope,
        *,
        dense: Sequence[float] | None = None,
        sparse: SparseVector | None = None,
        limit: int = 10,
    ) -> list[ScoredPoint]:
        """The nearest points within the scope: by ``dense`` (cosine) or by ``sparse``."""
        ...

    async def fetch(self, scope: RecallScope, sequences: Sequence[int]) -> list[ScoredPoint]:
        """The points of the scope's chat with these sequences (for adjacent turns)."""
        ...


@runtime_checkable
class VectorWriter(Protocol):
    """Writes turn vectors: upserts by id, deletes a scope's chat."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points by id (same id twice is a no-op in effect)."""
        ...

    async def delete(self, scope: RecallScope) -> None:
        """Delete every point of the scope's chat."""
        ...


@runtime_checkable
class VectorStore(VectorSearch, VectorWriter, Protocol):
    """Where turn vectors live: search and writes, with a lifecycle.

    ``setup`` records the embedding model's identity beside the vectors and refuses to mix
    spaces: opening a store made with another model raises ``VectorStoreError``.
    """

    async def setup(self, *, dimension: int, model_id: str) -> None:
        """Create collections and payload indexes; check the stored model identity."""
        ...

    async def recreate(self, *, dimension: int, model_id: str) -> None:
        """Delete every stored vector and set up empty for this model (a model change)."""
        ...

    async def close(self) -> None:
        """Release resources."""
        ...
