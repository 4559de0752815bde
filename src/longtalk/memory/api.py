"""The chat API every front door offers, named: the library's and the HTTP client's.

``Memory`` and ``Client`` implement :class:`MemoryAPI` (their chats :class:`ChatAPI`);
``AsyncMemory`` and ``AsyncClient`` implement :class:`AsyncMemoryAPI` (their chats
:class:`AsyncChatAPI`). Code written against these runs in process or against a served
memory unchanged. Each door adds its own beyond them: the library's ``engine``,
``settle()`` and ``summarize(force=)`` (which answers with the job's outcome), the client's
``summarize()`` (which answers with the service's body). The conformance test
(``tests/memory/test_chat_api.py``) checks every door against these, signature by signature.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from longtalk.core.messages import build_message

if TYPE_CHECKING:
    from longtalk.core.context import Context
    from longtalk.core.messages import Message, Role
    from longtalk.facts.durable_fact import DurableFact
    from longtalk.storage.base import ChatRecord, StoredMessage
    from longtalk.storage.user_memory import UserFact, UserFactKind

__all__ = [
    "AsyncChatAPI",
    "AsyncChatDirectory",
    "AsyncChatReading",
    "AsyncChatWriting",
    "AsyncMemoryAPI",
    "AsyncUserMemoryAPI",
    "ChatAPI",
    "ChatDirectory",
    "ChatReading",
    "ChatWriting",
    "MemoryAPI",
    "UserMemoryAPI",
]


@runtime_checkable
class ChatWriting(Protocol):
    """Writing to one chat: one message, or several in one transaction.

    ``append``'s ``self`` is positional-only, so ``metadata`` may carry any key and a
    blocking door can wrap the async declaration as it stands.
    """

    def append(
        self,
        /,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message (``message_id`` makes a retry a no-op)."""

    def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction."""


@runtime_checkable
class ChatReading(Protocol):
    """Reading one chat: the bounded context, the messages, the durable facts."""

    def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The bounded context for ``query``."""

    def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""

    def facts(self) -> list[DurableFact]:
        """The chat's durable facts, with provenance."""


@runtime_checkable
class ChatAPI(ChatWriting, ChatReading, Protocol):
    """One chat: append messages, ask for the context, read what is kept."""

    @property
    def id(self) -> str:
        """The chat's id."""

    @property
    def record(self) -> ChatRecord:
        """The chat's record as last read."""

    def delete(self) -> bool:
        """Delete the chat with everything stored for it."""


@runtime_checkable
class AsyncChatWriting(Protocol):
    """:class:`ChatWriting`, awaited.

    A door writes ``extend`` once for its transport and inherits ``append``, a batch of one.
    """

    async def append(
        self,
        /,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message (``message_id`` makes a retry a no-op); ``metadata`` is kept.

        The summary follows as the door's ``extend`` says: the library's in the background by
        default (the append never waits for the model), the service's in the background when
        due.
        """
        message = build_message(role, content, name, timestamp, message_id, metadata)
        (stored,) = await self.extend([message])
        return stored

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction."""


@runtime_checkable
class AsyncChatReading(Protocol):
    """:class:`ChatReading`, awaited."""

    async def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The bounded context for ``query``."""

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""

    async def facts(self) -> list[DurableFact]:
        """The chat's durable facts, with provenance."""


@runtime_checkable
class AsyncChatAPI(AsyncChatWriting, AsyncChatReading, Protocol):
    """:class:`ChatAPI`, awaited."""

    @property
    def id(self) -> str:
        """The chat's id."""

    @property
    def record(self) -> ChatRecord:
        """The chat's record as last read."""

    async def delete(self) -> bool:
        """Delete the chat with everything stored for it."""


@runtime_checkable
class ChatDirectory(Protocol):
    """The chats of a memory: open, find, list, delete."""

    def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> ChatAPI:
        """The chat ``chat_id``, created if it does not exist."""

    def get(self, chat_id: str) -> ChatAPI | None:
        """The chat ``chat_id``, or None."""

    def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats, most recently updated first."""

    def delete(self, chat_id: str) -> bool:
        """Delete a chat; False if there was none."""


@runtime_checkable
class UserMemoryAPI(Protocol):
    """What is kept about a user across chats."""

    def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user`` across chats."""

    def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user``."""

    def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user``; how many items went."""


@runtime_checkable
class MemoryAPI(ChatDirectory, UserMemoryAPI, Protocol):
    """A memory of chats and of what is kept about each user across them."""

    def close(self) -> None:
        """Release what the memory holds."""

    def __enter__(self) -> Self:
        """The memory, open."""

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the memory."""


@runtime_checkable
class AsyncChatDirectory(Protocol):
    """:class:`ChatDirectory`, awaited."""

    async def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> AsyncChatAPI:
        """The chat ``chat_id``, created if it does not exist."""

    async def get(self, chat_id: str) -> AsyncChatAPI | None:
        """The chat ``chat_id``, or None."""

    async def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats, most recently updated first."""

    async def delete(self, chat_id: str) -> bool:
        """Delete a chat; False if there was none."""


@runtime_checkable
class AsyncUserMemoryAPI(Protocol):
    """:class:`UserMemoryAPI`, awaited."""

    async def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user`` across chats."""

    async def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user``."""

    async def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user``; how many items went."""


@runtime_checkable
class AsyncMemoryAPI(AsyncChatDirectory, AsyncUserMemoryAPI, Protocol):
    """:class:`MemoryAPI`, awaited."""

    async def aclose(self) -> None:
        """Release what the memory holds."""

    async def __aenter__(self) -> Self:
        """The memory, open."""

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the memory (:meth:`aclose`)."""
        await self.aclose()
