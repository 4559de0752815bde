"""The chat-storage seams: chats and messages, summary rows, the recall index's outbox.

Each seam is a small protocol; :class:`ChatStorage` is all three with a lifecycle, what the
engine takes. A backend implements the required methods and inherits the conveniences
built on them from :class:`StorageBase` (``append_messages`` and ``create_summary`` on
``commit_turn``, ``mark_indexed`` on ``mark_indexed_many``). The records they store are in
:mod:`longtalk.storage.records` (re-exported here); the conformance suite of each seam is
in :mod:`longtalk.testing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol, runtime_checkable

from longtalk.core.messages import Message
from longtalk.errors import ConflictError, NotFoundError, UsageError
from longtalk.storage.records import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    FactsOf,
    Origin,
    StoredMessage,
    SummaryFormat,
    SummaryKind,
    SummaryPatch,
    SummaryRow,
    SummaryRun,
    SummaryStats,
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
    "FactsOf",
    "IndexOutbox",
    "Origin",
    "StorageBase",
    "StoredMessage",
    "SummaryFormat",
    "SummaryKind",
    "SummaryPatch",
    "SummaryRow",
    "SummaryRun",
    "SummaryStats",
    "SummaryStore",
    "TitleSource",
    "TurnCommit",
    "UserFact",
    "UserFactKind",
    "active_chain",
    "chat_after",
    "check_commit",
    "check_tenant",
    "message_ids",
    "replayed",
    "smart_load_after",
]


@runtime_checkable
class ChatStore(Protocol):
    """Chats and their messages. Every method is one transaction.

    Required: ``create_chat``, ``get_chat``, ``list_chats``, ``delete_chat``,
    ``delete_chats``, ``commit_turn``, ``list_messages``, ``load_state``;
    ``append_messages`` is ``commit_turn`` with messages only (``StorageBase``).
    """

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

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically; ``ConflictError`` when the summary CAS fails."""
        ...

    async def append_messages(
        self, chat_id: str, messages: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append messages at the end of the chat, atomically, in order."""
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


@runtime_checkable
class SummaryStore(Protocol):
    """A chat's summary rows, as the episode-summary service exposes them.

    Required: ``list_summaries`` and ``update_summary``; ``create_summary`` is a
    ``commit_turn`` with one new row (``StorageBase``).
    """

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        ...

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Insert a summary row at the end of its chat's chain."""
        ...

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a summary row; its version and its chat's summary version go up."""
        ...


@runtime_checkable
class IndexOutbox(Protocol):
    """The recall index's outbox: a durable watermark per chat, behind its messages.

    Required: ``index_backlog``, ``mark_indexed_many`` and ``reset_index``;
    ``mark_indexed`` is ``mark_indexed_many`` for one chat (``StorageBase``).
    """

    async def index_backlog(
        self, *, limit: int = 100, chat_ids: Sequence[str] | None = None
    ) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first.

        ``chat_ids`` limits the answer to those chats (one read for a whole leased batch).
        """
        ...

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        ...

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """``mark_indexed`` for several chats (chat id: sequence) in one transaction.

        Returns the ids of the chats (of the given incarnations) that no longer exist.
        """
        ...

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        ...


@runtime_checkable
class ChatStorage(ChatStore, SummaryStore, IndexOutbox, Protocol):
    """Where chats, messages, summary chains and index watermarks live: every seam."""

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


def message_ids(new: Sequence[Message]) -> list[str]:
    """The ids the new messages carry; two messages of one append may not share one."""
    ids = [message.id for message in new if message.id]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise UsageError(f"message ids must be unique within an append, repeated: {repeated}")
    return ids


def replayed(
    found: Sequence[StoredMessage], new: Sequence[Message]
) -> tuple[StoredMessage, ...] | None:
    """The messages a retried append already stored (``found`` by id), or None if it is new.

    A message id identifies one message of a chat: an append whose messages are all stored
    already (same ids, same role and content) is a retry and changes nothing; one that mixes
    stored and new ids, or reuses an id for other content, is an error.
    """
    if not found:
        return None
    by_id = {item.message.id: item for item in found}
    if any(message.id not in by_id for message in new):
        known = sorted(i for i in by_id if i)[:3]
        raise UsageError(
            f"messages with ids {known} are already stored in this chat but others of the "
            "append are not: a retry must resend exactly the same messages"
        )
    for message in new:
        old = by_id[message.id].message
        if (old.role, old.content) != (message.role, message.content):
            raise UsageError(
                f"message id {message.id!r} is already stored with other content: an id "
                "(or an Idempotency-Key) names one message, use a new one"
            )
    return tuple(by_id[message.id] for message in new)


def check_tenant(chat: ChatRecord, commit: TurnCommit) -> None:
    """``NotFoundError``, as for a missing chat, when ``chat`` is not the commit's tenant's."""
    if commit.tenant is not None and commit.tenant != chat.tenant:
        raise NotFoundError(f"no chat with id {chat.id!r}; create it first with create_chat()")


def check_commit(chat: ChatRecord, commit: TurnCommit) -> None:
    """Raise unless ``commit`` may be applied to ``chat`` as it is now.

    ``NotFoundError`` when the chat is another incarnation than the commit's;
    ``ConflictError`` when the summary compare-and-swap fails or the summary bookkeeping
    would move backwards; ``UsageError`` when it points past the chat's last message or
    carries a summary row of another chat.
    """
    if commit.incarnation is not None and commit.incarnation != chat.incarnation:
        raise NotFoundError(
            f"chat {chat.id!r} was deleted (and created again) since the turn was planned; "
            "nothing was written"
        )
    strangers = [row for row in commit.summaries if row.chat_id != chat.id]
    if strangers:
        raise UsageError(
            f"chat {chat.id!r}: the turn carries a summary row of chat {strangers[0].chat_id!r}"
        )
    if not commit.changes_summaries:
        return
    expected = commit.expected_summary_version
    if expected is not None and expected != chat.summary_version:
        raise ConflictError(
            f"chat {chat.id!r}: the summary is at version {chat.summary_version}, the turn "
            f"was planned from version {expected}; reload the chat state and plan again"
        )
    last = commit.last_summarized_sequence
    if last is None:
        return
    if last < chat.last_summarized_sequence:
        raise ConflictError(
            f"chat {chat.id!r}: messages up to {chat.last_summarized_sequence} are already "
            f"summarized, the turn would move that back to {last}; reload and plan again"
        )
    if last > chat.message_count + len(commit.new_messages):
        raise UsageError(
            f"chat {chat.id!r}: last_summarized_sequence {last} is past the last message "
            f"({chat.message_count + len(commit.new_messages)} after this turn)"
        )


def chat_after(chat: ChatRecord, commit: TurnCommit, *, added: int, now: datetime) -> ChatRecord:
    """The chat as ``commit`` leaves it (every backend writes exactly this)."""
    title, source = chat.title, chat.title_source
    if commit.title is not None and (commit.title_source == "user" or source != "user"):
        title, source = commit.title, commit.title_source
    last = commit.last_summarized_sequence
    return replace(
        chat,
        title=title,
        title_source=source,
        updated_at=now,
        message_count=chat.message_count + added,
        content_chars=chat.content_chars + sum(len(m.content) for m in commit.new_messages[:added]),
        last_summarized_sequence=chat.last_summarized_sequence if last is None else last,
        summary_version=chat.summary_version + int(commit.changes_summaries),
        stats=chat.stats if commit.run is None else chat.stats.after(commit.run),
    )


class StorageBase:
    """The conveniences every backend builds the same way on its required methods.

    Subclasses implement the rest of ``ChatStorage``; ``smart_load_tail`` is the default
    ``tail`` of their ``load_state``.
    """

    def __init__(self, *, smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL) -> None:
        if smart_load_tail < 0:
            raise UsageError(f"smart_load_tail must be 0 or more, got {smart_load_tail}")
        self.smart_load_tail = smart_load_tail

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically (the backend's)."""
        raise NotImplementedError(f"{type(self).__name__}.commit_turn")

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """Move several watermarks in one transaction (the backend's)."""
        raise NotImplementedError(f"{type(self).__name__}.mark_indexed_many")

    async def append_messages(
        self, chat_id: str, messages: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append messages at the end of the chat, atomically, in order."""
        result = await self.commit_turn(TurnCommit(chat_id, new_messages=messages))
        return list(result.messages)

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Append a row to the chat's chain; bumps the chat's summary version."""
        if row.id is not None:
            raise UsageError(f"create_summary: the row already has id {row.id}; use update")
        result = await self.commit_turn(TurnCommit(row.chat_id, summaries=(row,)))
        return result.summaries[0]

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        known = {chat_id: incarnation} if incarnation is not None else None
        return chat_id not in await self.mark_indexed_many({chat_id: sequence}, incarnations=known)
