"""Every vector store keeps a chat's incarnations apart (a re-created chat id recalls nothing old).

Turns of a deleted chat that were left in the store (an indexing run that raced the delete)
carry that chat's incarnation; the chat created later under the same id searches, fetches
and deletes only its own. Chats older than incarnations (empty) are not filtered by it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np
from vector_helpers import sparse_terms

from longtalk.vectors.base import RecallScope, VectorPoint, VectorStore

OLD = RecallScope(chat_id="x", tenant="acme", user="u1", incarnation="old0")
NEW = RecallScope(chat_id="x", tenant="acme", user="u1", incarnation="new1")
LEGACY = RecallScope(chat_id="x", tenant="acme", user="u1")


def point(
    scope: RecallScope, sequence: int, text: str, embed: Callable[[str], np.ndarray]
) -> VectorPoint:
    payload = {
        "namespace": scope.namespace,
        "tenant": scope.tenant,
        "user": scope.user,
        "chat_id": scope.chat_id,
        "incarnation": scope.incarnation,
        "sequence": sequence,
        "content": text,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
    }
    point_id = f"{scope.chat_id}:{scope.incarnation}:{sequence}"
    return VectorPoint(point_id, embed(text), payload, sparse_terms(text))


async def test_a_new_incarnation_never_sees_the_old_ones_turns(
    store: VectorStore, embed: Callable[[str], np.ndarray]
) -> None:
    secret = "The vault code of the old chat is seven seven four one."
    await store.upsert([point(OLD, 1, secret, embed), point(NEW, 1, "Hello there.", embed)])
    dense = await store.search(NEW, dense=embed(secret), limit=10)
    assert [hit.payload["content"] for hit in dense] == ["Hello there."]
    assert await store.search(NEW, sparse=sparse_terms(secret), limit=10) == []
    assert [p.payload["content"] for p in await store.fetch(NEW, [1])] == ["Hello there."]
    legacy = await store.search(LEGACY, dense=embed(secret), limit=10)
    assert len(legacy) == 2  # no incarnation: the chat's turns of any incarnation
    await store.delete(OLD)
    assert [p.payload["content"] for p in await store.fetch(LEGACY, [1])] == ["Hello there."]
