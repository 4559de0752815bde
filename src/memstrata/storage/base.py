"""The chat-storage seam and the records it stores.

Messages and summaries are values (``memstrata.core``); ids, sequences and versions are
storage's business and live on these records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

from memstrata.core.messages import Message

SummaryFormat = Literal["text", "json"]
DEFAULT_SMART_LOAD_TAIL = 4


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A chat and its summary bookkeeping.

    ``last_summarized_sequence`` is the sequence of the newest message folded into the
    summary chain (0 when none); ``summary_version`` increases with every summary change and
    is what a commit compares-and-swaps on.
    """

    id: str
    tenant: str = "default"
    user: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    message_count: int = 0
    last_summarized_sequence: int = 0
    summary_version: int = 0


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as stored: its position in the chat (1-based, gapless) and its value."""

    chat_id: str
    sequence: int
    message: Message


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One row of a chat's summary chain (seed 002), covering episodes first..last."""

    chat_id: str
    sequence: int
    summary_text: str
    format: SummaryFormat = "text"
    episode_first: int = 0
    episode_last: int = 0
    turn_number: int = 0
    token_count: int = 0
    version: int = 1
    id: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def episode_range(self) -> str:
        """``"first-last"``, as seed 002 stores it."""
        return f"{self.episode_first}-{self.episode_last}"


@dataclass(frozen=True, slots=True)
class SummaryPatch:
    """A partial update of a summary row (seed 002's PATCH /summaries/{id})."""

    summary_text: str | None = None
    token_count: int | None = None
    episode_first: int | None = None
    episode_last: int | None = None
    format: SummaryFormat | None = None


@dataclass(frozen=True, slots=True)
class ChatState:
    """What a turn starts from: the chat, its summary chain, and the loaded messages.

    With a summary, ``messages`` holds the unsummarized messages plus at least the last
    ``tail`` (seed 003's smart loading); without one, every message.
    """

    chat: ChatRecord
    summaries: tuple[SummaryRow, ...] = ()
    messages: tuple[StoredMessage, ...] = ()

    @property
    def latest_summary(self) -> SummaryRow | None:
        """The newest row of the chain."""
        return self.summaries[-1] if self.summaries else None


@dataclass(frozen=True, slots=True)
class TurnCommit:
    """Everything one turn writes, in one transaction.

    ``summaries`` are rows to insert (``id`` None) or replace (``id`` set).
    ``expected_summary_version`` makes the summary part a compare-and-swap: when the chat's
    version differs, nothing is written and ``ConflictError`` is raised. It is only checked
    when the commit changes summaries.
    """

    chat_id: str
    new_messages: Sequence[Message] = ()
    summaries: Sequence[SummaryRow] = ()
    title: str | None = None
    last_summarized_sequence: int | None = None
    expected_summary_version: int | None = None


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What a commit wrote: the stored messages and the chat afterwards."""

    chat: ChatRecord
    messages: tuple[StoredMessage, ...] = ()
    summaries: tuple[SummaryRow, ...] = field(default_factory=tuple)


@runtime_checkable
class ChatStorage(Protocol):
    """Where chats, messages and summary chains live. Every method is one transaction."""

    async def setup(self) -> None:
        """Create or migrate the schema; idempotent."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...

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

    async def load_state(self, chat_id: str, *, tail: int = DEFAULT_SMART_LOAD_TAIL) -> ChatState:
        """Smart load: the summary chain, unsummarized messages and at least the last ``tail``."""
        ...

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically; ``ConflictError`` when the summary CAS fails."""
        ...

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        ...

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Insert a summary row (seed 002's POST /summaries)."""
        ...

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a summary row (seed 002's PATCH /summaries/{id})."""
        ...
