"""The memory engine: plan a turn (computation only), commit it (one transaction).

A turn loads the chat smartly (summary chain + unsummarized messages), lets the planner
extend the running summary with only the messages that left the verbatim window, writes the
new messages, summary rows, title and bookkeeping in ONE transaction guarded by a
compare-and-swap on the summary version (a loser re-plans from fresh state), then stores
the turns for recall and assembles the context: [recalled turns] [summary] [recent verbatim].

Every step degrades instead of failing: a failing summary writer leaves the last good
summary and the verbatim turns; a failing vector store leaves recall empty.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from longtalk.config import MemoryConfig
from longtalk.core.context import (
    AssembledContext,
    ContextBudget,
    assemble_context,
    fit_window,
)
from longtalk.core.filters import MessageFilterPipeline, agent_pipeline, context_for
from longtalk.core.history import Numbered, split_history
from longtalk.core.limits import DEFAULT_LIMITS, InputLimits
from longtalk.core.messages import Message
from longtalk.core.tokens import TokenCounter, resolve_counter
from longtalk.core.truncation import TruncationStrategy
from longtalk.embed.truncation import TextEmbedder
from longtalk.errors import BackendError, ConflictError, NotFoundError
from longtalk.indexer import INDEX_BATCH_TURNS, IndexRun, RecallIndexer
from longtalk.llm.base import LLM
from longtalk.recall.defaults import auto_k
from longtalk.storage.base import (
    ChatRecord,
    ChatState,
    ChatStorage,
    StoredMessage,
    TurnCommit,
)
from longtalk.summary.chain import ShownSummaries, row_summary
from longtalk.summary.planner import SummaryPlan, SummaryPlanner
from longtalk.summary.title import generate_title
from longtalk.summary.writer import SummaryWriter
from longtalk.truncation import apply_pipeline, shortener_for
from longtalk.vectors.base import (
    BatchTurnDeleter,
    NullVectorReader,
    RecalledTurn,
    RecallScope,
    TurnStore,
    VectorReader,
)

log = logging.getLogger(__name__)
CAS_ATTEMPTS = 5


class RecallBackend(VectorReader, TurnStore, Protocol):
    """Reads and stores turns: what ``rag_augmented`` needs."""


@dataclass(frozen=True, slots=True)
class SummarizeOutcome:
    """What a summarization run did: the plan, the chat afterwards, the new title."""

    plan: SummaryPlan = field(default_factory=SummaryPlan)
    chat: ChatRecord | None = None
    title: str | None = None
    attempts: int = 0
    deferred: bool = False

    @property
    def changed(self) -> bool:
        """True when the summary chain changed."""
        return self.plan.changed


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A committed turn: the stored messages, the summary outcome and the context."""

    messages: tuple[StoredMessage, ...]
    summary: SummarizeOutcome
    context: AssembledContext


class MemoryEngine:
    """Conversation memory over a ``ChatStorage``, a ``SummaryWriter`` and optional recall.

    ``writer`` defaults to the offline summarizer; ``recall`` to ``NullVectorReader``;
    ``limits`` (the input gate's) to every door's defaults.
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
        limits: InputLimits | None = None,
    ) -> None:
        self.storage = storage
        self.config = config or MemoryConfig()
        self.limits = limits or DEFAULT_LIMITS
        """The input gate's limits every append of this engine is checked against."""
        self.counter = counter or resolve_counter(
            self.config.token_counter, chars_per_token=self.config.chars_per_token
        )
        self.writer = writer or _offline_writer()
        self.recall: RecallBackend = recall or NullVectorReader()
        self.title_llm = title_llm
        self.budget = budget or ContextBudget()
        self.planner = SummaryPlanner(self.config, self.writer, self.counter)
        self.shown_summaries = ShownSummaries(self.counter)
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
        """Create a chat."""
        return await self.storage.create_chat(chat_id, tenant=tenant, user=user, title=title)

    async def add_messages(
        self, chat_id: str, messages: Sequence[Message], *, index: bool = True
    ) -> list[StoredMessage]:
        """Append messages (never waits for an LLM).

        With ``index`` (the library default) the chat's recall index is then brought up to
        date; the service passes False and leaves indexing to its background indexer.
        Either way indexing goes through the chat's durable watermark, so turns a failure
        or a crash left out are indexed by the next run.
        """
        stored = await self.storage.append_messages(chat_id, messages)
        if index and stored:
            await self.index_chat(chat_id)
        return stored

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
        """Delete a chat with its messages, summaries, title and recall vectors.

        The rows go first: an indexing run that stored turns meanwhile finds the chat gone
        and deletes them again (see ``RecallIndexer``), so no vector outlives its chat.
        """
        chat = await self.storage.get_chat(chat_id, tenant=tenant)
        if chat is None or not await self.storage.delete_chat(chat_id, tenant=tenant):
            return False
        await self._delete_vectors([chat])
        return True

    async def delete_user(self, user: str, *, tenant: str) -> list[ChatRecord]:
        """Delete every chat of one user of a tenant, as :meth:`delete_chat` does; the chats."""
        chats = await self.storage.delete_chats(tenant=tenant, user=user)
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

    # -- summarization ------------------------------------------------------------------------

    async def summarize(
        self, chat_id: str, *, force: bool = False, incarnation: str | None = None
    ) -> SummarizeOutcome:
        """Extend the summary if the trigger holds (or ``force``); CAS-guarded, re-plans.

        ``incarnation`` pins the chat: ``NotFoundError`` when the chat of that id is now
        another one (deleted and created again), and nothing is written.
        """
        if not self.summarizes:
            return SummarizeOutcome()
        outcome, _ = await self._plan_and_commit(chat_id, (), force=force, incarnation=incarnation)
        return outcome

    async def run_turn(
        self,
        chat_id: str,
        new_messages: Sequence[Message],
        *,
        query: str | None = None,
        budget_tokens: int | None = None,
    ) -> TurnResult:
        """One whole turn: plan the summary, then commit everything at once.

        The new messages, summary rows, title and bookkeeping land in one transaction. When
        a concurrent turn changed the summary first, the messages are stored on their own
        (they never depend on the summary) and the summary is re-planned from fresh state;
        if it keeps losing, it is left for the next run (``outcome.deferred``): a turn's
        messages are never lost to a busy chat.
        """
        outcome, stored = await self._plan_and_commit(chat_id, tuple(new_messages))
        if stored:
            await self.index_chat(chat_id)
        context = await self.get_context(chat_id, query, budget_tokens=budget_tokens)
        return TurnResult(stored, outcome, context)

    async def _plan_and_commit(
        self,
        chat_id: str,
        new_messages: tuple[Message, ...],
        *,
        force: bool = False,
        incarnation: str | None = None,
    ) -> tuple[SummarizeOutcome, tuple[StoredMessage, ...]]:
        """Load, plan (computation only), commit in one transaction; re-plan on a lost CAS.

        Without new messages and without a summary change nothing is written. The commit
        names the incarnation it was planned from, so it never lands in a re-created chat.
        """
        for attempt in range(1, CAS_ATTEMPTS + 1):
            state = await self._load(chat_id, incarnation)
            planned = _numbered(state.messages)
            # The newest episode is always in the window, so new messages are never folded
            # unless there is no window at all; then only stored messages are planned.
            if self.config.summary_recent_turns > 0:
                base = state.chat.message_count
                planned += [(base + i + 1, m) for i, m in enumerate(new_messages)]
            plan = (
                await self._plan(state, planned, force=force) if self.summarizes else SummaryPlan()
            )
            if not (plan.changed or new_messages):
                return SummarizeOutcome(plan, state.chat, None, attempt), ()
            title = await self._title(plan, state)
            commit = TurnCommit(
                chat_id=chat_id,
                new_messages=new_messages,
                summaries=plan.rows,
                title=title,
                last_summarized_sequence=plan.last_summarized,
                expected_summary_version=state.chat.summary_version,
                incarnation=state.chat.incarnation,
            )
            try:
                result = await self.storage.commit_turn(commit)
            except ConflictError:
                if new_messages:  # the messages first: they never wait for the summary
                    stored = await self.storage.append_messages(chat_id, new_messages)
                    outcome, _ = await self._plan_and_commit(
                        chat_id, (), force=force, incarnation=state.chat.incarnation
                    )
                    return replace(outcome, attempts=outcome.attempts + attempt), tuple(stored)
                continue
            return SummarizeOutcome(plan, result.chat, title, attempt), result.messages
        log.info(
            "chat %s: the summary lost %d races in a row; left for the next run",
            chat_id,
            CAS_ATTEMPTS,
        )
        return SummarizeOutcome(attempts=CAS_ATTEMPTS, deferred=True), ()

    async def _load(self, chat_id: str, incarnation: str | None = None) -> ChatState:
        state = await self.storage.load_state(chat_id)
        if incarnation is not None and state.chat.incarnation != incarnation:
            raise NotFoundError(f"chat {chat_id!r} was deleted (an id re-created is another chat)")
        return state

    async def _plan(
        self, state: ChatState, messages: list[Numbered], *, force: bool = False
    ) -> SummaryPlan:
        return await self.planner.plan(
            state.summaries,
            messages,
            chat_id=state.chat.id,
            last_summarized=state.chat.last_summarized_sequence,
            force=force,
        )

    async def _title(self, plan: SummaryPlan, state: ChatState) -> str | None:
        if not plan.rows:
            return None
        messages = [item.message for item in state.messages]
        return await generate_title(
            self.title_llm, row_summary(plan.rows[-1]), messages, current=state.chat.title
        )

    # -- reads --------------------------------------------------------------------------------

    async def get_context(
        self,
        chat_id: str,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> AssembledContext:
        """The context for ``query`` under the contract: [recalled] [summary] [recent window].

        ``budget_tokens``, ``recent_turns`` and ``summary_max_tokens`` override the
        configuration for this call.
        """
        if not self.summarizes:
            return await self._plain_context(chat_id)
        state = await self._load(chat_id)
        rules = self.rules(summary_max_tokens)
        budget = budget_tokens or self.config.context_max_tokens
        split = split_history(
            _numbered(state.messages),
            last_summarized=state.chat.last_summarized_sequence,
            recent_turns=self.config.summary_recent_turns if recent_turns is None else recent_turns,
        )
        window = await self._show([*split.pending, *split.recent], query)
        pending, recent = window[: len(split.pending)], window[len(split.pending) :]
        fit = fit_window(recent, budget_tokens=budget, counter=self.counter, rules=rules)
        recall = (
            asyncio.ensure_future(self._recall(state.chat, query, fit.shown, budget))
            if self.uses_recall and query
            else None
        )
        try:
            if recall is not None:
                await asyncio.sleep(0)  # recall hands the query to the embedder, then...
            # ...the summary is cut to size while it embeds
            shown = self.shown_summaries(state.summaries, max_tokens=fit.summary_room)
            recalled = await recall if recall is not None else []
        finally:
            if recall is not None and not recall.done():
                recall.cancel()
        return assemble_context(
            recalled=recalled,
            summary=shown.text or None,
            summary_rows=shown.rows,
            verbatim=recent,
            pending=pending,
            budget_tokens=budget,
            counter=self.counter,
            rules=rules,
        )

    def rules(self, summary_max_tokens: int | None = None) -> ContextBudget:
        """The contract's numbers: the configured ones, ``summary_max_tokens`` overridden."""
        cap = self.config.summary_max_tokens if summary_max_tokens is None else summary_max_tokens
        return replace(
            self.budget,
            summary_max_tokens=cap,
            summary_share=self.config.summary_share,
            resolve_dates=self.config.resolve_dates,
        )

    async def summary_due(self, chat_id: str, *, incarnation: str | None = None) -> bool:
        """True when the trigger policy would extend the summary now (see ``summarize``)."""
        if not self.summarizes:
            return False
        state = await self._load(chat_id, incarnation)
        split = self.planner.split(_numbered(state.messages), state.chat.last_summarized_sequence)
        return self.planner.decide(split).triggered

    async def _plain_context(self, chat_id: str) -> AssembledContext:
        """Strategy ``none``: the filtered history, as if there were no memory."""
        stored = await self.storage.list_messages(chat_id)
        shown = await self._show(_numbered(stored))
        return assemble_context(
            verbatim=shown,
            budget_tokens=sys.maxsize // 4,
            counter=self.counter,
            rules=replace(self.budget, summary_max_tokens=0),
        )

    async def _show(self, numbered: Sequence[Numbered], query: str | None = None) -> list[Numbered]:
        """Messages through the filter pipeline, each still numbered with its sequence.

        ``query`` is what semantic truncation ranks sentences against (default: the last
        user message). Messages are matched back to their sequences by identity: each goes
        through the pipeline with its stored id (or a stand-in) and comes back with the id
        it had.
        """
        if not numbered:
            return []
        keys = [message.id or f"longtalk:{sequence}" for sequence, message in numbered]
        by_key = {key: (seq, msg.id) for key, (seq, msg) in zip(keys, numbered, strict=True)}
        keyed = [
            msg.model_copy(update={"id": key}) for key, (_, msg) in zip(keys, numbered, strict=True)
        ]
        shown = await apply_pipeline(self.pipeline, keyed, context_for(keyed, query))
        result: list[Numbered] = []
        for message in shown:
            sequence, original = by_key.get(message.id or "", (0, message.id))
            result.append((sequence, message.model_copy(update={"id": original})))
        return result

    async def _recall(
        self,
        chat: ChatRecord,
        query: str | None,
        certain: Sequence[Message],
        budget: int,
    ) -> list[RecalledTurn]:
        """Recall for ``query``, leaving out the window messages surely shown."""
        if not query:
            return []
        k = self.config.rag_k
        try:
            return await self.recall.get_relevant_history(
                query,
                self.scope(chat),
                k=auto_k(budget) if k == "auto" else k,
                similarity_threshold=self.config.rag_similarity_threshold,
                exclude_hashes=frozenset(message.content_hash for message in certain),
            )
        except Exception as exc:  # noqa: BLE001 - a custom reader's failure leaves recall empty
            log.warning("recall failed for chat %s, continuing without: %r", chat.id, exc)
            return []

    def scope(self, chat: ChatRecord) -> RecallScope:
        """The recall scope of a chat."""
        return RecallScope(
            chat_id=chat.id,
            tenant=chat.tenant,
            user=chat.user,
            namespace=self.config.rag_namespace,
            incarnation=chat.incarnation,
        )


def _numbered(messages: Sequence[StoredMessage]) -> list[Numbered]:
    return [(item.sequence, item.message) for item in messages]


def _offline_writer() -> SummaryWriter:
    from longtalk.summary.offline import OfflineSummaryWriter

    return OfflineSummaryWriter()
