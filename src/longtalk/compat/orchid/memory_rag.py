"""Orchid's ``OrchidRAGConversationMemory``: running summary plus semantic recall of turns.

Turns go to Orchid's vector writer (``upsert(documents=, namespace=)``) under the reserved
``__memory__`` namespace with their scope, role and the caller's metadata; recall asks the
reader (``retrieve(query=, namespace=, k=, scope=)``), drops results under the threshold and
labels them ``assistant``; the merge drops recalled turns whose content (compared by hash)
is already in the verbatim window. Vector failures degrade to no-ops and [].
``LongtalkTurnStore`` is a reader and writer over longtalk's own recall.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from longtalk.compat.orchid.memory import OrchidInMemoryConversationMemory
from longtalk.compat.orchid.repository import OrchidDocument, OrchidRAGScope
from longtalk.core.messages import content_hash

log = logging.getLogger(__name__)


class OrchidRAGConversationMemory(OrchidInMemoryConversationMemory):
    """Running-summary memory AND semantic retrieval of past turns."""

    MEMORY_NAMESPACE = "__memory__"

    def __init__(
        self,
        chat_storage: Any,
        chat_model: Any,
        reader: Any,
        writer: Any,
        *,
        structured_output: bool = True,
    ):
        super().__init__(
            chat_storage=chat_storage, chat_model=chat_model, structured_output=structured_output
        )
        self._reader = reader
        self._writer = writer

    async def store_conversation_turn(
        self,
        chat_id: str,
        tenant_id: str,
        user_id: str,
        turn: dict[str, str],
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Store one turn as a document; blank turns are skipped, failures logged."""
        content = turn.get("content", "")
        if not content.strip():
            return
        doc_id = f"mem-{chat_id}-{int(time.time() * 1000)}-{content_hash(content)[:16]}"
        doc_metadata: dict[str, Any] = {
            "tenant_id": tenant_id,
            "user_id": user_id,
            "chat_id": chat_id,
            "scope": "chat_shared",
            "source": "conversation_memory",
            "turn_role": turn.get("role", ""),
            **(metadata or {}),
        }
        document = OrchidDocument(id=doc_id, page_content=content, metadata=doc_metadata)
        try:
            await self._writer.upsert(documents=[document], namespace=self.MEMORY_NAMESPACE)
        except Exception as exc:  # noqa: BLE001 - a vector store failure never fails a turn
            log.warning("[RAGMemory] Failed to store turn for chat %s: %s", chat_id, exc)

    async def get_relevant_history(
        self,
        query: str,
        chat_id: str,
        k: int = 5,
        *,
        tenant_id: str = "default",
        user_id: str = "",
        similarity_threshold: float = 0.5,
    ) -> list[dict[str, Any]]:
        """The ``k`` most relevant past turns at or above the threshold; [] on failure."""
        scope = OrchidRAGScope(tenant_id=tenant_id, user_id=user_id, chat_id=chat_id)
        try:
            results = await self._reader.retrieve(
                query=query, namespace=self.MEMORY_NAMESPACE, k=k, scope=scope
            )
        except Exception:  # noqa: BLE001 - recall degrades to nothing
            log.warning("[RAGMemory] Retrieval failed for chat %s, returning empty", chat_id)
            return []
        return [
            {"role": "assistant", "content": r.document.page_content, "score": r.score}
            for r in results
            if r.score >= similarity_threshold
        ]

    async def get_relevant_history_merged(
        self,
        query: str,
        chat_id: str,
        recent_verbatim: list[dict[str, str]],
        *,
        tenant_id: str = "default",
        user_id: str = "",
        k: int = 5,
        similarity_threshold: float = 0.5,
    ) -> list[dict[str, str]]:
        """Recalled turns not already in ``recent_verbatim``, then the verbatim window."""
        recalled = await self.get_relevant_history(
            query,
            chat_id,
            k,
            tenant_id=tenant_id,
            user_id=user_id,
            similarity_threshold=similarity_threshold,
        )
        if not recalled:
            return list(recent_verbatim)
        shown = {content_hash(m.get("content", "")) for m in recent_verbatim}
        kept = [
            {"role": t.get("role", "assistant"), "content": t["content"]}
            for t in recalled
            if content_hash(t["content"]) not in shown
        ]
        return [*kept, *recent_verbatim]
