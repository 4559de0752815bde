"""What the routes work with: the engine, the job manager, events, metrics, limits, tenancy.

Every chat lookup goes through :meth:`Service.chat`, which returns the chat only for its
tenant (another tenant's chat is a plain 404, never a 403).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from longtalk.config import ServiceConfig
from longtalk.core.messages import Message
from longtalk.core.redact import add_secrets
from longtalk.engine import MemoryEngine
from longtalk.errors import ConflictError, NotFoundError
from longtalk.service import replicas
from longtalk.service.auth import Authenticator
from longtalk.service.event_hub import ChatEvent, EventHub
from longtalk.service.index_worker import IndexWorker
from longtalk.service.llm_watch import watch_llm
from longtalk.service.metrics import ServiceMetrics
from longtalk.service.summary_queue import SummaryJobs, SummaryQueue
from longtalk.storage.base import ChatRecord, StoredMessage, SummaryPatch, SummaryRow
from longtalk.wire import (
    ChatOut,
    ContextOut,
    StrategyName,
    SummaryCreate,
    SummaryPatchIn,
    describe_context,
)

SCAN_PAGE = 200


class Service:
    """The memory service behind the HTTP routes."""

    def __init__(
        self,
        engine: MemoryEngine,
        config: ServiceConfig,
        *,
        metrics: ServiceMetrics | None = None,
    ) -> None:
        self.engine = engine
        self.config = config
        self.auth = Authenticator(config.api_keys)
        self.health_probe: asyncio.Future[Any] | None = None
        """The ``/healthz`` probe running now, which calls arriving meanwhile share."""
        add_secrets(config.api_keys)  # masked by value in every log line
        self.hub = EventHub()
        self.metrics = metrics or ServiceMetrics()
        self.recovery: asyncio.Task[None] | None = None
        self.llm_probe: tuple[float, dict[str, Any]] | None = None
        """When the LLM was last probed, and what /healthz said."""
        self.llm_watch = watch_llm(engine)
        """What the summary model's last calls did (None without a model)."""
        self.replicas = replicas.shared(engine, config, self.hub, self.metrics)
        self.jobs: SummaryQueue = (
            self.replicas.jobs
            if self.replicas is not None
            else SummaryJobs(
                engine, hub=self.hub, metrics=self.metrics, workers=config.summary_workers
            )
        )
        self.indexer = IndexWorker(
            engine,
            self.metrics,
            retry_seconds=config.summary_retry_seconds,
            max_retry_seconds=config.summary_retry_max_seconds,
            index_pass=self.replicas.index_pass if self.replicas is not None else None,
        )
        self._views: dict[str, MemoryEngine] = {engine.config.strategy: engine}

    async def settle(self) -> None:
        """Wait for start-up recovery and every queued or running job (tests, benchmarks)."""
        if self.recovery is not None:
            await self.recovery
        await self.jobs.drain()
        await self.indexer.drain()

    # -- chats ------------------------------------------------------------------------------

    async def chat(self, chat_id: str, tenant: str) -> ChatRecord:
        """The tenant's chat; ``NotFoundError`` otherwise (also for another tenant's)."""
        chat = await self.engine.storage.get_chat(chat_id, tenant=tenant)
        if chat is None:
            raise NotFoundError(f"no chat {chat_id!r}")
        return chat

    def chat_out(self, chat: ChatRecord) -> ChatOut:
        """The chat resource with its summary state."""
        state, error = self.jobs.state(chat.id, incarnation=chat.incarnation)
        return ChatOut.of(chat, state, error)

    async def create_chat(
        self, chat_id: str | None, tenant: str, user: str | None, title: str | None
    ) -> ChatRecord:
        """Create a chat; a taken id is a conflict."""
        if chat_id is not None and await self.engine.storage.get_chat(chat_id) is not None:
            raise ConflictError(f"chat id {chat_id!r} is taken; choose another or omit it")
        return await self.engine.create_chat(chat_id, tenant=tenant, user=user, title=title)

    async def delete_chat(self, chat_id: str, tenant: str) -> None:
        """Delete a chat with its messages, summaries and vectors; end its jobs and streams."""
        chat = await self.chat(chat_id, tenant)
        if not await self.engine.delete_chat(chat_id, tenant=tenant):
            raise NotFoundError(f"no chat {chat_id!r}")
        self.forget(chat)

    def forget(self, chat: ChatRecord) -> None:
        """Drop a deleted chat's job state and end its event streams."""
        self.jobs.forget(chat.id, incarnation=chat.incarnation)
        self.hub.end(chat.id, chat.incarnation)

    # -- messages -----------------------------------------------------------------------------

    async def append_to(
        self, chat_id: str, tenant: str, messages: Sequence[Message]
    ) -> tuple[ChatRecord, list[StoredMessage]]:
        """Store messages in the tenant's chat and queue background summarization.

        Returns the chat afterwards and what was stored; never waits for a summary. The
        tenant is checked inside the write (one transaction, no read before it); another
        tenant's chat is ``NotFoundError`` like a missing one. The route has passed the
        batch through the input gate (``Limits``).
        """
        enqueue = self.replicas.jobs.kind if self.replicas is not None else None
        try:
            return await self.engine.append(
                chat_id, messages, tenant=tenant, enqueue=enqueue, after=self._after_append
            )
        except NotFoundError:
            raise NotFoundError(f"no chat {chat_id!r}") from None

    async def _after_append(self, chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
        """Wake the background indexer and the chat's summary job; tell the event streams."""
        self.indexer.notify()
        await self.jobs.notify(chat.id, chat.tenant, incarnation=chat.incarnation)
        if stored:
            state, error = self.jobs.state(chat.id, incarnation=chat.incarnation)
            event = ChatEvent("appended", chat.id, state, error=error, incarnation=chat.incarnation)
            self.hub.publish(replace(event, message_count=stored[-1].sequence))

    # -- context ------------------------------------------------------------------------------

    def view(self, strategy: StrategyName | None) -> MemoryEngine:
        """The engine for a strategy (same storage, writer and recall; other config)."""
        name = strategy or self.engine.config.strategy
        if name not in self._views:
            config = self.engine.config.model_copy(update={"strategy": name})
            self._views[name] = self.engine.with_config(config)
        return self._views[name]

    async def context(
        self,
        chat_id: str,
        tenant: str,
        query: str | None,
        budget: int | None,
        strategy: StrategyName | None,
        *,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> ContextOut:
        """Assemble the context and describe where every part came from."""
        return await describe_context(
            self.view(strategy),
            chat_id,
            tenant,
            query,
            budget,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )

    # -- summaries ----------------------------------------------------------------------------

    async def create_summary(self, body: SummaryCreate, tenant: str) -> SummaryRow:
        """Insert a summary row into a chat of the tenant."""
        chat = await self.chat(body.chat_id, tenant)
        first, last = body.episodes()
        row = SummaryRow(
            chat_id=chat.id,
            summary_text=body.summary_text,
            format=body.format or "text",
            episode_first=first or 0,
            episode_last=last if last is not None else (first or 0),
            turn_number=body.turn_number or 0,
            token_count=body.token_count
            if body.token_count is not None
            else self.engine.counter.count(body.summary_text),
        )
        return await self.engine.storage.create_summary(row)

    async def update_summary(
        self, summary_id: int, body: SummaryPatchIn, tenant: str
    ) -> SummaryRow:
        """Patch a summary row of one of the tenant's chats."""
        chat_id = await self._owner(summary_id, body.chat_id, tenant)
        first, last = body.episodes()
        patch = SummaryPatch(
            summary_text=body.summary_text,
            token_count=body.token_count,
            episode_first=first,
            episode_last=last,
            format=body.format,
            turn_number=body.turn_number,
        )
        if not patch.values():  # nothing to change: the row as it is
            rows = await self.engine.storage.list_summaries(chat_id)
            return next(row for row in rows if row.id == summary_id)
        return await self.engine.storage.update_summary(summary_id, patch)

    async def _owner(self, summary_id: int, chat_id: str | None, tenant: str) -> str:
        """The chat holding the row, checked to be the tenant's (404 otherwise)."""
        if chat_id is not None:
            candidates = [await self.chat(chat_id, tenant)]
            if await self._holds(candidates[0].id, summary_id):
                return candidates[0].id
            raise NotFoundError(f"no summary {summary_id} in chat {chat_id!r}")
        offset = 0
        while True:
            page = await self.engine.storage.list_chats(
                tenant=tenant, limit=SCAN_PAGE, offset=offset
            )
            for chat in page:
                if await self._holds(chat.id, summary_id):
                    return chat.id
            if len(page) < SCAN_PAGE:
                raise NotFoundError(f"no summary {summary_id}")
            offset += SCAN_PAGE

    async def _holds(self, chat_id: str, summary_id: int) -> bool:
        rows = await self.engine.storage.list_summaries(chat_id)
        return any(row.id == summary_id for row in rows)
