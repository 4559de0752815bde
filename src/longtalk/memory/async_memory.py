"""``AsyncMemory`` and ``AsyncChat``: the one implementation of the front door."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Any, Self

from longtalk.core.context import Context
from longtalk.core.messages import Message, as_messages
from longtalk.engine import ForgetReceipt, MemoryEngine, SummarizeOutcome
from longtalk.errors import StorageError, UsageError
from longtalk.factory import open_memory
from longtalk.facts.durable_fact import DurableFact
from longtalk.jobs import LocalJobs
from longtalk.memory.api import AsyncMemoryAPI
from longtalk.memory.handle import ChatHandle, ContextNumbers
from longtalk.memory.sources import Source, SummarizeMode, resolve_settings
from longtalk.storage.base import ChatRecord, StoredMessage
from longtalk.storage.user_memory import UserFact, UserFactKind, UserMemoryStore, given_fact


class AsyncMemory(AsyncMemoryAPI):
    """Conversation memory: chats you append to and ask for a bounded context.

    Args:
        source: ``None`` (embedded defaults), ``Settings``, a ``MemoryConfig``, a mapping
            shaped like ``agents.yaml``, an ``agents.yaml`` path, or a storage URL
            (``sqlite:///chats.db``, ``postgresql://...``, ``memory:``).
        tenant: The tenant every chat of this memory belongs to.
        agent: The ``agents[]`` entry whose prompts the summary model uses.
        summarize: When the running summary is extended (see ``SummarizeMode``): in the
            background by default, so an append never waits for the model.
        user_memory_tokens: The most tokens of a context that what is known about the user
            from earlier chats may take (default: the configuration's); 0 leaves it out.
        engine: An engine you built yourself; it is used as is and not closed here.
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
        if user_memory_tokens is not None and user_memory_tokens < 0:
            raise UsageError(f"user_memory_tokens must be 0 or more, not {user_memory_tokens}")
        if summarize not in ("inline", "background", "off"):
            raise UsageError(f"summarize must be inline, background or off, not {summarize!r}")
        if engine is not None and source is not None:
            raise UsageError("give either a source or an engine, not both")
        self.settings = None if engine is not None else resolve_settings(source)
        self.tenant = tenant
        self.summarize_mode: SummarizeMode = summarize
        self.user_memory_tokens = user_memory_tokens
        self._agent = agent
        self._engine = engine
        self._jobs: LocalJobs | None = None
        self._stack: AsyncExitStack | None = None
        self._lock = asyncio.Lock()
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
                await self._engine.resume_forgets()
            if self._jobs is None and self.summarize_mode == "background":
                self._jobs = LocalJobs(self._engine)
                self._jobs.start()
            return self._engine

    @property
    def users(self) -> UserMemoryStore:
        """The store of what is kept about users across chats (after ``open()``)."""
        return self.engine.users

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath (after ``open()`` or first use)."""
        if self._engine is None:
            raise UsageError("the memory is not open yet: await memory.open() or use it first")
        return self._engine

    async def settle(self) -> None:
        """Wait until every background summary queued so far has run."""
        if self._jobs is not None:
            await self._jobs.drain()

    async def aclose(self) -> None:
        """Wait for background summaries, then close what this memory opened."""
        if self._closed:
            return
        self._closed = True
        if self._jobs is not None:
            await self._jobs.drain()
            await self._jobs.stop()
        if self._stack is not None:
            await self._stack.aclose()

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> AsyncChat:
        """The chat ``chat_id``, created if it does not exist (a new id when None).

        ``user`` and ``title`` are set when the chat is created (a title given here is the
        user's, never replaced by a generated one); an existing chat keeps its own.
        """
        engine = await self.open()
        engine.limits.chat(user, title, chat_id, id_field="chat_id")  # the input gate
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
        engine.limits.chat_id(chat_id)  # the input gate
        record = await engine.storage.get_chat(chat_id, tenant=self.tenant)
        return None if record is None else AsyncChat(self, record)

    async def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The chats of this memory's tenant, most recently updated first."""
        engine = await self.open()
        return await engine.storage.list_chats(tenant=self.tenant, limit=limit, offset=offset)

    async def delete(self, chat_id: str) -> bool:
        """Delete a chat with everything stored for it; False if there was none.

        Its messages, summaries, facts and recall vectors go, and what its user's memory
        took from it.
        """
        engine = await self.open()
        engine.limits.chat_id(chat_id)  # the input gate
        if self._jobs is not None:
            record = await engine.storage.get_chat(chat_id, tenant=self.tenant)
            if record is not None:
                self._jobs.forget(chat_id, incarnation=record.incarnation)
        return await engine.delete_chat(chat_id, tenant=self.tenant)

    # -- user memory across chats ---------------------------------------------------------

    async def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user``: facts, preferences, profile lines, with provenance."""
        (await self.open()).limits.user(user)  # the input gate
        return await self.users.items(self.tenant, user)

    async def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        engine = await self.open()
        engine.limits.user(user)  # the input gate, as for messages
        engine.limits.text("text", text, "max_message_chars")
        item = given_fact(text, kind)
        (stored,) = await self.users.add(self.tenant, user, [item])
        return stored

    async def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user``; returns how many items went.

        Only the items ``ids``, or only those taken from ``chat_id``, when given.
        """
        engine = await self.open()
        engine.limits.user(user)  # the input gate
        engine.limits.chat_id(chat_id)
        return await self.users.forget(self.tenant, user, ids=ids, chat_id=chat_id)

    # -- summaries --------------------------------------------------------------------------

    async def summarize(self, record: ChatRecord, *, force: bool = False) -> SummarizeOutcome:
        """Run a chat's summary job now and wait for it.

        When summaries run in the background it goes through the chat's queue, so one job
        per chat runs at a time.
        """
        engine = await self.open()
        if self._jobs is None:
            return await engine.summarize(record.id, force=force, incarnation=record.incarnation)
        if force:
            result = await self._jobs.run_now(record.id, incarnation=record.incarnation)
        else:
            result = await self._jobs.runner.run(
                record.id, force=False, incarnation=record.incarnation
            )
        return result.summary or SummarizeOutcome(skipped=result.outcome)

    async def _after_append(self, chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
        """What an append leaves: its turns indexed at once, the summary per the mode.

        A failing model backs off (logged); the append has been stored either way.
        """
        await self.engine.index_chat(chat.id)
        if self.summarize_mode == "inline":
            await self.engine.summarize(chat.id, incarnation=chat.incarnation)
        elif self._jobs is not None:
            await self._jobs.notify(chat.id, incarnation=chat.incarnation)


class AsyncChat(ChatHandle):
    """One chat of an :class:`AsyncMemory`: append messages, ask for a context."""

    def __init__(self, memory: AsyncMemory, record: ChatRecord) -> None:
        super().__init__(record)
        self.memory = memory

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction (``Message`` values or role/content dicts)."""
        batch = as_messages(messages)
        if not batch:
            return []
        engine = await self.memory.open()
        self.record, stored = await engine.append(
            self.id, batch, tenant=self.memory.tenant, after=self.memory._after_append
        )
        return stored

    async def read_context(self, query: str | None, numbers: ContextNumbers) -> Context:
        """The engine's context for ``query``, with the memory's user-memory share."""
        engine = await self.memory.open()
        return await engine.get_context(
            self.id, query, user_memory_tokens=self.memory.user_memory_tokens, **numbers
        )

    async def facts(self) -> list[DurableFact]:
        """The chat's durable facts, merged, as its context shows them (with provenance)."""
        engine = await self.memory.open()
        return await engine.facts(self.id, tenant=self.memory.tenant)

    async def refresh(self) -> ChatRecord:
        """Read the chat's record again (its title, summary cost and backoff change)."""
        engine = await self.memory.open()
        self.record = await engine.load_chat(self.id, tenant=self.memory.tenant)
        return self.record

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        engine = await self.memory.open()
        return await engine.storage.list_messages(self.id)

    async def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``); wait for it."""
        outcome = await self.memory.summarize(self.record, force=force)
        if outcome.chat is not None:
            self.record = outcome.chat
        return outcome

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self.memory.delete(self.id)

    async def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere: them, and every summary, fact, vector drawn from them.

        Summary rows are re-derived without them (or cut), facts whose every source was
        forgotten go with what the user's memory took from them, the recall vectors go; the
        receipt lists every artefact and what became of it.
        """
        engine = await self.memory.open()
        receipt = await engine.forget(self.id, sequences, tenant=self.memory.tenant)
        await self.refresh()
        return receipt

    async def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact (its text as ``facts()`` shows it) and keep it forgotten.

        What the user's memory took from it goes too; a tombstone of its claim (digests,
        not its text) keeps later summaries from bringing it back.
        """
        engine = await self.memory.open()
        return await engine.forget_fact(self.id, text, tenant=self.memory.tenant)
