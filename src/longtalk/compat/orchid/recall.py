"""Orchid's vector reader and writer over a longtalk ``MemoryEngine``'s recall.

``OrchidRAGConversationMemory`` stores turns with ``writer.upsert(documents=, namespace=)``
and recalls them with ``reader.retrieve(query=, namespace=, k=, scope=)``. Pass a
:class:`LongtalkTurnStore` as both: a stored turn becomes a message of the engine's chat
(kept in its storage, with the document's custom metadata, and indexed for recall through the
chat's watermark), and retrieval is the engine's hybrid recall, each result scored by its
cosine similarity to the query (what Orchid's ``similarity_threshold`` is compared with).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from longtalk.compat.orchid.repository import OrchidDocument, OrchidRAGScope, OrchidSearchResult
from longtalk.core.messages import Message, Role
from longtalk.engine import MemoryEngine
from longtalk.errors import UsageError
from longtalk.vectors.base import RecalledTurn

SCOPE_KEYS = frozenset({"tenant_id", "user_id", "chat_id", "scope", "source", "turn_role"})
_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM}


class LongtalkTurnStore:
    """Orchid's ``upsert`` / ``retrieve`` over an engine with ``strategy: rag_augmented``."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    async def upsert(self, documents: Sequence[OrchidDocument], namespace: str) -> None:
        """Store each document as a message of its chat (created on first use)."""
        self._check(namespace)
        by_chat: dict[str, list[OrchidDocument]] = defaultdict(list)
        for document in documents:
            by_chat[str(document.metadata.get("chat_id", ""))].append(document)
        for chat_id, docs in by_chat.items():
            if not chat_id:
                raise UsageError("an Orchid memory document needs a chat_id in its metadata")
            first = docs[0].metadata
            tenant = str(first.get("tenant_id") or "default")
            if await self.engine.storage.get_chat(chat_id, tenant=tenant) is None:
                user = str(first.get("user_id") or "") or None
                await self.engine.create_chat(chat_id, tenant=tenant, user=user)
            await self.engine.append(chat_id, [_message(d) for d in docs])  # indexed at once

    async def retrieve(
        self,
        query: str,
        namespace: str,
        k: int = 5,
        scope: OrchidRAGScope | None = None,
    ) -> list[OrchidSearchResult]:
        """The ``k`` turns of the scope's chat most relevant to ``query``, best first."""
        self._check(namespace)
        if scope is None or not scope.chat_id:
            return []
        chat = await self.engine.storage.get_chat(scope.chat_id, tenant=scope.tenant_id)
        if chat is None or (scope.user_id and scope.user_id != (chat.user or "")):
            return []
        turns = await self.engine.recall.get_relevant_history(
            query, self.engine.scope(chat), k=k, similarity_threshold=0.0
        )
        return [_result(turn, chat.id) for turn in turns]

    def _check(self, namespace: str) -> None:
        expected = self.engine.config.rag_namespace
        if namespace != expected:
            raise UsageError(
                f"namespace {namespace!r} is not the engine's recall namespace {expected!r}; "
                f"set rag_namespace: {namespace!r} in the memory configuration"
            )


def _message(document: OrchidDocument) -> Message:
    """The message a memory document stands for; custom metadata rides along."""
    role = _ROLES.get(str(document.metadata.get("turn_role", "")), Role.ASSISTANT)
    custom = {k: v for k, v in document.metadata.items() if k not in SCOPE_KEYS}
    return Message(role=role, content=document.page_content, id=document.id, metadata=custom)


def _result(turn: RecalledTurn, chat_id: str) -> OrchidSearchResult:
    message = turn.message
    metadata: dict[str, Any] = {
        **message.metadata,
        "chat_id": chat_id,
        "turn_role": message.role.value,
        "sequence": turn.sequence,
    }
    document = OrchidDocument(
        id=message.id or f"{chat_id}:{turn.sequence}",
        page_content=message.content,
        metadata=metadata,
    )
    score = turn.similarity if turn.similarity is not None else turn.score
    return OrchidSearchResult(document=document, score=score)
