"""The front door: ``AsyncMemory`` and ``Memory``, its thin synchronous wrapper.

::

    with Memory() as memory:                      # embedded defaults, nothing to run
        chat = memory.chat("trip", user="priya")  # gets the chat, or creates it
        chat.append("user", question)
        context = chat.context(question)          # [recalled] [summary] [recent window]
        reply = call_your_model(context.messages)  # OpenAI-style {"role", "content"} dicts
        chat.append("assistant", reply)

``AsyncMemory`` is the one implementation; ``Memory`` runs it on a private event loop in a
thread of its own, so it works the same from plain scripts, threads and notebooks whose
own loop is already running. Both open on the embedded defaults (SQLite, Qdrant's engine
in-process, the bundled MiniLM model, the offline summarizer), or from ``Settings``, a
configuration mapping, an ``agents.yaml`` path or a storage URL, and close as context
managers. ``memory.engine`` is the :class:`~memstrata.engine.MemoryEngine` underneath.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine, Iterable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

from memstrata.config import MemoryConfig, Settings, load_settings, parse_settings
from memstrata.config import apply_env_overrides as _apply_env
from memstrata.core.context import AssembledContext, ContextPart
from memstrata.core.messages import Message, MessageType, Role
from memstrata.engine import MemoryEngine, SummarizeOutcome
from memstrata.errors import StorageError, UsageError
from memstrata.factory import open_memory
from memstrata.storage.base import ChatRecord, StoredMessage

__all__ = ["AsyncChat", "AsyncMemory", "Chat", "Context", "Memory", "SummarizeMode"]

T = TypeVar("T")
Source = Settings | MemoryConfig | Mapping[str, Any] | str | Path | None
SummarizeMode = Literal["inline", "background", "off"]
"""When ``append`` extends the running summary: ``inline`` (before it returns, when the
trigger holds), ``background`` (in a task; ``aclose`` waits for it), ``off`` (only
``chat.summarize()``)."""
URL_PREFIXES = ("sqlite:", "postgresql:", "postgresql+", "postgres:", "memory:", "none:")


def resolve_settings(source: Source = None) -> Settings:
    """``Settings`` from any accepted source; ``MEMSTRATA_*`` environment overrides apply.

    ``None``: the embedded defaults. A ``str`` that starts with a storage scheme
    (``sqlite:``, ``postgresql:``, ``memory:``) is a storage URL, any other ``str`` or
    ``Path`` an ``agents.yaml`` file. A ``MemoryConfig`` is the ``supervisor.memory`` block.
    """
    if source is None or isinstance(source, Path):
        return load_settings(source)
    if isinstance(source, Settings):
        return source
    if isinstance(source, MemoryConfig):
        return Settings.model_validate({"supervisor": {"memory": source}})
    if isinstance(source, str):
        if source.strip().lower().startswith(URL_PREFIXES):
            return _from_mapping({"storage": {"url": source.strip()}})
        return load_settings(source)
    if isinstance(source, Mapping):
        return _from_mapping(source)
    raise UsageError(
        f"cannot open memory from a {type(source).__name__}: give Settings, a MemoryConfig, "
        "a mapping, an agents.yaml path or a storage URL"
    )


def _from_mapping(data: Mapping[str, Any]) -> Settings:
    import copy
    import os

    merged = copy.deepcopy(dict(data))
    _apply_env(merged, os.environ)
    return parse_settings(merged)


# -- the context ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Context:
    """What to send the model for one turn, with where every part came from.

    ``messages`` are OpenAI-style ``{"role", "content"}`` dicts: the recalled turns and the
    summary as one system message, then the recent window with its real roles. ``text`` is
    the whole context as one string; ``parts`` are the assembled parts (kind, text, token
    count, message sequences, recall scores, summary episode ranges). ``assembled`` is the
    engine's full result.
    """

    assembled: AssembledContext

    @property
    def parts(self) -> tuple[ContextPart, ...]:
        """The parts in order: recalled, summary, verbatim (the ones present)."""
        return self.assembled.parts

    @property
    def text(self) -> str:
        """The whole context as one string, parts separated by blank lines."""
        return self.assembled.render()

    @property
    def tokens(self) -> int:
        """Tokens the context uses (the sum of its parts)."""
        return self.assembled.tokens_used

    @property
    def budget_tokens(self) -> int:
        """The budget it was assembled under."""
        return self.assembled.budget_tokens

    @property
    def messages(self) -> list[dict[str, str]]:
        """The messages to send: see :meth:`to_messages`."""
        return self.to_messages()

    def to_messages(self, system: str | None = None) -> list[dict[str, str]]:
        """The context as chat messages, ``system`` (your instructions) leading the preamble.

        Tool calls and tool results become assistant messages marked ``[tool call]`` /
        ``[tool result]``: a bare ``{"role", "content"}`` message cannot carry call ids.
        """
        preamble = [text for text in (system, self.assembled.preamble()) if text]
        if not self.assembled.window_intact:
            preamble.append(
                f"[{self.assembled.dropped_verbatim} older messages of the recent "
                "conversation did not fit and are left out]"
            )
        shown: list[dict[str, str]] = []
        if preamble:
            shown.append({"role": "system", "content": "\n\n".join(preamble)})
        shown += [_as_chat_message(message) for message in self.assembled.verbatim]
        return shown


def _as_chat_message(message: Message) -> dict[str, str]:
    if message.type == MessageType.TOOL or message.role == Role.TOOL:
        mark = "[tool result]" if message.role == Role.TOOL else "[tool call]"
        return {"role": "assistant", "content": f"{mark} {message.content}"}
    return {"role": message.role.value, "content": message.content}


# -- async ----------------------------------------------------------------------------------


class AsyncMemory:
    """Conversation memory: chats you append to and ask for a bounded context.

    Args:
        source: ``None`` (embedded defaults), ``Settings``, a ``MemoryConfig``, a mapping
            shaped like ``agents.yaml``, an ``agents.yaml`` path, or a storage URL
            (``sqlite:///chats.db``, ``postgresql://...``, ``memory:``).
        tenant: The tenant every chat of this memory belongs to.
        agent: The ``agents[]`` entry whose prompts the summary model uses.
        summarize: When ``append`` extends the running summary (see ``SummarizeMode``).
        engine: An engine you built yourself; it is used as is and not closed here.
    """

    def __init__(
        self,
        source: Source = None,
        *,
        tenant: str = "default",
        agent: str | None = None,
        summarize: SummarizeMode = "inline",
        engine: MemoryEngine | None = None,
    ) -> None:
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
            return self._engine

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
        """Delete a chat with its messages, summaries and recall vectors; False if none."""
        engine = await self.open()
        return await engine.delete_chat(chat_id, tenant=self.tenant)

    def _after_append(self, chat_id: str) -> Awaitable[SummarizeOutcome] | None:
        """The summary work an append leaves, per the summarize mode."""
        if self.summarize_mode == "off":
            return None
        if self.summarize_mode == "inline":
            return self.engine.summarize(chat_id)
        running = self._tasks.get(chat_id)
        if running is None or running.done():
            task = asyncio.get_running_loop().create_task(self.engine.summarize(chat_id))
            self._tasks[chat_id] = task
            task.add_done_callback(lambda done: self._forget(chat_id, done))
        return None

    def _forget(self, chat_id: str, task: asyncio.Task[SummarizeOutcome]) -> None:
        if self._tasks.get(chat_id) is task:
            del self._tasks[chat_id]


class AsyncChat:
    """One chat of an :class:`AsyncMemory`: append messages, ask for a context."""

    def __init__(self, memory: AsyncMemory, record: ChatRecord) -> None:
        self.memory = memory
        self.record = record

    @property
    def id(self) -> str:
        """The chat id."""
        return self.record.id

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""
        return self.record.user

    def __repr__(self) -> str:
        return f"AsyncChat(id={self.id!r}, user={self.user!r})"

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
        message = _message(role, content, name, timestamp, message_id, metadata)
        (stored,) = await self.extend([message])
        return stored

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction (``Message`` values or role/content dicts)."""
        batch = [
            item if isinstance(item, Message) else _from_mapping_message(item) for item in messages
        ]
        if not batch:
            return []
        engine = await self.memory.open()
        stored = await engine.add_messages(self.id, batch)
        pending = self.memory._after_append(self.id)
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
        assembled = await engine.get_context(
            self.id,
            query,
            budget_tokens=budget_tokens,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return Context(assembled)

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        engine = await self.memory.open()
        return await engine.storage.list_messages(self.id)

    async def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``)."""
        engine = await self.memory.open()
        return await engine.summarize(self.id, force=force)

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self.memory.delete(self.id)


def _message(
    role: Role | str,
    content: str,
    name: str | None,
    timestamp: datetime | None,
    message_id: str | None,
    metadata: dict[str, Any],
) -> Message:
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


def _from_mapping_message(item: Mapping[str, Any]) -> Message:
    """A ``{"role", "content", ...}`` dict as a message; other keys become metadata."""
    if "role" not in item or "content" not in item:
        raise UsageError(f"a message needs 'role' and 'content', got keys {sorted(item)}")
    rest = {key: value for key, value in item.items() if key not in ("role", "content")}
    name, timestamp = rest.pop("name", None), rest.pop("timestamp", None)
    message_id = rest.pop("id", None)
    return _message(item["role"], item["content"], name, timestamp, message_id, rest)


# -- sync -----------------------------------------------------------------------------------


class _LoopThread:
    """A private event loop on a daemon thread; ``run`` waits for a coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="memstrata-loop", daemon=True
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
        summarize: SummarizeMode = "inline",
        engine: MemoryEngine | None = None,
    ) -> None:
        self._async = AsyncMemory(
            source, tenant=tenant, agent=agent, summarize=summarize, engine=engine
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
        """Delete a chat with its messages, summaries and recall vectors; False if none."""
        return self._runner.run(self._async.delete(chat_id))


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
        """The chat's record as it was when opened."""
        return self.aio.record

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

    def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``)."""
        return self._runner.run(self.aio.summarize(force=force))

    def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return self._runner.run(self.aio.delete())
