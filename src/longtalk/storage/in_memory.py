"""Chat storage in process memory: what longtalk uses when no storage is configured.

It behaves like the database backends (same sequences, versions, compare-and-swap and
smart loading; the same conformance tests run against it) but keeps nothing after exit.
Each method runs without awaiting, so under asyncio it is atomic like a transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from longtalk.errors import ConflictError, NotFoundError, StorageError
from longtalk.storage.base import (
    DEFAULT_SMART_LOAD_TAIL,
    ChatRecord,
    ChatState,
    CommitResult,
    StorageBase,
    StoredMessage,
    SummaryPatch,
    SummaryRow,
    TurnCommit,
    active_chain,
    chat_after,
    check_commit,
    retry_of,
    smart_load_after,
)
from longtalk.storage.forgetting import ForgetRewrite, PendingForget


class InMemoryStorage(StorageBase):
    """``ChatStorage`` in dictionaries; nothing persists."""

    def __init__(self, *, smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL) -> None:
        super().__init__(smart_load_tail=smart_load_tail)
        self._chats: dict[str, ChatRecord] = {}
        self._messages: dict[str, list[StoredMessage]] = {}
        self._summaries: dict[str, list[SummaryRow]] = {}
        self._facts: dict[str, tuple[Mapping[str, Any], ...]] = {}
        self._forgets: dict[str, PendingForget] = {}
        self._next_summary_id = 1

    def __repr__(self) -> str:
        return f"InMemoryStorage({len(self._chats)} chats)"

    async def setup(self) -> None:
        """Nothing to set up."""

    async def close(self) -> None:
        """Nothing to release; the data stays until the object is dropped."""

    async def insert_chat(self, chat: ChatRecord) -> None:
        """Store a new chat; ``StorageError`` when a chat with its id exists."""
        chat_id = chat.id
        if chat_id in self._chats:
            raise StorageError(f"create_chat: a chat with id {chat_id!r} already exists")
        self._chats[chat_id] = chat
        self._messages[chat_id] = []
        self._summaries[chat_id] = []

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        chat = self._chats.get(chat_id)
        return None if chat is None or tenant not in (None, chat.tenant) else chat

    async def list_chats(
        self, *, tenant: str = "default", limit: int = 50, offset: int = 0
    ) -> list[ChatRecord]:
        """A tenant's chats, most recently updated first."""
        own = sorted(
            (chat for chat in self._chats.values() if chat.tenant == tenant),
            key=lambda chat: chat.id,
        )
        own.sort(key=lambda chat: chat.updated_at or datetime.min.replace(tzinfo=UTC), reverse=True)
        return own[offset : offset + limit]

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat with its messages and summary rows."""
        if await self.get_chat(chat_id, tenant=tenant) is None:
            return False
        self._drop(chat_id)
        return True

    async def delete_chats(self, *, tenant: str, user: str | None = None) -> list[ChatRecord]:
        """Delete every chat of a tenant (or of one of its users)."""
        doomed = [
            chat
            for chat in self._chats.values()
            if chat.tenant == tenant and (user is None or chat.user == user)
        ]
        for chat in doomed:
            self._drop(chat.id)
        return sorted(doomed, key=lambda chat: chat.id)

    async def list_messages(
        self, chat_id: str, *, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages after a sequence, oldest first ([] for an unknown chat)."""
        stored = [
            item for item in self._messages.get(chat_id, []) if item.sequence > after_sequence
        ]
        return stored if limit is None else stored[:limit]

    async def load_state(
        self, chat_id: str, *, tail: int | None = None, with_user_memory: bool = False
    ) -> ChatState:
        """Smart load, as the database backends do it (user memory is kept elsewhere)."""
        chat = self._chat(chat_id)
        summaries = active_chain(self._summaries[chat_id])
        tail = self.smart_load_tail if tail is None else tail
        after = smart_load_after(chat, has_summary=bool(summaries), tail=tail)
        messages = tuple(item for item in self._messages[chat_id] if item.sequence > after)
        return ChatState(chat, summaries, messages, self._facts.get(chat_id, ()))

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Apply the turn all at once, or raise and change nothing."""
        chat = self._chat(commit.chat_id)
        ids = set(commit.append.lookup_ids)
        found = [item for item in self._messages[chat.id] if item.message.id in ids]
        if (retry := retry_of(chat, commit, found)) is not None:
            return retry
        check_commit(chat, commit)
        now = datetime.now(UTC)
        first = chat.message_count + 1
        stored = [
            StoredMessage(chat.id, first + i, m) for i, m in enumerate(commit.append.messages)
        ]
        chain = list(self._summaries[chat.id])
        written = [self._write_row(chain, row, now) for row in commit.summary.rows]
        facts = commit.facts_after(self._facts.get(chat.id, ()))
        chat = chat_after(chat, commit, added=len(stored), now=now)
        if facts is not None:
            self._facts[chat.id] = tuple(dict(fact) for fact in facts)
        self._commit(chat, chain, stored)
        return CommitResult(chat, tuple(stored), tuple(written))

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        chat = self._chats.get(chat_id)
        if chat is None or incarnation not in (None, chat.incarnation):
            return False
        if sequence > chat.indexed_sequence:
            top = min(sequence, chat.message_count)
            self._chats[chat_id] = replace(chat, indexed_sequence=top)
        return True

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """``mark_indexed`` for several chats; the ids of those that no longer exist."""
        known = incarnations or {}
        return {
            chat_id
            for chat_id, sequence in watermarks.items()
            if not await self.mark_indexed(chat_id, sequence, incarnation=known.get(chat_id))
        }

    async def index_backlog(
        self, *, limit: int = 100, chat_ids: Sequence[str] | None = None
    ) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first."""
        wanted = None if chat_ids is None else set(chat_ids)
        behind = [
            chat
            for chat in self._chats.values()
            if chat.index_lag > 0 and (wanted is None or chat.id in wanted)
        ]
        behind.sort(key=lambda chat: (chat.updated_at or datetime.min.replace(tzinfo=UTC), chat.id))
        return behind[:limit]

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        ids = [chat_id] if chat_id is not None else sorted(self._chats)
        reset = [replace(self._chats[i], indexed_sequence=0) for i in ids if i in self._chats]
        for chat in reset:
            self._chats[chat.id] = chat
        return reset

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        return list(self._summaries.get(chat_id, []))

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a row; bumps its version and the chat's summary version."""
        for chat_id, chain in self._summaries.items():
            if any(row.id == summary_id for row in chain):
                chain = list(chain)
                row = self._patch(chain, chat_id, summary_id, patch, datetime.now(UTC))
                chat = self._chats[chat_id]
                chat = replace(chat, summary_version=chat.summary_version + 1)
                self._commit(replace(chat, updated_at=row.updated_at), chain, [])
                return row
        raise NotFoundError(f"update_summary: no summary row with id {summary_id}")

    async def begin_forget(
        self, chat_id: str, sequences: Sequence[int], *, tenant: str | None = None
    ) -> PendingForget:
        """Delete the messages and record the pending forget (see ``ForgetStore``)."""
        chat = self._chat(chat_id)
        if tenant is not None and chat.tenant != tenant:
            raise NotFoundError(f"no chat with id {chat_id!r}")
        wanted = set(sequences)
        kept = [item for item in self._messages[chat_id] if item.sequence not in wanted]
        gone = [item for item in self._messages[chat_id] if item.sequence in wanted]
        self._messages[chat_id] = kept
        chars = sum(len(item.message.content) for item in gone)
        self._chats[chat_id] = replace(chat, content_chars=max(0, chat.content_chars - chars))
        before = self._forgets.get(chat_id)
        merged = tuple(sorted(wanted | set(before.sequences if before else ())))
        now = before.requested_at if before else datetime.now(UTC)
        deleted = tuple(item.sequence for item in gone)
        self._forgets[chat_id] = PendingForget(chat_id, merged, (), now)
        return PendingForget(chat_id, merged, deleted, now)

    async def pending_forgets(self, chat_id: str | None = None) -> list[PendingForget]:
        """Forgets whose rewrite is still owed."""
        found = [item for key, item in self._forgets.items() if chat_id in (None, key)]
        return sorted(found, key=lambda item: item.requested_at or datetime.min.replace(tzinfo=UTC))

    async def finish_forget(self, rewrite: ForgetRewrite) -> ChatRecord:
        """Write the rewrite and drop the pending record, all at once."""
        chat = self._chat(rewrite.chat_id)
        expected = rewrite.expected_summary_version
        if expected is not None and expected != chat.summary_version:
            raise ConflictError(f"chat {chat.id!r}: the summary changed while forgetting")
        now = datetime.now(UTC)
        chain = [row for row in self._summaries[chat.id] if row.id not in set(rewrite.cut)]
        for row in rewrite.rows:
            assert row.id is not None
            self._patch(chain, chat.id, row.id, SummaryPatch.from_row(row), now)
        self._facts[chat.id] = tuple(dict(fact) for fact in rewrite.facts)
        title = chat.title if rewrite.title is None else rewrite.title
        chat = replace(chat, title=title, summary_version=chat.summary_version + 1, updated_at=now)
        self._commit(chat, chain, [])
        self._forgets.pop(chat.id, None)
        return chat

    def _drop(self, chat_id: str) -> None:
        del self._chats[chat_id], self._messages[chat_id], self._summaries[chat_id]
        self._facts.pop(chat_id, None)
        self._forgets.pop(chat_id, None)

    def _chat(self, chat_id: str) -> ChatRecord:
        chat = self._chats.get(chat_id)
        if chat is None:
            raise NotFoundError(f"no chat with id {chat_id!r}; create it first with create_chat()")
        return chat

    def _commit(
        self, chat: ChatRecord, chain: list[SummaryRow], stored: list[StoredMessage]
    ) -> None:
        self._chats[chat.id] = chat
        self._summaries[chat.id] = chain
        self._messages[chat.id].extend(stored)

    def _write_row(self, chain: list[SummaryRow], row: SummaryRow, now: datetime) -> SummaryRow:
        if row.id is not None:
            return self._patch(chain, row.chat_id, row.id, SummaryPatch.from_row(row), now)
        new = replace(
            row,
            id=self._next_summary_id,
            sequence=(chain[-1].sequence if chain else 0) + 1,
            version=1,
            created_at=now,
            updated_at=now,
        )
        self._next_summary_id += 1
        chain.append(new)
        return new

    @staticmethod
    def _patch(
        chain: list[SummaryRow],
        chat_id: str,
        summary_id: int,
        patch: SummaryPatch,
        now: datetime,
    ) -> SummaryRow:
        for index, row in enumerate(chain):
            if row.id == summary_id:
                new = replace(row, **patch.values(), version=row.version + 1, updated_at=now)  # type: ignore[arg-type]
                chain[index] = new
                return new
        raise NotFoundError(f"chat {chat_id!r} has no summary row with id {summary_id}")
