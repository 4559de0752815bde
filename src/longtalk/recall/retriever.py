"""Hybrid semantic recall over a vector store: dense + BM25, fused, with neighbouring turns.

:class:`HybridRetriever` implements both ``VectorReader`` and ``TurnStore``. Storing embeds
each turn as ``Speaker: text`` and upserts it with its BM25 term weights under a point id
derived from the scope and the turn's sequence, so storing the same turn twice is a no-op.
Recall runs a dense and a lexical search (both filtered by scope), fuses the two rankings,
lets the turns next to strong hits ride along, and drops what is below the threshold, what the
caller already has (``exclude_hashes``) and duplicates. Any backend failure degrades to [].
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from longtalk.core.messages import Message, MessageType, Role
from longtalk.embed.base import Embedder
from longtalk.embed.priority import in_background
from longtalk.recall.cues import first_name
from longtalk.recall.features import (
    SESSION_POSITION,
    Candidate,
    fused_scores,
    likely_names,
    speakers_of,
    without_speakers,
)
from longtalk.recall.lexical import (
    document_vector,
    query_vector,
    split_sentences,
)
from longtalk.recall.ranking import RankingConfig, rank
from longtalk.vectors.base import (
    CompactingStore,
    RecalledTurn,
    RecallQuery,
    RecallReader,
    RecallScope,
    ScoredPoint,
    VectorPoint,
    VectorStore,
)

logger = logging.getLogger(__name__)

SPEAKER_CACHE = 4096
"""How many chats' speaker names the retriever remembers (to embed both queries at once)."""
POSITION_LOOKBACK = 16
"""How many sequences before a batch ``store_turns`` reads to continue session positions."""

Previous = tuple[str, int | None] | None
"""The stored turn before a batch: its day and session position (None: no such turn)."""

POINT_NAMESPACE = uuid.UUID("6f1c1f4e-58a4-4b8e-9d55-3c4b5e0d7a21")


def point_id(scope: RecallScope, sequence: int, piece: int = 0) -> str:
    """The deterministic id of a turn's vector: a UUIDv5 of the scope, sequence and piece.

    Piece 0 is the whole turn; pieces 1.. are its sentences (when it has several). The chat's
    incarnation is part of the key (when it has one), so a re-created chat id never shares
    a point with the deleted chat's turns.
    """
    parts: tuple[str, ...] = (scope.namespace, scope.tenant, scope.user or "", scope.chat_id)
    if scope.incarnation:
        parts = (*parts, scope.incarnation)
    parts = (*parts, str(sequence))
    if piece:
        parts = (*parts, str(piece))
    key = "\x1f".join(parts)
    return str(uuid.uuid5(POINT_NAMESPACE, key))


def embedding_text(message: Message) -> str:
    """What is embedded and indexed for a turn: its speaker and its text."""
    return f"{message.speaker()}: {message.content}"


def turn_payload(scope: RecallScope, sequence: int, message: Message) -> dict[str, Any]:
    """The payload stored with a turn: scope fields plus the turn itself (with its metadata)."""
    return {
        "namespace": scope.namespace,
        "tenant": scope.tenant,
        "user": scope.user,
        "chat_id": scope.chat_id,
        "incarnation": scope.incarnation,
        "role": message.role.value,
        "name": message.name,
        "type": message.type.value,
        "message_id": message.id,
        "sequence": sequence,
        "timestamp": message.timestamp.isoformat() if message.timestamp else None,
        "content": message.content,
        "content_hash": message.content_hash,
        "metadata": dict(message.metadata),
    }


def message_from_payload(payload: Mapping[str, Any]) -> Message:
    """Rebuild the stored message from its payload."""
    stamp = payload.get("timestamp")
    return Message(
        role=Role(payload.get("role", "user")),
        content=str(payload.get("content", "")),
        name=payload.get("name"),
        type=MessageType(payload.get("type", "text")),
        timestamp=datetime.fromisoformat(stamp) if stamp else None,
        id=payload.get("message_id"),
        metadata=dict(payload.get("metadata") or {}),
    )


@dataclass(frozen=True, slots=True)
class _Piece:
    """One text to embed for a turn: the whole turn (piece 0) or one of its sentences."""

    scope: RecallScope
    sequence: int
    message: Message
    piece: int
    text: str
    position: int | None


def _embed_distinct(embedder: Embedder, texts: list[str]) -> list[np.ndarray]:
    """One vector per text, each distinct text embedded once (turns and sentences repeat)."""
    distinct = list(dict.fromkeys(texts))
    vectors = dict(zip(distinct, embedder.embed(distinct), strict=True))
    return [vectors[text] for text in texts]


class HybridRetriever(RecallReader):
    """Semantic recall: a ``VectorReader`` and ``TurnStore`` over a ``VectorStore``.

    Args:
        store: where vectors live (Qdrant edge by default).
        embedder: turns text into vectors (the bundled MiniLM by default).
        ranking: fusion, neighbour and cue settings (defaults chosen by the LoCoMo bench).
    """

    def __init__(
        self, store: VectorStore, embedder: Embedder, *, ranking: RankingConfig | None = None
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.ranking = ranking or RankingConfig()
        self._ready = False
        self._speakers: OrderedDict[RecallScope, frozenset[str]] = OrderedDict()

    async def setup(self) -> None:
        """Prepare the store for this embedder (checks the stored model identity)."""
        if not self._ready:
            await self.store.setup(
                dimension=self.embedder.dimension, model_id=self.embedder.model_id
            )
            self._ready = True

    async def close(self) -> None:
        """Close the store."""
        await self.store.close()

    async def store_turns(self, scope: RecallScope, messages: Sequence[tuple[int, Message]]) -> int:
        """Embed and store (sequence, message) pairs; returns how many were new.

        Tool chatter and empty messages are not stored. Raises ``LongtalkError`` subclasses
        from the embedder or the store (the engine decides how to degrade).
        """
        return await self.store_many([(scope, messages)])

    async def store_many(
        self, batches: Sequence[tuple[RecallScope, Sequence[tuple[int, Message]]]]
    ) -> int:
        """Store turns of several chats with ONE embedder call; returns how many were new."""
        await self.setup()
        prepared = [await self._new_pieces(scope, messages) for scope, messages in batches]
        pieces = [piece for batch in prepared for piece in batch]
        if not pieces:
            return 0
        vectors = await in_background(_embed_distinct, self.embedder, [p.text for p in pieces])
        points = [
            VectorPoint(
                id=point_id(p.scope, p.sequence, p.piece),
                vector=vector.tolist(),
                payload={
                    **turn_payload(p.scope, p.sequence, p.message),
                    "piece": p.piece,
                    SESSION_POSITION: p.position,
                },
                sparse=document_vector(p.text, self.ranking.bm25) if p.piece == 0 else None,
            )
            for p, vector in zip(pieces, vectors, strict=True)
        ]
        await self.store.upsert(points)
        return sum(1 for p in pieces if p.piece == 0)

    async def _new_pieces(
        self, scope: RecallScope, messages: Sequence[tuple[int, Message]]
    ) -> list[_Piece]:
        """What to embed for the turns of one chat that the store does not hold yet."""
        turns = [(seq, m) for seq, m in messages if m.content.strip() and not m.is_tool]
        if not turns:
            return []
        turns.sort(key=lambda turn: turn[0])
        self._remember(scope, {name for _, m in turns if (name := first_name(m.name))})
        first = turns[0][0]
        before = range(max(0, first - POSITION_LOOKBACK), first)  # read in the same fetch
        stored = await self.store.fetch(scope, [*before, *(seq for seq, _ in turns)])
        known = {(_sequence(p), p.payload.get("content_hash")) for p in stored}
        new = [(seq, m) for seq, m in turns if (seq, m.content_hash) not in known]
        if not new:
            return []
        positions = session_positions(turns, _last_before(stored, first))
        return [
            _Piece(scope, seq, message, piece, text, positions[seq])
            for seq, message in new
            for piece, text in enumerate(self._pieces(message))
        ]

    def _pieces(self, message: Message) -> list[str]:
        """What is embedded for a turn: the whole turn, then each sentence if it has several."""
        whole = embedding_text(message)
        if not self.ranking.sentence_vectors:
            return [whole]
        sentences = split_sentences(message.content)
        if len(sentences) <= 1:
            return [whole]
        return [whole, *(f"{message.speaker()}: {sentence}" for sentence in sentences)]

    async def delete_chat(self, scope: RecallScope) -> None:
        """Remove every stored turn of the chat (compacting the store's files after)."""
        await self.delete_chats([scope])

    async def delete_chats(self, scopes: Sequence[RecallScope]) -> None:
        """Remove every stored turn of these chats, then compact the store once.

        A store that keeps deleted points in its files until compacted
        (:class:`CompactingStore`) is compacted, so deleted text does not stay readable.
        """
        await self.setup()
        for scope in scopes:
            self._speakers.pop(scope, None)
            await self.store.delete(scope)
        if scopes and isinstance(self.store, CompactingStore):
            await self.store.compact()

    async def recall_turns(self, asked: RecallQuery) -> list[RecalledTurn]:
        """At most ``k`` turns relevant to the query, best first; [] on any failure.

        A turn is kept when its relevance (see :mod:`longtalk.recall.ranking`) is at least
        ``similarity_threshold``; turns whose content hash is in ``exclude_hashes`` (the
        verbatim window) and repeated contents are dropped.
        """
        if not asked.query.strip() or asked.k <= 0:
            return []
        try:
            return await self._recall(asked)
        except Exception as exc:  # noqa: BLE001 - a custom store's own error degrades too
            logger.warning("recall failed, continuing without recalled turns: %r", exc)
            return []

    async def _recall(self, asked: RecallQuery) -> list[RecalledTurn]:
        config = self.ranking
        candidates = await self.gather(asked.query, asked.scope, k=asked.k)
        ranked = rank(candidates, config, query=asked.query)
        learned = config.fusion == "learned"
        threshold, exclude = asked.similarity_threshold, asked.exclude_hashes
        return _select(ranked, candidates, asked.k, threshold, exclude, learned)

    async def gather(self, query: str, scope: RecallScope, *, k: int = 0) -> dict[int, Candidate]:
        """Every turn the searches find for ``query``, plus the neighbours of the best hits.

        Raises the store's or embedder's errors (``get_relevant_history`` degrades them).
        """
        await self.setup()
        config = self.ranking
        learned = config.fusion == "learned"
        # The speaker-free query is embedded with the query in one call: the chat's speakers
        # are remembered per scope, or guessed from capitalised words; a wrong guess costs a
        # second call after the first search has shown who the speakers are.
        known = self._speakers.get(scope) or likely_names(query)
        guess = without_speakers(query, known) if learned else query
        texts = [query] if guess == query or not guess.strip() else [query, guess]
        # The embedder works in its thread (as asyncio.to_thread would run it, context
        # included) while the lexical search runs here.
        embedding = asyncio.get_running_loop().run_in_executor(
            None, contextvars.copy_context().run, self.embedder.embed, texts
        )
        limit = max(config.candidates, k)
        sparse_query = query_vector(query)  # the store applies IDF
        lexical = (
            await self.store.search(scope, sparse=sparse_query, limit=limit)
            if sparse_query.indices
            else []
        )
        vectors = await embedding
        dense_limit = limit * 3 if config.sentence_vectors else limit
        dense = await self.store.search(scope, dense=vectors[0].tolist(), limit=dense_limit)
        candidates = _candidates(dense, lexical)
        if learned:
            speakers = self._remember(scope, speakers_of(candidates.values()))
            stripped = without_speakers(query, speakers)
            vector = vectors[1] if stripped == guess and len(texts) == 2 else None
            await self._speaker_free(query, stripped, vector, scope, candidates, limit)
            hits = [seq for seq, _ in _by_fused(candidates)]
        else:
            hits = [seq for seq, _ in rank(candidates, config, query=query)]
        candidates.update(await self._neighbours(scope, hits, candidates, config))
        return candidates

    def _remember(self, scope: RecallScope, found: set[str]) -> frozenset[str]:
        """The chat's speakers: those seen before plus ``found`` (a bounded LRU by scope)."""
        speakers = self._speakers.pop(scope, frozenset()) | found
        self._speakers[scope] = speakers
        while len(self._speakers) > SPEAKER_CACHE:
            self._speakers.popitem(last=False)
        return speakers

    async def _speaker_free(
        self,
        query: str,
        stripped: str,
        vector: npt.NDArray[np.float32] | None,
        scope: RecallScope,
        candidates: dict[int, Candidate],
        limit: int,
    ) -> None:
        """Score the candidates against the query without the chat's speaker names too.

        Turns the dense search of the stripped query finds that are not candidates yet join.
        When the query names no speaker the scores are the query's own (no extra search);
        ``vector`` is the stripped query's embedding when it is already known.
        """
        if stripped == query or not stripped.strip():
            for candidate in candidates.values():
                candidate.dense2 = candidate.dense
            return
        if vector is None:
            vector = (await asyncio.to_thread(self.embedder.embed, [stripped]))[0]
        for point in await self.store.search(scope, dense=vector.tolist(), limit=limit):
            candidate = candidates.setdefault(_sequence(point), _candidate(point))
            candidate.dense2 = float(point.score)

    async def _neighbours(
        self,
        scope: RecallScope,
        hits: list[int],
        candidates: dict[int, Candidate],
        config: RankingConfig,
    ) -> dict[int, Candidate]:
        """The turns next to the ``neighbour_hits`` first of ``hits`` not yet candidates."""
        if config.neighbour_radius <= 0 or config.neighbour_hits <= 0:
            return {}
        wanted: set[int] = set()
        for seq in hits[: config.neighbour_hits]:
            for offset in range(1, config.neighbour_radius + 1):
                wanted.update((seq - offset, seq + offset))
        missing = sorted(s for s in wanted - candidates.keys() if s >= 0)
        if not missing:
            return {}
        points = await self.store.fetch(scope, missing)
        return {c.sequence: c for c in (_candidate(p) for p in points)}


def session_positions(
    turns: Sequence[tuple[int, Message]], previous: Previous
) -> dict[int, int | None]:
    """Each turn's position in its session (its day): 0 for the day's first stored turn.

    ``turns`` are in sequence order; ``previous`` is the stored turn before them. Undated
    turns, and turns after a same-day turn whose position is unknown, get None.
    """
    positions: dict[int, int | None] = {}
    for seq, message in turns:
        day = message.timestamp.date().isoformat() if message.timestamp else ""
        position: int | None = None
        if day:
            if previous is None or previous[0] != day:
                position = 0
            elif previous[1] is not None:
                position = previous[1] + 1
        positions[seq] = position
        previous = (day, position)
    return positions


def _last_before(points: Sequence[ScoredPoint], sequence: int) -> Previous:
    """The day and session position of the last whole-turn point before ``sequence``."""
    earlier = [
        _candidate(p) for p in points if _sequence(p) < sequence and not p.payload.get("piece")
    ]
    if not earlier:
        return None
    last = max(earlier, key=lambda candidate: candidate.sequence)
    return last.day, last.position


def _by_fused(candidates: Mapping[int, Candidate]) -> list[tuple[int, float]]:
    """Candidates by the better of the query's and the speaker-free query's fused score."""
    ordered = list(candidates.values())
    scores = np.maximum(fused_scores(ordered), fused_scores(ordered, speaker_free=True))
    pairs = [(c.sequence, float(score)) for c, score in zip(ordered, scores, strict=True)]
    return sorted(pairs, key=lambda item: (-item[1], item[0]))


def _sequence(point: ScoredPoint) -> int:
    return int(point.payload.get("sequence", 0))


def _candidate(point: ScoredPoint) -> Candidate:
    return Candidate(sequence=_sequence(point), payload=point.payload)


def _candidates(dense: list[ScoredPoint], lexical: list[ScoredPoint]) -> dict[int, Candidate]:
    found: dict[int, Candidate] = {}
    for point in dense:  # best first: a turn's best piece counts
        candidate = found.setdefault(int(point.payload.get("sequence", 0)), _candidate(point))
        if candidate.dense is None:
            candidate.dense = float(point.score)
            candidate.dense_rank = len(found) - 1
        if not point.payload.get("piece"):
            candidate.dense_whole = float(point.score)
    for rank_, point in enumerate(lexical):
        candidate = found.setdefault(int(point.payload.get("sequence", 0)), _candidate(point))
        candidate.lexical = float(point.score)
        candidate.lexical_rank = rank_
    return found


def _select(
    ranked: list[tuple[int, float]],
    candidates: Mapping[int, Candidate],
    k: int,
    threshold: float,
    exclude: frozenset[str],
    by_similarity: bool = False,
) -> list[RecalledTurn]:
    """The best ``k`` new turns at or above the threshold.

    ``by_similarity``: the threshold applies to the turn's cosine similarity (the better of
    the query's and the speaker-free query's; a turn no dense search returned counts as the
    lowest seen) instead of its score - the learned score is a relative relevance, not a similarity.
    """
    chosen: list[RecalledTurn] = []
    seen = set(exclude)
    floor = min((c.dense for c in candidates.values() if c.dense is not None), default=0.0)
    for seq, score in ranked:
        candidate = candidates[seq]
        similarity = _similarity(candidate, floor)
        if by_similarity:
            if similarity < threshold:
                continue
        elif score < threshold:
            break
        payload = candidate.payload
        digest = str(payload.get("content_hash", ""))
        if digest in seen:
            continue
        seen.add(digest)
        turn = RecalledTurn(message_from_payload(payload), float(score), seq, similarity)
        chosen.append(turn)
        if len(chosen) >= k:
            break
    return chosen


def _similarity(candidate: Candidate, floor: float) -> float:
    scores = [s for s in (candidate.dense, candidate.dense2) if s is not None]
    return max(scores, default=floor)


__all__ = [
    "HybridRetriever",
    "embedding_text",
    "message_from_payload",
    "point_id",
    "session_positions",
    "turn_payload",
]
