"""The synchronous face of an async door: its coroutines run on a private loop in a thread.

``Memory`` wraps ``AsyncMemory`` and ``Client`` wraps ``AsyncClient`` with these, so the
chat API is written once per transport (in its async form) and once here as the blocking
calls over it. A door's own extras (the library's ``summarize(force=)``, ``settle()``) are
added by its subclass. Nothing here loads the engine, so the HTTP client can use it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

from longtalk.core.receipt import ForgetReceipt
from longtalk.errors import UsageError
from longtalk.memory.api import AsyncChatAPI, AsyncMemoryAPI

if TYPE_CHECKING:
    from longtalk.core.context import Context
    from longtalk.core.messages import Message, Role
    from longtalk.facts.durable_fact import DurableFact
    from longtalk.storage.base import ChatRecord, StoredMessage
    from longtalk.storage.user_memory import UserFact, UserFactKind

__all__ = ["BlockingChat", "BlockingMemory", "LoopThread"]

T = TypeVar("T")


class LoopThread:
    """A private event loop on a daemon thread; ``run`` waits for a coroutine on it."""

    def __init__(self, door: str) -> None:
        self.door = door
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="longtalk-loop", daemon=True
        )
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, run on this loop (an error from its own thread)."""
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise UsageError(
                f"{self.door} was called from its own loop: use Async{self.door} in async code"
            )
        if self.loop.is_closed():
            coroutine.close()
            raise UsageError(f"this {self.door.lower()} is closed: open a new one")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    @property
    def stopped(self) -> bool:
        """Whether the loop has been stopped and closed."""
        return self.loop.is_closed()

    def stop(self) -> None:
        """Stop the loop and wait for its thread (a second call does nothing)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class AsyncChatDoor(AsyncChatAPI, Protocol):
    """An async door's chat: the chat API plus its user and forgetting."""

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""

    async def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere; the receipt."""

    async def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten; the receipt."""


C = TypeVar("C", bound=AsyncChatDoor)
M = TypeVar("M", bound=AsyncMemoryAPI)
W = TypeVar("W", bound="BlockingChat[Any]")


class BlockingChat(Generic[C]):
    """One chat of a blocking door: each call runs the async chat's on the door's loop."""

    def __init__(self, runner: LoopThread, chat: C) -> None:
        self._runner = runner
        self.aio = chat

    @property
    def id(self) -> str:
        """The chat id."""
        return self.aio.id

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""
        return self.aio.user

    @property
    def record(self) -> ChatRecord:
        """The chat's record as last read."""
        return self.aio.record

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, user={self.user!r})"

    def append(
        self,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message (``message_id`` makes a retry a no-op)."""
        call = self.aio.append(
            role, content, name=name, timestamp=timestamp, message_id=message_id, **metadata
        )
        return self._runner.run(call)

    def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction."""
        return self._runner.run(self.aio.extend(list(messages)))

    def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The bounded context for ``query``: [facts] [recalled] [summary] [recent window]."""
        call = self.aio.context(
            query,
            budget_tokens=budget_tokens,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return self._runner.run(call)

    def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        return self._runner.run(self.aio.messages())

    def facts(self) -> list[DurableFact]:
        """The chat's durable facts, merged, as its context shows them."""
        return self._runner.run(self.aio.facts())

    def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return self._runner.run(self.aio.delete())

    def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere and everything drawn from them; the receipt."""
        return self._runner.run(self.aio.forget(sequences))

    def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact (its text as ``facts()`` shows it) and keep it forgotten."""
        return self._runner.run(self.aio.forget_fact(text))


class BlockingMemory(Generic[M, W]):
    """A blocking door over an async one; its chats are wrapped in ``chat_class``."""

    chat_class: type[W]

    def __init__(self, door: str, memory: M) -> None:
        self._async = memory
        self._runner = LoopThread(door)

    @property
    def aio(self) -> M:
        """The async door underneath (its coroutines run on this door's loop only)."""
        return self._async

    def close(self) -> None:
        """Close the async door (waiting for what it waits for), then stop the loop."""
        if self._runner.stopped:
            return
        try:
            self._runner.run(self._async.aclose())
        finally:
            self._runner.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> W:
        """The chat ``chat_id``, created if it does not exist (a new id when None)."""
        found = self._runner.run(self._async.chat(chat_id, user=user, title=title))
        return self.chat_class(self._runner, found)

    def get(self, chat_id: str) -> W | None:
        """The chat ``chat_id``, or None when there is none."""
        found = self._runner.run(self._async.get(chat_id))
        return None if found is None else self.chat_class(self._runner, found)

    def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats of this tenant, most recently updated first."""
        return self._runner.run(self._async.chats(limit=limit, offset=offset))

    def delete(self, chat_id: str) -> bool:
        """Delete a chat with everything stored for it; False if there was none."""
        return self._runner.run(self._async.delete(chat_id))

    def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user`` across chats, with provenance."""
        return self._runner.run(self._async.user_memory(user))

    def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        return self._runner.run(self._async.remember(user, text, kind=kind))

    def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user`` (only ``ids``, or what ``chat_id`` left)."""
        return self._runner.run(self._async.forget(user, ids=ids, chat_id=chat_id))
