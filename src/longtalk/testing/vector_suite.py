"""The conformance suite of vector stores (``VectorStore``): what the recall layer relies on.

Subclass :class:`VectorStoreConformance` and give it an ``open_store`` fixture: a function
that opens your store at one place, new for each test, and opens the same place again at
each call (not set up; the suite calls ``setup`` and ``close``)::

    class TestMyStore(VectorStoreConformance):
        @pytest.fixture
        def open_store(self, tmp_path):
            return lambda: MyStore(tmp_path / "vectors")

Texts are embedded with the bundled MiniLM (override the ``embedder`` fixture to use
another of dimension ``DIMENSION``); sparse vectors are plain term counts.
"""

from __future__ import annotations

import functools
import hashlib
import re
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from longtalk.errors import VectorStoreError
from longtalk.vectors.base import (
    ModelChangedError,
    RecallScope,
    SparseVector,
    VectorPoint,
    VectorStore,
)

__all__ = ["DIMENSION", "MODEL", "VectorStoreConformance", "sparse_terms", "turn_point"]

MODEL = "test-model@1"
DIMENSION = 384
CHAT = RecallScope(chat_id="chat-1", tenant="acme", user="u1")
TEXTS = [
    "I adopted a golden retriever puppy named Max last weekend.",
    "My sister is getting married in Lisbon next June.",
    "The quarterly budget review moved to Thursday afternoon.",
    "We went camping at Lake Tahoe and saw a black bear.",
    "I started learning to play the cello in January.",
]

Embed = Callable[[str], Any]
"""A text's vector (a numpy array, which the stores take as a sequence of floats)."""
MakePoint = Callable[..., VectorPoint]
OpenStore = Callable[[], VectorStore]


def sparse_terms(text: str) -> SparseVector:
    """A sparse vector of ``text``'s word counts (hashed word ids)."""
    counts = Counter(re.findall(r"\w+", text.lower()))
    pairs = sorted((zlib.crc32(w.encode()) % (2**31 - 1), float(c)) for w, c in counts.items())
    return SparseVector(tuple(i for i, _ in pairs), tuple(v for _, v in pairs))


def turn_point(
    scope: RecallScope, sequence: int, text: str, vector: Any, *, role: str = "user"
) -> VectorPoint:
    """A turn's point in ``scope``, with the payload the recall layer stores."""
    payload = {
        "namespace": scope.namespace,
        "tenant": scope.tenant,
        "user": scope.user,
        "chat_id": scope.chat_id,
        "incarnation": scope.incarnation,
        "role": role,
        "sequence": sequence,
        "timestamp": f"2026-01-01T00:00:{sequence:02d}+00:00",
        "content": text,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
    }
    point_id = f"{scope.tenant}:{scope.user}:{scope.chat_id}:{sequence}"
    if scope.incarnation:
        point_id = f"{point_id}:{scope.incarnation}"
    return VectorPoint(point_id, vector, payload, sparse_terms(text))


@functools.cache
def _minilm() -> Any:
    from longtalk.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


class VectorStoreConformance:
    """Search, fetch, scopes, identity and errors, for any ``VectorStore``."""

    @pytest.fixture
    def embedder(self) -> Any:
        """The embedder of the texts (default: the bundled MiniLM, loaded once)."""
        return _minilm()

    @pytest.fixture
    def embed(self, embedder: Any) -> Embed:
        """One text's vector (memoised)."""
        cache: dict[str, npt.NDArray[np.float32]] = {}

        def one(text: str) -> npt.NDArray[np.float32]:
            if text not in cache:
                cache[text] = embedder.embed([text])[0]
            return cache[text]

        return one

    @pytest.fixture
    def make_point(self, embed: Embed) -> MakePoint:
        """A turn's point in a scope, as the recall layer stores it."""

        def make(scope: RecallScope, sequence: int, text: str, role: str = "user") -> VectorPoint:
            return turn_point(scope, sequence, text, embed(text), role=role)

        return make

    @pytest.fixture
    async def store(self, open_store: OpenStore) -> AsyncIterator[VectorStore]:
        """The store, set up for ``MODEL``."""
        opened = open_store()
        await opened.setup(dimension=DIMENSION, model_id=MODEL)
        yield opened
        await opened.close()

    async def fill(
        self, store: VectorStore, make_point: MakePoint, scope: RecallScope = CHAT
    ) -> None:
        """Store every text of ``TEXTS`` in ``scope``, at sequences 0.."""
        await store.upsert([make_point(scope, i, text) for i, text in enumerate(TEXTS)])

    async def test_dense_search_finds_the_related_turn(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        await self.fill(store, make_point)
        hits = await store.search(CHAT, dense=embed("tell me about the dog we got"), limit=3)
        assert [h.payload["content"] for h in hits][0] == TEXTS[0]
        assert len(hits) == 3
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert hits[0].id == "acme:u1:chat-1:0"
        assert hits[0].payload["sequence"] == 0 and hits[0].payload["role"] == "user"
        assert "_point_id" not in hits[0].payload
        assert hits[0].score == pytest.approx(
            float(embed(TEXTS[0]) @ embed("tell me about the dog we got")), abs=1e-4
        )

    async def test_sparse_search_ranks_by_shared_rare_terms(
        self, store: VectorStore, make_point: MakePoint
    ) -> None:
        await self.fill(store, make_point)
        hits = await store.search(CHAT, sparse=sparse_terms("cello lessons"), limit=5)
        assert hits and hits[0].payload["content"] == TEXTS[4]
        assert all(h.score > 0 for h in hits)
        assert len(hits) == 1  # only one turn shares a term with the query

    async def test_reupsert_is_idempotent(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        await self.fill(store, make_point)
        await self.fill(store, make_point)
        hits = await store.search(CHAT, dense=embed("anything"), limit=50)
        expected = sorted(f"acme:u1:chat-1:{i}" for i in range(len(TEXTS)))
        assert sorted(h.id for h in hits) == expected

    async def test_upsert_replaces_by_id(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        await store.upsert([make_point(CHAT, 0, TEXTS[0])])
        await store.upsert([make_point(CHAT, 0, TEXTS[1])])
        hits = await store.search(CHAT, dense=embed(TEXTS[1]), limit=5)
        assert [h.payload["content"] for h in hits] == [TEXTS[1]]

    async def test_other_tenants_users_and_chats_are_never_returned(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        others = [
            RecallScope(chat_id="chat-1", tenant="globex", user="u1"),
            RecallScope(chat_id="chat-1", tenant="acme", user="u2"),
            RecallScope(chat_id="chat-2", tenant="acme", user="u1"),
            RecallScope(chat_id="chat-1", tenant="acme", user="u1", namespace="other"),
        ]
        for scope in others:
            await self.fill(store, make_point, scope)
        await store.upsert([make_point(CHAT, 0, TEXTS[0])])
        hits = await store.search(CHAT, dense=embed(TEXTS[1]), limit=50)
        assert [h.id for h in hits] == ["acme:u1:chat-1:0"]
        assert await store.search(CHAT, sparse=sparse_terms(TEXTS[1]), limit=50) == []
        assert [p.id for p in await store.fetch(CHAT, [0, 1, 2])] == ["acme:u1:chat-1:0"]
        any_user = RecallScope(chat_id="chat-1", tenant="acme")
        found = await store.search(any_user, dense=embed("x"), limit=50)
        assert {h.payload["user"] for h in found} == {"u1", "u2"}

    async def test_a_new_incarnation_never_sees_the_old_ones_turns(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        old, new = (replace(CHAT, incarnation=name) for name in ("old0", "new1"))
        secret = "The vault code of the old chat is seven seven four one."
        left = make_point(old, 1, secret)  # an indexing run that raced the chat's deletion
        await store.upsert([left, make_point(new, 1, "Hello there.")])
        dense = await store.search(new, dense=embed(secret), limit=10)
        assert [hit.payload["content"] for hit in dense] == ["Hello there."]
        assert await store.search(new, sparse=sparse_terms(secret), limit=10) == []
        assert [p.payload["content"] for p in await store.fetch(new, [1])] == ["Hello there."]
        legacy = await store.search(CHAT, dense=embed(secret), limit=10)
        assert len(legacy) == 2  # no incarnation: the chat's turns of any incarnation
        await store.delete(old)
        assert [p.payload["content"] for p in await store.fetch(CHAT, [1])] == ["Hello there."]

    async def test_fetch_returns_requested_sequences_in_order(
        self, store: VectorStore, make_point: MakePoint
    ) -> None:
        await self.fill(store, make_point)
        await self.fill(store, make_point, RecallScope(chat_id="chat-2", tenant="acme", user="u1"))
        fetched = await store.fetch(CHAT, [3, 1, 1, 99])
        assert [p.payload["sequence"] for p in fetched] == [1, 3]
        assert [p.payload["content"] for p in fetched] == [TEXTS[1], TEXTS[3]]
        assert all(p.payload["chat_id"] == "chat-1" for p in fetched)
        assert await store.fetch(CHAT, []) == []

    async def test_fetch_returns_every_piece_of_a_turn_across_pages(
        self, store: VectorStore, make_point: MakePoint
    ) -> None:
        base = make_point(CHAT, 5, TEXTS[2])
        pieces = [
            VectorPoint(f"{base.id}:{piece}", base.vector, {**base.payload, "piece": piece})
            for piece in range(300)  # more than one scroll page
        ]
        await store.upsert([*pieces, make_point(CHAT, 6, TEXTS[3])])
        fetched = await store.fetch(CHAT, [5, 6])
        assert len(fetched) == 301
        assert [p.payload.get("piece", 0) for p in fetched[:300]] == list(range(300))
        assert fetched[-1].payload["sequence"] == 6

    async def test_delete_removes_only_that_chat(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        other = RecallScope(chat_id="chat-2", tenant="acme", user="u1")
        await self.fill(store, make_point)
        await self.fill(store, make_point, other)
        await store.delete(CHAT)
        assert await store.search(CHAT, dense=embed(TEXTS[0]), limit=10) == []
        assert await store.fetch(CHAT, [0, 1]) == []
        assert len(await store.search(other, dense=embed(TEXTS[0]), limit=10)) == len(TEXTS)

    async def test_sparse_scores_weigh_rare_terms_by_idf(
        self, store: VectorStore, make_point: MakePoint
    ) -> None:
        common, rare = 11, 22
        points = []
        for seq, text in enumerate(TEXTS):
            base = make_point(CHAT, seq, text)
            terms = SparseVector((rare,), (1.0,)) if seq == 4 else SparseVector((common,), (2.0,))
            points.append(VectorPoint(base.id, base.vector, base.payload, terms))
        await store.upsert(points)
        query = SparseVector((common, rare), (1.0, 1.0))
        hits = await store.search(CHAT, sparse=query, limit=5)
        assert hits[0].payload["sequence"] == 4  # without IDF the common term (weight 2) wins
        assert len(hits) == 5

    async def test_another_model_is_refused(self, store: VectorStore) -> None:
        with pytest.raises(VectorStoreError) as caught:
            await store.setup(dimension=DIMENSION, model_id="other-model@2")
        assert MODEL in str(caught.value) and "other-model@2" in str(caught.value)
        await store.setup(dimension=DIMENSION, model_id=MODEL)  # the right model is still fine

    async def test_recreate_for_another_model_empties_the_store(
        self, store: VectorStore, make_point: MakePoint, embed: Embed
    ) -> None:
        await self.fill(store, make_point)
        with pytest.raises(ModelChangedError):
            await store.setup(dimension=DIMENSION, model_id="other-model@2")
        await store.recreate(dimension=DIMENSION, model_id="other-model@2")
        assert await store.search(CHAT, dense=embed(TEXTS[0]), limit=10) == []
        await store.setup(dimension=DIMENSION, model_id="other-model@2")  # the new identity
        with pytest.raises(ModelChangedError, match="other-model@2"):
            await store.setup(dimension=DIMENSION, model_id=MODEL)
        await self.fill(store, make_point)
        assert len(await store.search(CHAT, dense=embed(TEXTS[0]), limit=10)) == len(TEXTS)

    async def test_identity_survives_reopening(
        self, open_store: OpenStore, make_point: MakePoint, embed: Embed
    ) -> None:
        first = open_store()
        await first.setup(dimension=DIMENSION, model_id=MODEL)
        await first.upsert([make_point(CHAT, 7, TEXTS[3])])
        await first.close()
        second = open_store()
        with pytest.raises(VectorStoreError, match="other-model"):
            await second.setup(dimension=DIMENSION, model_id="other-model@2")
        await second.close()
        third = open_store()
        await third.setup(dimension=DIMENSION, model_id=MODEL)
        try:
            hits = await third.search(CHAT, dense=embed(TEXTS[3]), limit=5)
            assert [h.payload["sequence"] for h in hits] == [7]
        finally:
            await third.close()

    async def test_use_before_setup_is_an_error(self, open_store: OpenStore, embed: Embed) -> None:
        fresh = open_store()
        with pytest.raises(VectorStoreError, match="setup"):
            await fresh.search(CHAT, dense=embed("x"), limit=1)
        await fresh.close()

    async def test_driver_errors_are_translated(
        self, store: VectorStore, make_point: MakePoint
    ) -> None:
        await self.fill(store, make_point)
        payload = dict(make_point(CHAT, 9, "x").payload)
        with pytest.raises(VectorStoreError):
            await store.upsert([VectorPoint("bad", [0.5, 0.5], payload)])
        with pytest.raises(VectorStoreError):
            await store.search(CHAT, dense=[0.1, 0.2, 0.3], limit=5)  # wrong dimension

    async def test_search_needs_exactly_one_query(self, store: VectorStore, embed: Embed) -> None:
        with pytest.raises(ValueError):
            await store.search(CHAT, limit=5)
        with pytest.raises(ValueError):
            both = SparseVector((1,), (1.0,))
            await store.search(CHAT, dense=embed("x"), sparse=both, limit=5)
