"""The chat-storage seams: chats, messages and turns, summary rows, the recall index's outbox.

Each seam is a small protocol of at most five required methods, with its conveniences
built on them in the protocol (``append_messages`` and ``create_summary`` on
``commit_turn``, ``mark_indexed`` on ``mark_indexed_many``). :class:`ChatStorage` is their
intersection with a lifecycle, what the engine takes; a backend subclasses
:class:`StorageBase` (or the protocols) and implements the required methods. The records
they store are in :mod:`longtalk.storage.records` (re-exported here); the conformance suite
of each seam is in :mod:`longtalk.testing`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from longtalk.core.messages import Message
from longtalk.errors import ConflictError, IdempotencyConflict, NotFoundError, UsageError
from longtalk.storage.records import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    FoundFacts,
    MessageCountMoved,
    NewMessages,
    Origin,
    RecordUpdate,
    StoredMessage,
    SummaryFormat,
    SummaryKind,
    SummaryPatch,
    SummaryRow,
    SummaryRun,
    SummaryStats,
    SummaryUpdate,
    TitleSource,
    TurnCommit,
    UserFact,
    UserFactKind,
)

__all__ = [
    "DEFAULT_SMART_LOAD_TAIL",
    "ChatRecord",
    "ChatState",
    "ChatStorage",
    "ChatStore",
    "CommitResult",
    "FoundFacts",
    "IndexOutbox",
    "MessageStore",
    "MessageCountMoved",
    "NewMessages",
    "Origin",
    "RecordUpdate",
    "StorageBase",
    "StoredMessage",
    "SummaryFormat",
    "SummaryKind",
    "SummaryPatch",
    "SummaryRow",
    "SummaryRun",
    "SummaryStats",
    "SummaryStore",
    "SummaryUpdate",
    "TitleSource",
    "TurnCommit",
    "UserFact",
    "UserFactKind",
    "active_chain",
    "chat_after",
    "check_commit",
    "check_tenant",
    "replayed",
    "retry_of",
    "smart_load_after",
]


@runtime_checkable
class ChatStore(Protocol):
    """Chats: create, read, list, delete. Every method is one transaction."""

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """Create a chat (a random id when none is given)."""
        ...

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        ...

    async def list_chats(
        self, *, tenant: str = "default", limit: int = 50, offset: int = 0
    ) -> list[ChatRecord]:
        """A tenant's chats, newest first."""
        ...

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat with its messages and summaries; False when there was none."""
        ...

    async def delete_chats(self, *, tenant: str, user: str | None = None) -> list[ChatRecord]:
        """Delete every chat of a tenant (or of one user of it) with its rows; the chats."""
        ...


@runtime_checkable
class MessageStore(Protocol):
    """A chat's messages and what a turn writes. Every method is one transaction.

    Required: ``commit_turn``, ``list_messages``, ``load_state``; ``append_messages`` is
    ``commit_turn`` with messages only.
    """

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically; ``ConflictError`` when a guard of the commit fails."""
        ...

    async def list_messages(
        self, chat_id: str, *, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages after a sequence, oldest first."""
        ...

    async def load_state(
        self, chat_id: str, *, tail: int | None = None, with_user_memory: bool = False
    ) -> ChatState:
        """Smart load: the summary chain, unsummarized messages and at least the last ``tail``.

        ``tail`` None means the storage's configured ``smart_load_tail`` (default 4).
        ``with_user_memory`` asks for the chat user's memory too (``ChatState.user_memory``;
        left None by a storage that does not keep it). One snapshot.
        Raises ``NotFoundError`` for an unknown chat.
        """
        ...

    async def append_messages(
        self, chat_id: str, messages: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append messages at the end of the chat, atomically, in order."""
        result = await self.commit_turn(TurnCommit(chat_id, append=NewMessages(messages)))
        return list(result.messages)


@runtime_checkable
class SummaryStore(Protocol):
    """A chat's summary rows, as the episode-summary service exposes them.

    Required: ``list_summaries``, ``update_summary`` and ``commit_turn``; ``create_summary``
    is a ``commit_turn`` with one new row.
    """

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        ...

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a summary row; its version and its chat's summary version go up."""
        ...

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically (see :class:`MessageStore`)."""
        ...

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Insert a summary row at the end of its chat's chain; bumps its summary version."""
        if row.id is not None:
            raise UsageError(f"create_summary: the row already has id {row.id}; use update")
        result = await self.commit_turn(TurnCommit(row.chat_id, summary=SummaryUpdate(rows=(row,))))
        return result.summaries[0]


@runtime_checkable
class IndexOutbox(Protocol):
    """The recall index's outbox: a durable watermark per chat, behind its messages.

    Required: ``index_backlog``, ``mark_indexed_many`` and ``reset_index``;
    ``mark_indexed`` is ``mark_indexed_many`` for one chat.
    """

    async def index_backlog(
        self, *, limit: int = 100, chat_ids: Sequence[str] | None = None
    ) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first.

        ``chat_ids`` limits the answer to those chats (one read for a whole leased batch).
        """
        ...

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """Move several chats' watermarks (chat id: sequence) up, never down, in one transaction.

        Returns the ids of the chats (of the given incarnations) that no longer exist.
        """
        ...

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        ...

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        known = {chat_id: incarnation} if incarnation is not None else None
        return chat_id not in await self.mark_indexed_many({chat_id: sequence}, incarnations=known)


@runtime_checkable
class ChatStorage(ChatStore, MessageStore, SummaryStore, IndexOutbox, Protocol):
    """Every storage seam with a lifecycle: what the engine takes.

    An intersection of the seams above; it adds only ``setup`` and ``close``.
    """

    async def setup(self) -> None:
        """Create or migrate the schema; idempotent."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def active_chain(rows: Sequence[SummaryRow]) -> tuple[SummaryRow, ...]:
    """The shown chain: rows a digest does not cover, ordered by the episodes they cover."""
    live = [row for row in rows if row.kind != "archived"]
    return tuple(sorted(live, key=lambda row: (row.episode_first, row.sequence)))


def smart_load_after(chat: ChatRecord, *, has_summary: bool, tail: int) -> int:
    """The sequence after which ``load_state`` loads messages (the LangGraph backend's smart load).

    Without a summary every message is loaded (0). With one, the messages not yet folded
    into it and at least the last ``tail``: the summary replaces everything before.
    """
    if tail < 0:
        raise UsageError(f"tail must be 0 or more, got {tail}")
    if not has_summary:
        return 0
    return max(0, min(chat.last_summarized_sequence, chat.message_count - tail))


def replayed(
    found: Sequence[StoredMessage], new: Sequence[Message]
) -> tuple[StoredMessage, ...] | None:
    """The messages a retried append already stored (``found`` by id), or None if it is new.

    A message id names one message of a chat, and an ``Idempotency-Key`` one whole request:
    an append whose messages are all stored already, every field the same (role, content,
    name, type, tool-call ids, timestamp, metadata), in the same order, one after the other,
    is a retry and changes nothing. Anything else that reuses a stored id (other fields, a
    part of the request, more messages, another order) is an ``IdempotencyConflict``: nothing
    is stored.
    """
    if not found:
        return None
    by_id = {item.message.id: item for item in found}
    wanted = {message.id for message in new}
    if any(message_id not in wanted for message_id in by_id):
        raise IdempotencyConflict(
            "this Idempotency-Key (or these message ids) named a longer request: a retry "
            "must resend every message of it; use a new key for another request"
        )
    if any(message.id not in by_id for message in new):
        known = sorted(i for i in by_id if i)[:3]
        raise IdempotencyConflict(
            f"messages with ids {known} are already stored in this chat but others of the "
            "append are not: a retry (same message ids or Idempotency-Key) must resend "
            "exactly the same messages"
        )
    stored = tuple(by_id[message.id] for message in new)
    for message, item in zip(new, stored, strict=True):
        field = _first_difference(item.message, message)
        if field is not None:
            raise IdempotencyConflict(
                f"message id {message.id!r} is already stored with other content (another "
                f"{field}): an id (or an Idempotency-Key) names one message (one request), "
                "use a new one"
            )
    sequences = [item.sequence for item in stored]
    if sequences != list(range(sequences[0], sequences[0] + len(sequences))):
        raise IdempotencyConflict(
            "these message ids were stored in another order or apart: a retry (same message "
            "ids or Idempotency-Key) must resend exactly the same messages, in the same order"
        )
    return stored


_COMPARED = ("role", "content", "name", "type", "tool_call_ids", "timestamp")


def _first_difference(stored: Message, new: Message) -> str | None:
    """The first field in which a resent message differs from the stored one, or None."""
    for name in _COMPARED:
        if getattr(stored, name) != getattr(new, name):
            return name
    if _as_json(stored.metadata) != _as_json(new.metadata):
        return "metadata"
    return None


def _as_json(value: Any) -> Any:
    """``value`` as storage gives it back (tuples as lists, keys as text)."""
    return json.loads(json.dumps(value, default=str))


def check_tenant(chat: ChatRecord, commit: TurnCommit) -> None:
    """``NotFoundError``, as for a missing chat, when ``chat`` is not the commit's tenant's."""
    if commit.tenant is not None and commit.tenant != chat.tenant:
        raise NotFoundError(f"no chat with id {chat.id!r}; create it first with create_chat()")


def retry_of(
    chat: ChatRecord, commit: TurnCommit, found: Sequence[StoredMessage]
) -> CommitResult | None:
    """The earlier append's result when ``commit`` retries it: every turn writer asks first.

    ``NotFoundError`` unless ``chat`` is the commit's tenant's; ``found`` are the stored
    messages whose ids the commit looks up (:func:`replayed` judges them); None when the
    commit is new and is to be written.
    """
    check_tenant(chat, commit)
    replay = replayed(found, commit.append.messages)
    return None if replay is None else CommitResult(chat, replay, ())


def check_commit(chat: ChatRecord, commit: TurnCommit) -> None:
    """Raise unless ``commit`` may be applied to ``chat`` as it is now.

    ``NotFoundError`` when the chat is another incarnation than the commit's;
    ``ConflictError`` when the summary compare-and-swap fails or the summary bookkeeping
    would move backwards (``MessageCountMoved`` when found facts were numbered for another
    message count); ``UsageError`` when it points past the chat's last message or
    carries a summary row of another chat.
    """
    if commit.incarnation is not None and commit.incarnation != chat.incarnation:
        raise NotFoundError(
            f"chat {chat.id!r} was deleted (and created again) since the turn was planned; "
            "nothing was written"
        )
    strangers = [row for row in commit.summary.rows if row.chat_id != chat.id]
    if strangers:
        raise UsageError(
            f"chat {chat.id!r}: the turn carries a summary row of chat {strangers[0].chat_id!r}"
        )
    found = commit.append.found_facts
    if found is not None and found.facts and commit.append.messages:
        if found.numbered_for != chat.message_count:
            raise MessageCountMoved(chat.id, found.numbered_for, chat.message_count)
    if not commit.summary.changes:
        return
    expected = commit.summary.expected_version
    if expected is not None and expected != chat.summary_version:
        raise ConflictError(
            f"chat {chat.id!r}: the summary is at version {chat.summary_version}, the turn "
            f"was planned from version {expected}; reload the chat state and plan again"
        )
    last = commit.summary.last_summarized_sequence
    if last is None:
        return
    if last < chat.last_summarized_sequence:
        raise ConflictError(
            f"chat {chat.id!r}: messages up to {chat.last_summarized_sequence} are already "
            f"summarized, the turn would move that back to {last}; reload and plan again"
        )
    if last > chat.message_count + len(commit.append.messages):
        raise UsageError(
            f"chat {chat.id!r}: last_summarized_sequence {last} is past the last message "
            f"({chat.message_count + len(commit.append.messages)} after this turn)"
        )


def chat_after(chat: ChatRecord, commit: TurnCommit, *, added: int, now: datetime) -> ChatRecord:
    """The chat as ``commit`` leaves it (every backend writes exactly this)."""
    record, summary = commit.record, commit.summary
    title, source = chat.title, chat.title_source
    if record.title is not None and (record.title_source == "user" or source != "user"):
        title, source = record.title, record.title_source
    last = summary.last_summarized_sequence
    new_chars = sum(len(m.content) for m in commit.append.messages[:added])
    return replace(
        chat,
        title=title,
        title_source=source,
        updated_at=now,
        message_count=chat.message_count + added,
        content_chars=chat.content_chars + new_chars,
        last_summarized_sequence=chat.last_summarized_sequence if last is None else last,
        summary_version=chat.summary_version + int(summary.changes),
        stats=chat.stats if record.run is None else chat.stats.after(record.run),
    )


class StorageBase(ChatStorage):
    """What every backend builds on: the seams' conveniences and a default smart-load tail.

    Subclasses implement the required methods of ``ChatStorage``; ``smart_load_tail`` is
    the default ``tail`` of their ``load_state``.
    """

    def __init__(self, *, smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL) -> None:
        if smart_load_tail < 0:
            raise UsageError(f"smart_load_tail must be 0 or more, got {smart_load_tail}")
        self.smart_load_tail = smart_load_tail

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """Create a chat (a random id when none is given): a new record, inserted."""
        now = datetime.now(UTC)
        chat = ChatRecord(
            id=chat_id or uuid.uuid4().hex,
            tenant=tenant,
            user=user,
            title=title,
            created_at=now,
            updated_at=now,
            incarnation=uuid.uuid4().hex,
            title_source="user" if title is not None else None,
        )
        await self.insert_chat(chat)
        return chat

    async def insert_chat(self, chat: ChatRecord) -> None:
        """Store a new chat; ``StorageError`` when a chat with its id exists."""
        raise NotImplementedError
