"""``AsyncMemory`` and ``AsyncChat``: the one implementation of the front door."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from longtalk.core.context import ContextPart
from longtalk.core.limits import check_messages
from longtalk.core.messages import Message, Role
from longtalk.engine import MemoryEngine, SummarizeOutcome
from longtalk.errors import StorageError, UsageError
from longtalk.factory import open_memory
from longtalk.memory.context import Context
from longtalk.memory.handle import ChatHandle
from longtalk.memory.sources import (
    USER_MEMORY_SHARE,
    USER_MEMORY_TOKENS,
    Source,
    SummarizeMode,
    resolve_settings,
)
from longtalk.storage.base import ChatRecord, StoredMessage
from longtalk.storage.user_memory import (
    UserFact,
    UserFactKind,
    UserMemoryStore,
    check_kind,
    user_memory_for,
)
from longtalk.summary.user_facts import user_facts, user_part


class AsyncMemory:
    """Conversation memory: chats you append to and ask for a bounded context.

    Args:
        source: ``None`` (embedded defaults), ``Settings``, a ``MemoryConfig``, a mapping
            shaped like ``agents.yaml``, an ``agents.yaml`` path, or a storage URL
            (``sqlite:///chats.db``, ``postgresql://...``, ``memory:``).
        tenant: The tenant every chat of this memory belongs to.
        agent: The ``agents[]`` entry whose prompts the summary model uses.
        summarize: When ``append`` extends the running summary (see ``SummarizeMode``).
        user_memory_tokens: The most tokens of a context that what is known about the user
            from earlier chats may take (at most a quarter of the budget); 0 leaves it out.
        engine: An engine you built yourself; it is used as is and not closed here.
    """

    def __init__(
        self,
        source: Source = None,
        *,
        tenant: str = "default",
        agent: str | None = None,
        summarize: SummarizeMode = "inline",
        user_memory_tokens: int = USER_MEMORY_TOKENS,
        engine: MemoryEngine | None = None,
    ) -> None:
        if user_memory_tokens < 0:
            raise UsageError(f"user_memory_tokens must be 0 or more, not {user_memory_tokens}")
        if summarize not in ("inline", "background", "off"):
            raise UsageError(f"summarize must be inline, background or off, not {summarize!r}")
        if engine is not None and source is not None:
            raise UsageError("give either a source or an engine, not both")
        self.settings = None if engine is not None else resolve_settings(source)
        self.tenant = tenant
        self.summarize_mode: SummarizeMode = summarize
        self._agent = agent
        self._engine = engine
        self._stack: AsyncExitStack | None = None
        self._lock = asyncio.Lock()
        self._tasks: dict[str, asyncio.Task[SummarizeOutcome]] = {}
        self._closed = False
        self.user_memory_tokens = user_memory_tokens
        self._users: UserMemoryStore | None = None

    async def open(self) -> MemoryEngine:
        """Open the storage and vector store (idempotent); called on first use."""
        if self._closed:
            raise UsageError("this memory is closed: open a new one")
        async with self._lock:
            if self._engine is None:
                assert self.settings is not None
                stack = AsyncExitStack()
                memory = open_memory(self.settings, agent=self._agent)
                self._engine = await stack.enter_async_context(memory)
                self._stack = stack
            if self._users is None:
                self._users = user_memory_for(self._engine.storage)
            return self._engine

    @property
    def users(self) -> UserMemoryStore:
        """The store of what is kept about users across chats (after ``open()``)."""
        if self._users is None:
            raise UsageError("the memory is not open yet: await memory.open() or use it first")
        return self._users

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath (after ``open()`` or first use)."""
        if self._engine is None:
            raise UsageError("the memory is not open yet: await memory.open() or use it first")
        return self._engine

    async def aclose(self) -> None:
        """Wait for background summaries, then close what this memory opened."""
        if self._closed:
            return
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        if self._stack is not None:
            await self._stack.aclose()

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> AsyncChat:
        """The chat ``chat_id``, created if it does not exist (a new id when None).

        ``user`` and ``title`` are set when the chat is created; an existing chat keeps its own.
        """
        engine = await self.open()
        record = await engine.storage.get_chat(chat_id, tenant=self.tenant) if chat_id else None
        if record is None:
            try:
                record = await engine.create_chat(
                    chat_id, tenant=self.tenant, user=user, title=title
                )
            except StorageError:
                record = await engine.storage.get_chat(chat_id or "", tenant=self.tenant)
                if record is None:  # the id belongs to another tenant
                    raise
        return AsyncChat(self, record)

    async def get(self, chat_id: str) -> AsyncChat | None:
        """The chat ``chat_id``, or None when there is none."""
        engine = await self.open()
        record = await engine.storage.get_chat(chat_id, tenant=self.tenant)
        return None if record is None else AsyncChat(self, record)

    async def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats of this memory's tenant, most recently updated first."""
        engine = await self.open()
        return await engine.storage.list_chats(tenant=self.tenant, limit=limit, offset=offset)

    async def delete(self, chat_id: str) -> bool:
        """Delete a chat with everything stored for it; False if there was none.

        Its messages, summaries and recall vectors go, and what its user's memory took from it.
        """
        engine = await self.open()
        record = await engine.storage.get_chat(chat_id, tenant=self.tenant)
        if record is not None and record.user is not None:
            await self.users.forget(self.tenant, record.user, chat_id=chat_id)
        return await engine.delete_chat(chat_id, tenant=self.tenant)

    # -- user memory across chats ---------------------------------------------------------

    async def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user``: facts, preferences, profile lines, with provenance."""
        await self.open()
        return await self.users.items(self.tenant, user)

    async def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        check_kind(kind)
        if not text.strip():
            raise UsageError("nothing to remember: the text is empty")
        await self.open()
        (stored,) = await self.users.add(self.tenant, user, [UserFact(kind, text.strip())])
        return stored

    async def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user``; returns how many items went.

        Only the items ``ids``, or only those taken from ``chat_id``, when given.
        """
        await self.open()
        return await self.users.forget(self.tenant, user, ids=ids, chat_id=chat_id)

    async def summarize(self, record: ChatRecord, *, force: bool = False) -> SummarizeOutcome:
        """Extend a chat's summary; when it changed, refresh what its user's memory took."""
        outcome = await self.engine.summarize(record.id, force=force)
        if outcome.changed and record.user is not None:
            rows = await self.engine.storage.list_summaries(record.id)
            await self.users.replace_derived(
                self.tenant, record.user, record.id, user_facts(record.id, rows)
            )
        return outcome

    def _after_append(self, record: ChatRecord) -> Awaitable[SummarizeOutcome] | None:
        """The summary work an append leaves, per the summarize mode."""
        chat_id = record.id
        if self.summarize_mode == "off":
            return None
        if self.summarize_mode == "inline":
            return self.summarize(record)
        running = self._tasks.get(chat_id)
        if running is None or running.done():
            task = asyncio.get_running_loop().create_task(self.summarize(record))
            self._tasks[chat_id] = task
            task.add_done_callback(lambda done: self._forget(chat_id, done))
        return None

    def _forget(self, chat_id: str, task: asyncio.Task[SummarizeOutcome]) -> None:
        if self._tasks.get(chat_id) is task:
            del self._tasks[chat_id]


class AsyncChat(ChatHandle):
    """One chat of an :class:`AsyncMemory`: append messages, ask for a context."""

    def __init__(self, memory: AsyncMemory, record: ChatRecord) -> None:
        super().__init__(record)
        self.memory = memory

    async def append(
        self,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message; ``metadata`` is kept with it.

        ``message_id`` makes a retried append a no-op. The running summary is then extended
        when its trigger holds, as the memory's ``summarize`` mode says.
        """
        message = build_message(role, content, name, timestamp, message_id, metadata)
        (stored,) = await self.extend([message])
        return stored

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction (``Message`` values or role/content dicts)."""
        batch = [
            item if isinstance(item, Message) else message_from_mapping(item) for item in messages
        ]
        if not batch:
            return []
        engine = await self.memory.open()
        check_messages(batch, engine.limits)  # the input gate: nothing stored past a limit
        stored = await engine.add_messages(self.id, batch)
        pending = self.memory._after_append(self.record)
        if pending is not None:
            await pending  # a failing summary model leaves the last good summary (logged)
        return stored

    async def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The context for ``query``: [recalled turns] [summary] [recent window].

        Without a query nothing is recalled. The numbers default to the configuration.
        """
        engine = await self.memory.open()
        budget = budget_tokens or engine.config.context_max_tokens
        part, shown = await self._known_about_user(budget, engine)
        assembled = await engine.get_context(
            self.id,
            query,
            budget_tokens=budget - (part.tokens + 1 if part else 0),
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return Context(assembled, part, shown)

    async def _known_about_user(
        self, budget: int, engine: MemoryEngine
    ) -> tuple[ContextPart | None, tuple[UserFact, ...]]:
        """The user part: what earlier chats of this chat's user left, within its cap."""
        cap = min(self.memory.user_memory_tokens, budget // USER_MEMORY_SHARE)
        if self.user is None or cap <= 0:
            return None, ()
        facts = await self.memory.users.items(self.memory.tenant, self.user)
        elsewhere = [fact for fact in facts if fact.chat_id != self.id]
        return user_part(self.user, elsewhere, cap, engine.counter)

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        engine = await self.memory.open()
        return await engine.storage.list_messages(self.id)

    async def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``)."""
        await self.memory.open()
        return await self.memory.summarize(self.record, force=force)

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self.memory.delete(self.id)


def build_message(
    role: Role | str,
    content: str,
    name: str | None,
    timestamp: datetime | None,
    message_id: str | None,
    metadata: dict[str, Any],
) -> Message:
    """A message from ``append``'s arguments; a bad role or content is a ``UsageError``."""
    try:
        kind = Role(role)
    except ValueError:
        roles = ", ".join(item.value for item in Role)
        raise UsageError(f"unknown role {role!r}: use one of {roles}") from None
    if not isinstance(content, str):
        raise UsageError(f"content must be a string, not {type(content).__name__}")
    return Message(
        role=kind,
        content=content,
        name=name,
        timestamp=timestamp,
        id=message_id,
        metadata=metadata,
    )


def message_from_mapping(item: Mapping[str, Any]) -> Message:
    """A ``{"role", "content", ...}`` dict as a message; other keys become metadata."""
    if "role" not in item or "content" not in item:
        raise UsageError(f"a message needs 'role' and 'content', got keys {sorted(item)}")
    rest = {key: value for key, value in item.items() if key not in ("role", "content")}
    name, timestamp = rest.pop("name", None), rest.pop("timestamp", None)
    message_id = rest.pop("id", None)
    return build_message(item["role"], item["content"], name, timestamp, message_id, rest)
