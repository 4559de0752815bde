"""The memory engine: the spine every door goes through.

Three operations, each written once:

* :meth:`MemoryEngine.append` does a whole turn's write: the input gate, then one
  transaction that checks the tenant, assigns sequences, recognises a retried append by its
  message ids, and leaves the turns behind the recall index's watermark (the outbox), then
  the door's :class:`AfterAppend` schedules indexing and the summary job. It never waits
  for a summary unless the door's follow-up runs it inline.
* :meth:`MemoryEngine.get_context` assembles the whole context (:mod:`.reading`).
* :meth:`MemoryEngine.summarize` runs the job path every summary takes (:mod:`.job`).

Every step degrades instead of failing: a failing summary writer leaves the last good
summary and the verbatim turns (and the chat backs off); a failing vector store leaves
recall empty.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from longtalk.config import MemoryConfig
from longtalk.core.context import AssembledContext, ContextBudget
from longtalk.core.filters import MessageFilterPipeline, agent_pipeline
from longtalk.core.limits import DEFAULT_LIMITS, InputLimits, check_messages
from longtalk.core.messages import Message
from longtalk.core.receipt import ForgetReceipt
from longtalk.core.tokens import TokenCounter, resolve_counter
from longtalk.core.truncation import TruncationStrategy
from longtalk.embed.semantic_shortener import TextEmbedder
from longtalk.engine.appending import AppendWriter
from longtalk.engine.forget import Forgetter
from longtalk.engine.forget_fact import TombstonedFacts, forget_fact
from longtalk.engine.job import FactKeeper, JobListener, SummarizeOutcome, SummaryJob
from longtalk.engine.pipeline import shortener_for
from longtalk.engine.reading import ContextReader, ReadOptions
from longtalk.errors import BackendError, NotFoundError
from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.keeper import DurableFacts, stored_facts
from longtalk.llm.base import LLM
from longtalk.recall.outbox import INDEX_BATCH_TURNS, IndexRun, RecallIndexer
from longtalk.storage.base import (
    ChatRecord,
    ChatState,
    ChatStorage,
    NewMessages,
    StoredMessage,
    TurnCommit,
)
from longtalk.storage.forgetting import ForgetStore
from longtalk.storage.user_memory import UserMemoryStore, user_memory_for
from longtalk.summary.chain import LineSalience
from longtalk.summary.planner import SummaryPlanner
from longtalk.summary.writer import SummaryWriter
from longtalk.vectors.base import (
    BatchTurnDeleter,
    NullVectorReader,
    RecallScope,
    TurnStore,
    VectorReader,
)

log = logging.getLogger(__name__)


class RecallBackend(VectorReader, TurnStore, Protocol):
    """Reads and stores turns: what ``rag_augmented`` needs."""


class AfterAppend(Protocol):
    """What follows a committed append: the door's scheduling of indexing and the summary.

    The library indexes at once and runs or queues the summary job; the service wakes its
    background indexer and job queue. Indexing goes through the chat's durable watermark
    either way, so turns a failure or a crash left out are indexed by the next run.
    """

    async def __call__(self, chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
        """Schedule the work ``stored`` (committed to ``chat``; a retry's, again) leaves."""


async def index_later(chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
    """Schedule nothing: the turns wait behind the watermark for a later index run."""


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A whole turn run inline: the stored messages, the summary outcome and the context."""

    messages: tuple[StoredMessage, ...]
    summary: SummarizeOutcome
    context: AssembledContext


class MemoryEngine:
    """Conversation memory over a ``ChatStorage``, a ``SummaryWriter`` and optional recall.

    ``writer`` defaults to the offline summarizer; ``recall`` to ``NullVectorReader``;
    ``users`` to the user-memory store beside the storage; ``limits`` (the input gate's) to
    every door's defaults.
    """

    def __init__(
        self,
        storage: ChatStorage,
        *,
        config: MemoryConfig | None = None,
        writer: SummaryWriter | None = None,
        recall: RecallBackend | None = None,
        counter: TokenCounter | None = None,
        title_llm: LLM | None = None,
        truncation_llm: LLM | None = None,
        embedder: TextEmbedder | None = None,
        budget: ContextBudget | None = None,
        pipeline: MessageFilterPipeline | None = None,
        users: UserMemoryStore | None = None,
        facts: FactKeeper | None = None,
        limits: InputLimits | None = None,
    ) -> None:
        self.storage = storage
        self.appends = AppendWriter(storage)
        self.embedder = embedder
        self.config = config or MemoryConfig()
        self.limits = limits or DEFAULT_LIMITS
        """The input gate's limits every append of this engine is checked against."""
        self.counter = counter or resolve_counter(
            self.config.token_counter, chars_per_token=self.config.chars_per_token
        )
        self.writer = writer or _offline_writer()
        self._recall: RecallBackend = recall or NullVectorReader()
        self.budget = budget or ContextBudget()
        self.users = users or user_memory_for(storage)
        self.planner = SummaryPlanner(self.config, self.writer, self.counter)
        self.pipeline = pipeline or agent_pipeline(
            (),
            max_chars=self.config.truncation_max_chars,
            max_turns=self.config.history_max_turns,
            strategy=TruncationStrategy(self.config.truncation_strategy),
            skip_prefixes=(),
            exclude_last_user=False,
            shortener=shortener_for(
                self.config.truncation_strategy, llm=truncation_llm, embedder=embedder
            ),
        )
        keeper = facts or DurableFacts(from_summaries=not _is_offline(self.writer))
        if not isinstance(keeper, TombstonedFacts):
            keeper = TombstonedFacts(keeper)  # a forgotten fact stays forgotten
        self.job = SummaryJob(
            storage, self.planner, self.users, self.config, keeper, title_llm=title_llm
        )
        self.reader = ContextReader(
            storage,
            self.users,
            self.config,
            counter=self.counter,
            pipeline=self.pipeline,
            recall=self.recall,
            budget=self.budget,
            scope=self.scope,
            embedder=embedder,
            line_salience=_line_salience(self.writer),
        )

    def with_config(self, config: MemoryConfig) -> MemoryEngine:
        """A twin of this engine with another configuration (same storage, writer, recall)."""
        return MemoryEngine(
            self.storage,
            config=config,
            writer=self.writer,
            recall=self.recall,
            counter=self.counter,
            title_llm=self.title_llm,
            budget=self.budget,
            pipeline=self.pipeline,
            users=self.users,
            facts=self.job.facts,
            embedder=self.embedder,
            limits=self.limits,
        )

    @property
    def recall(self) -> RecallBackend:
        """The recall backend: what reads and stores turns for ``rag_augmented``."""
        return self._recall

    @recall.setter
    def recall(self, backend: RecallBackend) -> None:
        self._recall = self.reader.recall = backend

    @property
    def title_llm(self) -> LLM | None:
        """The model that titles chats (None: offline titles)."""
        return self.job.title_llm

    @title_llm.setter
    def title_llm(self, llm: LLM | None) -> None:
        self.job.title_llm = llm

    @property
    def uses_recall(self) -> bool:
        """True for ``rag_augmented``."""
        return self.config.strategy == "rag_augmented"

    @property
    def summarizes(self) -> bool:
        """True unless the strategy is ``none``."""
        return self.config.strategy != "none"

    # -- writes -----------------------------------------------------------------------------

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """Create a chat; a ``title`` given here is the user's and never regenerated.

        The id, user and title pass the input gate first (every door creates chats here).
        """
        self.limits.chat(user, title, chat_id, id_field="chat_id")
        return await self.storage.create_chat(chat_id, tenant=tenant, user=user, title=title)

    async def append(
        self,
        chat_id: str,
        messages: Sequence[Message],
        *,
        tenant: str | None = None,
        enqueue: str | None = None,
        after: AfterAppend | None = None,
    ) -> tuple[ChatRecord, list[StoredMessage]]:
        """Store messages at the end of the chat: the one write every door makes.

        The input gate first (``InputError`` naming the field; nothing is stored). Then one
        transaction: the chat must be ``tenant``'s (another tenant's chat is
        ``NotFoundError`` like a missing one), sequences follow on, an append whose
        message ids are all stored already is recognised as a retry and changes nothing,
        and the durable facts the messages state join the chat's. ``enqueue`` requests a
        background job of that kind in the same commit (a queue in the database). Then
        ``after`` schedules the work the new messages leave, also for a retry (default: index
        them at once; :func:`index_later` leaves them for a later run). Returns the chat
        afterwards and the stored messages.
        """
        check_messages(messages, self.limits)
        commit = TurnCommit(chat_id, append=NewMessages(messages, enqueue=enqueue), tenant=tenant)
        result = await self.appends.commit(commit, self.job.facts.of_messages)
        stored = list(result.messages)
        # a retry schedules again: its first attempt may have been cut off between the commit
        # and this; the watermark and the job queue make that idempotent
        await (after or self._index_now)(result.chat, stored)
        return result.chat, stored

    async def _index_now(self, chat: ChatRecord, stored: Sequence[StoredMessage]) -> None:
        await self.index_chat(chat.id)

    async def run_turn(
        self,
        chat_id: str,
        new_messages: Sequence[Message],
        *,
        query: str | None = None,
        budget_tokens: int | None = None,
    ) -> TurnResult:
        """One whole turn, inline: :meth:`append` (indexed at once), the job path, the context.

        The messages are stored first (they never wait for the summary); a failing model
        leaves the last good summary and backs off as in every other door.
        """
        _, stored = await self.append(chat_id, new_messages)
        outcome = await self.summarize(chat_id)
        context = await self.get_context(chat_id, query, budget_tokens=budget_tokens)
        return TurnResult(tuple(stored), outcome, context)

    async def index_chat(self, chat_id: str) -> IndexRun:
        """Index every turn of one chat past its watermark, batch by batch."""
        return await self.indexer.catch_up([chat_id]) if self.indexes else IndexRun()

    @property
    def indexer(self) -> RecallIndexer:
        """The recall index's outbox over this engine's storage and recall backend."""
        return RecallIndexer(self.storage, self.recall, self.scope)

    @property
    def indexes(self) -> bool:
        """True when turns are stored for recall."""
        return self.uses_recall and self.config.store_turns

    async def index_pending(
        self, *, chat_ids: Sequence[str] | None = None, max_turns: int = INDEX_BATCH_TURNS
    ) -> IndexRun:
        """Index the turns past each chat's watermark (see :class:`RecallIndexer`)."""
        if not self.indexes:
            return IndexRun()
        return await self.indexer.index_pending(chat_ids=chat_ids, max_turns=max_turns)

    async def reindex(self, chat_id: str | None = None) -> IndexRun:
        """Rebuild the recall index of one chat (default: every chat) from storage."""
        return await self.indexer.reindex(chat_id) if self.indexes else IndexRun()

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat with its messages, summaries, facts, title and recall vectors.

        What its user's memory took from it goes too. The rows go first: an indexing run
        that stored turns meanwhile finds the chat gone and deletes them again (see
        ``RecallIndexer``), so no vector outlives its chat.
        """
        chat = await self.storage.get_chat(chat_id, tenant=tenant)
        if chat is None:
            return False
        if chat.user is not None:
            await self.users.forget(chat.tenant, chat.user, chat_id=chat.id)
        if not await self.storage.delete_chat(chat_id, tenant=tenant):
            return False
        await self._delete_vectors([chat])
        return True

    async def delete_user(self, user: str, *, tenant: str) -> list[ChatRecord]:
        """Delete every chat of one user of a tenant and everything kept about the user."""
        chats = await self.storage.delete_chats(tenant=tenant, user=user)
        await self.users.forget(tenant, user)
        await self._delete_vectors(chats)
        return chats

    async def delete_tenant(self, tenant: str) -> list[ChatRecord]:
        """Delete every chat of a tenant, as :meth:`delete_chat` does; the chats deleted."""
        chats = await self.storage.delete_chats(tenant=tenant)
        await self._delete_vectors(chats)
        return chats

    async def _delete_vectors(self, chats: Sequence[ChatRecord]) -> None:
        """Delete the chats' recall vectors (the store compacted once, where it needs it).

        A failing vector store is logged: the turns left behind carry the deleted chats'
        incarnations, which no later chat shares, so they are never recalled.
        """
        if not chats:
            return
        scopes = [self.scope(chat) for chat in chats]
        try:
            if isinstance(self.recall, BatchTurnDeleter):
                await self.recall.delete_chats(scopes)
            else:
                for scope in scopes:
                    await self.recall.delete_chat(scope)
        except BackendError as exc:
            log.warning("deleting recall vectors of %d chats failed: %s", len(chats), exc)

    # -- forgetting ---------------------------------------------------------------------------

    @property
    def forgetter(self) -> Forgetter:
        """Forgets messages of a chat and what was derived from them (:mod:`.forget`)."""
        return Forgetter(
            self.storage,
            self.writer,
            self.config,
            self.counter,
            self.job.facts,
            self.users,
            self._reindex_without,
            title_llm=self.title_llm,
        )

    async def forget(
        self, chat_id: str, sequences: Sequence[int], *, tenant: str | None = None
    ) -> ForgetReceipt:
        """Forget messages everywhere (see :class:`~longtalk.engine.forget.Forgetter`)."""
        return await self.forgetter.forget(chat_id, sequences, tenant=tenant)

    async def forget_fact(
        self, chat_id: str, text: str, *, tenant: str | None = None
    ) -> ForgetReceipt:
        """Forget one durable fact of a chat (by its text) and keep it forgotten."""
        return await forget_fact(
            self.storage, self.job.facts, self.users, chat_id, text, tenant=tenant
        )

    async def resume_forgets(self, chat_id: str | None = None) -> list[ForgetReceipt]:
        """Finish the forgets a stopped process left pending; their receipts."""
        if not isinstance(self.storage, ForgetStore):
            return []
        return await self.forgetter.resume(chat_id)

    async def _reindex_without(self, chat: ChatRecord) -> bool:
        """Delete a chat's recall vectors and index its stored turns again (library: now)."""
        await self.recall.delete_chat(self.scope(chat))
        await self.storage.reset_index(chat.id)
        if self.indexes:
            await self.index_chat(chat.id)
        return self.indexes

    # -- the job path -------------------------------------------------------------------------

    async def summarize(
        self,
        chat_id: str,
        *,
        force: bool = False,
        incarnation: str | None = None,
        listener: JobListener | None = None,
        state: ChatState | None = None,
    ) -> SummarizeOutcome:
        """Run the job path: extend the summary when due (or ``force``), then the rest.

        Facts, title and user memory follow; see :class:`~longtalk.engine.job.SummaryJob`.
        ``state`` is the chat's state when the caller read it already (a queue's claim).
        """
        if not self.summarizes:
            return SummarizeOutcome(skipped="strategy none")
        return await self.job.run(
            chat_id, force=force, incarnation=incarnation, listener=listener, state=state
        )

    async def summary_due(self, chat_id: str, *, incarnation: str | None = None) -> bool:
        """True when a run of the job would extend the summary now."""
        return self.summarizes and await self.job.due(chat_id, incarnation=incarnation)

    # -- reads --------------------------------------------------------------------------------

    async def get_context(
        self,
        chat_id: str,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
        user_memory_tokens: int | None = None,
        state: ChatState | None = None,
    ) -> AssembledContext:
        """The whole context for ``query``: see :mod:`longtalk.engine.reading`.

        ``budget_tokens``, ``recent_turns``, ``summary_max_tokens`` and
        ``user_memory_tokens`` override the configuration for this call. ``state``, from
        :meth:`context_state`, spares the read its own load (the caller checked it).
        """
        options = ReadOptions(budget_tokens, recent_turns, summary_max_tokens, user_memory_tokens)
        return await self.reader.read(chat_id, query, options, state)

    async def context_state(self, chat_id: str) -> ChatState:
        """The chat's state as :meth:`get_context` loads it (one snapshot)."""
        return await self.reader.load(chat_id)

    async def facts(self, chat_id: str, *, tenant: str | None = None) -> list[DurableFact]:
        """The chat's durable facts, merged and resolved: what its facts part draws from."""
        await self.load_chat(chat_id, tenant=tenant)
        state = await self.storage.load_state(chat_id, tail=0)
        return stored_facts(state.facts)

    def rules(self, summary_max_tokens: int | None = None) -> ContextBudget:
        """The contract's numbers: the configured ones, ``summary_max_tokens`` overridden."""
        return self.reader.rules(summary_max_tokens)

    async def load_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord:
        """The tenant's chat; ``NotFoundError`` otherwise (also for another tenant's)."""
        chat = await self.storage.get_chat(chat_id, tenant=tenant)
        if chat is None:
            raise NotFoundError(f"no chat {chat_id!r}")
        return chat

    def scope(self, chat: ChatRecord) -> RecallScope:
        """The recall scope of a chat."""
        return RecallScope(
            chat_id=chat.id,
            tenant=chat.tenant,
            user=chat.user,
            namespace=self.config.rag_namespace,
            incarnation=chat.incarnation,
        )


def _line_salience(writer: SummaryWriter) -> LineSalience | None:
    """The offline writer ranks its own told lines; another writer's story is cut by age."""
    from longtalk.summary.offline import OfflineSummaryWriter

    return writer.salience if isinstance(writer, OfflineSummaryWriter) else None


def _is_offline(writer: SummaryWriter) -> bool:
    from longtalk.summary.offline import OfflineSummaryWriter

    return isinstance(writer, OfflineSummaryWriter)


def _offline_writer() -> SummaryWriter:
    from longtalk.summary.offline import OfflineSummaryWriter

    return OfflineSummaryWriter()
