"""longtalk's chats as a LangGraph ``BaseStore`` (``pip install longtalk[langgraph]``).

Give a graph ``store=LongtalkStore(memory)`` and its nodes can read, search and extend any
chat, not only their own thread's. The namespaces are longtalk's data:

======================  =========================  ==========================================
namespace               key                        value
======================  =========================  ==========================================
``("chats",)``          the chat id                ``title``, ``user``, ``message_count``,
                                                   ``last_summarized_sequence``
``("chats", id)``       the message id (or its     ``role``, ``content``, ``name``,
                        sequence when it has none) ``sequence``, ``metadata``
``("summaries", id)``   the summary row's id       ``text``, ``episode_first``,
                                                   ``episode_last``, ``kind``
======================  =========================  ==========================================

``search(("chats", id), query=...)`` ranks the chat's messages by semantic recall when the
memory recalls (``rag_augmented``), else by the words they share with the query.
``put(("chats",), id, {"title": ..., "user": ...})`` creates a chat, ``put(("chats", id),
key, {"role": ..., "content": ...})`` appends a message with ``key`` as its id (the same
message again stores nothing; other content under a stored key is refused),
``delete(("chats",), id)`` deletes a chat. Chats are append-only:
changing or deleting one message is refused, as is writing summaries.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from longtalk.errors import UsageError, needs_extra
from longtalk.memory import AsyncMemory
from longtalk.storage.base import ChatRecord, StoredMessage, SummaryRow

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra("longtalk.integrations.langgraph", "LangGraph", "langgraph", exc) from exc

__all__ = ["LongtalkStore"]

CHATS, SUMMARIES = "chats", "summaries"
_WORD = re.compile(r"\w+")


class LongtalkStore(BaseStore):
    """A LangGraph store over the chats of an ``AsyncMemory`` (see the module doc).

    Build it inside the event loop the memory runs on; the sync methods then work from
    other threads (LangGraph runs sync nodes in worker threads).
    """

    supports_ttl = False

    def __init__(self, memory: AsyncMemory) -> None:
        self.memory = memory
        self._loop = asyncio.get_running_loop()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` on the memory's loop, from another thread."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            raise UsageError("LongtalkStore: in async code use the a-methods (aget, asearch)")
        return asyncio.run_coroutine_threadsafe(self.abatch(ops), self._loop).result()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(await self._get(op))
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, PutOp):
                await self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._namespaces(op))
            else:
                raise UsageError(f"LongtalkStore cannot run a {type(op).__name__}")
        return results

    # -- reads ------------------------------------------------------------------------------

    async def _get(self, op: GetOp) -> Item | None:
        kind, chat_id = _split(op.namespace)
        if chat_id is None:
            chat = await self.memory.get(op.key)
            return None if chat is None else _chat_item(chat.record)
        record = await self._chat(chat_id)
        if record is None:
            return None
        if kind == SUMMARIES:
            rows = await self.memory.engine.storage.list_summaries(chat_id)
            return next((_summary_item(r) for r in rows if str(r.id) == op.key), None)
        stored = await self.memory.engine.storage.list_messages(chat_id)
        return next((_message_item(s, record) for s in stored if _key(s) == op.key), None)

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        kind, chat_id = _split(op.namespace_prefix, prefix=True)
        if chat_id is None:
            chats = await self.memory.chats(limit=10_000)
            items = [_chat_item(chat, score=None) for chat in chats]
        elif kind == SUMMARIES:
            rows = await self.memory.engine.storage.list_summaries(chat_id)
            items = [_summary_item(row) for row in rows]
        else:
            items = await self._messages(chat_id, op.query)
        matching = [item for item in items if _matches(item.value, op.filter)]
        return matching[op.offset : op.offset + op.limit]

    async def _messages(self, chat_id: str, query: str | None) -> list[SearchItem]:
        record = await self._chat(chat_id)
        if record is None:
            return []
        stored = await self.memory.engine.storage.list_messages(chat_id)
        if not query:
            return [_message_item(s, record) for s in stored]
        engine = self.memory.engine
        if engine.uses_recall:
            found = await engine.recall.get_relevant_history(
                query, engine.scope(record), k=len(stored) or 1, similarity_threshold=0.0
            )
            by_sequence = {s.sequence: s for s in stored}
            return [
                _message_item(by_sequence[turn.sequence], record, score=turn.score)
                for turn in found
                if turn.sequence in by_sequence
            ]
        words = _words(query)
        scored = [(len(words & _words(s.message.content)) / (len(words) or 1), s) for s in stored]
        ranked = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
        return [_message_item(s, record, score=score) for score, s in ranked]

    async def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        chats = await self.memory.chats(limit=10_000)
        found: list[tuple[str, ...]] = [(CHATS,)]
        found += [(kind, c.id) for c in chats for kind in (CHATS, SUMMARIES)]
        for condition in op.match_conditions or ():
            path = tuple(condition.path)
            if condition.match_type == "prefix":
                found = [ns for ns in found if _wild_eq(ns[: len(path)], path)]
            else:
                found = [ns for ns in found if _wild_eq(ns[-len(path) :], path)]
        if op.max_depth is not None:
            found = sorted({ns[: op.max_depth] for ns in found})
        return found[op.offset : op.offset + op.limit]

    # -- writes -----------------------------------------------------------------------------

    async def _put(self, op: PutOp) -> None:
        kind, chat_id = _split(op.namespace)
        if chat_id is None:
            if op.value is None:
                await self.memory.delete(op.key)
            else:
                user, title = op.value.get("user"), op.value.get("title")
                await self.memory.chat(op.key, user=user, title=title)
            return
        if kind == SUMMARIES:
            raise UsageError("summaries are written by longtalk's summarizer, not the store")
        if op.value is None:
            raise UsageError("chats are append-only: a stored message cannot be deleted")
        if "role" not in op.value or "content" not in op.value:
            raise UsageError("a message item needs 'role' and 'content'")
        chat = await self.memory.chat(chat_id)
        metadata = dict(op.value.get("metadata") or {})
        await chat.append(
            op.value["role"],
            op.value["content"],
            name=op.value.get("name"),
            message_id=op.key,
            **metadata,
        )

    async def _chat(self, chat_id: str) -> ChatRecord | None:
        found = await self.memory.get(chat_id)
        return None if found is None else found.record


def _split(namespace: Sequence[str], *, prefix: bool = False) -> tuple[str, str | None]:
    """``("chats",)`` -> (chats, None); ``("chats"|"summaries", id)`` -> (kind, id)."""
    parts = tuple(namespace)
    if parts == (CHATS,) or (prefix and parts in ((), (CHATS,))):
        return CHATS, None
    if len(parts) == 2 and parts[0] in (CHATS, SUMMARIES):
        return parts[0], parts[1]
    raise UsageError(
        f"unknown namespace {parts!r}: use ('chats',), ('chats', chat_id) or ('summaries', chat_id)"
    )


def _key(stored: StoredMessage) -> str:
    return stored.message.id or str(stored.sequence)


def _when(*times: datetime | None) -> datetime:
    return next((t for t in times if t is not None), datetime.now(UTC))


def _chat_item(chat: ChatRecord, score: float | None = None) -> SearchItem:
    value = {
        "title": chat.title,
        "user": chat.user,
        "message_count": chat.message_count,
        "last_summarized_sequence": chat.last_summarized_sequence,
    }
    return _stamped((CHATS,), chat.id, value, chat.created_at, chat.updated_at, score)


def _message_item(
    stored: StoredMessage, chat: ChatRecord, score: float | None = None
) -> SearchItem:
    message = stored.message
    value = {
        "role": message.role.value,
        "content": message.content,
        "name": message.name,
        "sequence": stored.sequence,
        "metadata": message.metadata,
    }
    when = _when(message.timestamp, chat.updated_at)
    return SearchItem((CHATS, chat.id), _key(stored), value, when, when, score)


def _summary_item(row: SummaryRow) -> SearchItem:
    value = {
        "text": row.summary_text,
        "episode_first": row.episode_first,
        "episode_last": row.episode_last,
        "kind": row.kind,
    }
    return _stamped((SUMMARIES, row.chat_id), str(row.id), value, row.created_at, row.updated_at)


def _stamped(
    namespace: tuple[str, ...],
    key: str,
    value: dict[str, Any],
    created_at: datetime | None,
    updated_at: datetime | None,
    score: float | None = None,
) -> SearchItem:
    """A stored record's item: created when it was (else now), updated when it was (else then)."""
    created = _when(created_at)
    return SearchItem(namespace, key, value, created, _when(updated_at, created), score)


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    return all(value.get(name) == expected for name, expected in (wanted or {}).items())


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text) if len(word) > 2}


def _wild_eq(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(parts) == len(pattern) and all(
        p in ("*", v) for v, p in zip(parts, pattern, strict=True)
    )
