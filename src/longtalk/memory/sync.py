"""``Memory`` and ``Chat``: ``AsyncMemory`` run on a private event loop in its own thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar

from longtalk.config import Settings
from longtalk.core.context import Context
from longtalk.core.messages import Message, Role
from longtalk.engine import ForgetReceipt, MemoryEngine, SummarizeOutcome
from longtalk.errors import UsageError
from longtalk.facts.model import DurableFact
from longtalk.memory.async_memory import AsyncChat, AsyncMemory
from longtalk.memory.sources import Source, SummarizeMode
from longtalk.storage.base import ChatRecord, StoredMessage
from longtalk.storage.user_memory import UserFact, UserFactKind

T = TypeVar("T")


class _LoopThread:
    """A private event loop on a daemon thread; ``run`` waits for a coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="longtalk-loop", daemon=True
        )
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise UsageError("Memory was called from its own loop: use AsyncMemory in async code")
        if self.loop.is_closed():
            coroutine.close()
            raise UsageError("this memory is closed: open a new one")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class Memory:
    """The synchronous front door: :class:`AsyncMemory` run on a private event loop.

    Takes the same arguments as ``AsyncMemory``; use it as a context manager or ``close()`` it.
    """

    def __init__(
        self,
        source: Source = None,
        *,
        tenant: str = "default",
        agent: str | None = None,
        summarize: SummarizeMode = "background",
        user_memory_tokens: int | None = None,
        engine: MemoryEngine | None = None,
    ) -> None:
        self._async = AsyncMemory(
            source,
            tenant=tenant,
            agent=agent,
            summarize=summarize,
            user_memory_tokens=user_memory_tokens,
            engine=engine,
        )
        self._runner = _LoopThread()

    @property
    def aio(self) -> AsyncMemory:
        """The ``AsyncMemory`` underneath (its coroutines run on this memory's loop only)."""
        return self._async

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath (opened on first use)."""
        return self._runner.run(self._async.open())

    @property
    def settings(self) -> Settings | None:
        """The resolved settings (None for a memory built on your own engine)."""
        return self._async.settings

    def open(self) -> Self:
        """Open the storage and vector store now instead of on first use."""
        self._runner.run(self._async.open())
        return self

    def settle(self) -> None:
        """Wait until every background summary queued so far has run."""
        self._runner.run(self._async.settle())

    def close(self) -> None:
        """Wait for background summaries, close what was opened, stop the loop."""
        if self._runner.loop.is_closed():
            return
        try:
            self._runner.run(self._async.aclose())
        finally:
            self._runner.stop()

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> Chat:
        """The chat ``chat_id``, created if it does not exist (see ``AsyncMemory.chat``)."""
        return Chat(
            self._runner, self._runner.run(self._async.chat(chat_id, user=user, title=title))
        )

    def get(self, chat_id: str) -> Chat | None:
        """The chat ``chat_id``, or None when there is none."""
        found = self._runner.run(self._async.get(chat_id))
        return None if found is None else Chat(self._runner, found)

    def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats of this memory's tenant, most recently updated first."""
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
        """Delete what is kept about ``user`` (see ``AsyncMemory.forget``)."""
        return self._runner.run(self._async.forget(user, ids=ids, chat_id=chat_id))


class Chat:
    """One chat of a :class:`Memory`: the synchronous face of :class:`AsyncChat`."""

    def __init__(self, runner: _LoopThread, chat: AsyncChat) -> None:
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
        """The chat's record, read now: title, message count, summary cost and backoff."""
        return self._runner.run(self.aio.refresh())

    def __repr__(self) -> str:
        return f"Chat(id={self.id!r}, user={self.user!r})"

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
        """Store one message (see ``AsyncChat.append``)."""
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
        """The context for ``query`` (see ``AsyncChat.context``)."""
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
        """The chat's durable facts (see ``AsyncChat.facts``)."""
        return self._runner.run(self.aio.facts())

    def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``)."""
        return self._runner.run(self.aio.summarize(force=force))

    def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return self._runner.run(self.aio.delete())

    def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere (see ``AsyncChat.forget``); the receipt."""
        return self._runner.run(self.aio.forget(sequences))

    def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten (see ``AsyncChat.forget_fact``)."""
        return self._runner.run(self.aio.forget_fact(text))
