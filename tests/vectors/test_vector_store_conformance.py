"""One suite, every vector store: the behaviour the recall layer relies on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from vector_helpers import MODEL, STORES, open_store, sparse_terms

from longtalk.errors import VectorStoreError
from longtalk.vectors.base import (
    ModelChangedError,
    RecallScope,
    SparseVector,
    VectorPoint,
    VectorStore,
)

CHAT = RecallScope(chat_id="chat-1", tenant="acme", user="u1")
TEXTS = [
    "I adopted a golden retriever puppy named Max last weekend.",
    "My sister is getting married in Lisbon next June.",
    "The quarterly budget review moved to Thursday afternoon.",
    "We went camping at Lake Tahoe and saw a black bear.",
    "I started learning to play the cello in January.",
]

Embed = Callable[[str], np.ndarray]
MakePoint = Callable[..., VectorPoint]


async def fill(store: VectorStore, make_point: MakePoint, scope: RecallScope = CHAT) -> None:
    await store.upsert([make_point(scope, i, text) for i, text in enumerate(TEXTS)])


async def test_dense_search_finds_the_related_turn(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    await fill(store, make_point)
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
    store: VectorStore, make_point: MakePoint
) -> None:
    await fill(store, make_point)
    hits = await store.search(CHAT, sparse=sparse_terms("cello lessons"), limit=5)
    assert hits and hits[0].payload["content"] == TEXTS[4]
    assert all(h.score > 0 for h in hits)
    assert len(hits) == 1  # only one turn shares a term with the query


async def test_reupsert_is_idempotent(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    await fill(store, make_point)
    await fill(store, make_point)
    hits = await store.search(CHAT, dense=embed("anything"), limit=50)
    assert sorted(h.id for h in hits) == sorted(f"acme:u1:chat-1:{i}" for i in range(len(TEXTS)))


async def test_upsert_replaces_by_id(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    await store.upsert([make_point(CHAT, 0, TEXTS[0])])
    await store.upsert([make_point(CHAT, 0, TEXTS[1])])
    hits = await store.search(CHAT, dense=embed(TEXTS[1]), limit=5)
    assert [h.payload["content"] for h in hits] == [TEXTS[1]]


async def test_other_tenants_users_and_chats_are_never_returned(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    others = [
        RecallScope(chat_id="chat-1", tenant="globex", user="u1"),
        RecallScope(chat_id="chat-1", tenant="acme", user="u2"),
        RecallScope(chat_id="chat-2", tenant="acme", user="u1"),
        RecallScope(chat_id="chat-1", tenant="acme", user="u1", namespace="other"),
    ]
    for scope in others:
        await fill(store, make_point, scope)
    await store.upsert([make_point(CHAT, 0, TEXTS[0])])
    hits = await store.search(CHAT, dense=embed(TEXTS[1]), limit=50)
    assert [h.id for h in hits] == ["acme:u1:chat-1:0"]
    sparse = await store.search(CHAT, sparse=sparse_terms(TEXTS[1]), limit=50)
    assert sparse == []
    assert [p.id for p in await store.fetch(CHAT, [0, 1, 2])] == ["acme:u1:chat-1:0"]
    any_user = RecallScope(chat_id="chat-1", tenant="acme")
    seen = {h.payload["user"] for h in await store.search(any_user, dense=embed("x"), limit=50)}
    assert seen == {"u1", "u2"}


async def test_fetch_returns_requested_sequences_in_order(
    store: VectorStore, make_point: MakePoint
) -> None:
    await fill(store, make_point)
    await fill(store, make_point, RecallScope(chat_id="chat-2", tenant="acme", user="u1"))
    fetched = await store.fetch(CHAT, [3, 1, 1, 99])
    assert [p.payload["sequence"] for p in fetched] == [1, 3]
    assert [p.payload["content"] for p in fetched] == [TEXTS[1], TEXTS[3]]
    assert all(p.payload["chat_id"] == "chat-1" for p in fetched)
    assert await store.fetch(CHAT, []) == []


async def test_delete_removes_only_that_chat(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    other = RecallScope(chat_id="chat-2", tenant="acme", user="u1")
    await fill(store, make_point)
    await fill(store, make_point, other)
    await store.delete(CHAT)
    assert await store.search(CHAT, dense=embed(TEXTS[0]), limit=10) == []
    assert await store.fetch(CHAT, [0, 1]) == []
    assert len(await store.search(other, dense=embed(TEXTS[0]), limit=10)) == len(TEXTS)


async def test_another_model_is_refused(store: VectorStore) -> None:
    with pytest.raises(VectorStoreError) as caught:
        await store.setup(dimension=384, model_id="other-model@2")
    assert MODEL in str(caught.value) and "other-model@2" in str(caught.value)
    await store.setup(dimension=384, model_id=MODEL)  # the right model is still fine


@pytest.mark.parametrize("kind", STORES)
async def test_identity_survives_reopening(
    kind: str, store_path: Path, request: pytest.FixtureRequest, make_point: MakePoint, embed: Embed
) -> None:
    first = open_store(kind, store_path, request)
    await first.setup(dimension=384, model_id=MODEL)
    await first.upsert([make_point(CHAT, 7, TEXTS[3])])
    await first.close()
    second = open_store(kind, store_path, request)
    with pytest.raises(VectorStoreError, match="other-model"):
        await second.setup(dimension=384, model_id="other-model@2")
    await second.close()
    third = open_store(kind, store_path, request)
    await third.setup(dimension=384, model_id=MODEL)
    try:
        hits = await third.search(CHAT, dense=embed(TEXTS[3]), limit=5)
        assert [h.payload["sequence"] for h in hits] == [7]
    finally:
        await third.close()


async def test_driver_errors_are_translated(store: VectorStore, make_point: MakePoint) -> None:
    await fill(store, make_point)
    with pytest.raises(VectorStoreError):
        await store.upsert([VectorPoint("bad", [0.5, 0.5], dict(make_point(CHAT, 9, "x").payload))])
    with pytest.raises(VectorStoreError):
        await store.search(CHAT, dense=[0.1, 0.2, 0.3], limit=5)  # wrong dimension


async def test_search_needs_exactly_one_query(store: VectorStore, embed: Embed) -> None:
    with pytest.raises(ValueError):
        await store.search(CHAT, limit=5)
    with pytest.raises(ValueError):
        await store.search(CHAT, dense=embed("x"), sparse=SparseVector((1,), (1.0,)), limit=5)


@pytest.mark.parametrize("kind", STORES)
async def test_use_before_setup_is_an_error(
    kind: str, store_path: Path, request: pytest.FixtureRequest, embed: Embed
) -> None:
    fresh = open_store(kind, store_path, request)
    with pytest.raises(VectorStoreError, match="setup"):
        await fresh.search(CHAT, dense=embed("x"), limit=1)
    await fresh.close()


async def test_fetch_returns_every_piece_of_a_turn_across_pages(
    store: VectorStore, make_point: MakePoint
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


async def test_sparse_scores_weigh_rare_terms_by_idf(
    store: VectorStore, make_point: MakePoint
) -> None:
    common, rare = 11, 22
    points = []
    for seq, text in enumerate(TEXTS):
        base = make_point(CHAT, seq, text)
        terms = SparseVector((rare,), (1.0,)) if seq == 4 else SparseVector((common,), (2.0,))
        points.append(VectorPoint(base.id, base.vector, base.payload, terms))
    await store.upsert(points)
    hits = await store.search(CHAT, sparse=SparseVector((common, rare), (1.0, 1.0)), limit=5)
    assert hits[0].payload["sequence"] == 4  # without IDF the common term (weight 2) would win
    assert len(hits) == 5


async def test_recreate_for_another_model_empties_the_store(
    store: VectorStore, make_point: MakePoint, embed: Embed
) -> None:
    await fill(store, make_point)
    with pytest.raises(ModelChangedError):
        await store.setup(dimension=384, model_id="other-model@2")
    await store.recreate(dimension=384, model_id="other-model@2")
    assert await store.search(CHAT, dense=embed(TEXTS[0]), limit=10) == []
    await store.setup(dimension=384, model_id="other-model@2")  # the new identity holds
    with pytest.raises(ModelChangedError, match="other-model@2"):
        await store.setup(dimension=384, model_id=MODEL)
    await fill(store, make_point)
    assert len(await store.search(CHAT, dense=embed(TEXTS[0]), limit=10)) == len(TEXTS)
