"""The one context path: every door's context is assembled here, once.

A read loads the chat's state (the summary chain, the messages since it, the durable facts)
and what is known about its user from earlier chats; the messages go through the filter
pipeline and are quoted as the lines the context shows; the durable parts are rendered
within their share; the recent window is fitted; recall (the query's embedding) runs while
the summary is cut to its room; the recalled turns and the summary are quoted in turn; then
the pure assembly counts and places the lines, in one call, under the contract:
[durable facts] [user] [recalled] [summary] [recent window].
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, field, replace
from typing import Protocol

from longtalk.config import MemoryConfig
from longtalk.core.context import (
    AssembledContext,
    ContextBudget,
    ContextPart,
    assemble_quoted,
    divide_quoted,
    whole_chat_context,
)
from longtalk.core.filters import MessageFilterPipeline, context_for
from longtalk.core.history import HistorySplit, Numbered, split_history
from longtalk.core.quoting import quoted_lines, quoted_summary, quoted_turns
from longtalk.core.tokens import TokenCounter
from longtalk.embed.semantic_shortener import TextEmbedder
from longtalk.engine.durable import DurablePart
from longtalk.engine.pipeline import apply_pipeline
from longtalk.engine.recall_blocks import RecallBlocks
from longtalk.errors import UsageError
from longtalk.recall.defaults import recall_for_read
from longtalk.storage.base import ChatRecord, ChatState, ChatStorage, StoredMessage
from longtalk.storage.user_memory import UserFact, UserMemoryStore, kept_with
from longtalk.summary.chain import LineSalience, ShownSummaries
from longtalk.summary.user_facts import user_part
from longtalk.vectors.base import RecallScope, VectorReader

USER_MEMORY_SHARE = 4
"""The user part takes at most a quarter of the budget."""


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """One read's overrides of the configuration (None: the configured value)."""

    budget_tokens: int | None = None
    recent_turns: int | None = None
    summary_max_tokens: int | None = None
    user_memory_tokens: int | None = None


@dataclass(eq=False)
class ContextReader:
    """Assembles contexts for one engine's storage, pipeline, recall and rules."""

    storage: ChatStorage
    users: UserMemoryStore
    config: MemoryConfig
    _: KW_ONLY
    counter: TokenCounter
    pipeline: MessageFilterPipeline
    recall: VectorReader
    budget: ContextBudget
    scope: ScopeOf
    embedder: InitVar[TextEmbedder | None] = None
    line_salience: InitVar[LineSalience | None] = None
    shown_summaries: ShownSummaries = field(init=False)
    durable: DurablePart = field(init=False)
    users_with_state: bool = field(init=False)
    """The user's memory is read with the chat's state (one snapshot, no read of its own)."""
    recall_blocks: RecallBlocks = field(init=False, default_factory=RecallBlocks)
    """``cache_friendly``: each (chat, budget)'s last recalled block."""

    def __post_init__(
        self, embedder: TextEmbedder | None, line_salience: LineSalience | None
    ) -> None:
        self.shown_summaries = ShownSummaries(self.counter, salience=line_salience)
        self.durable = DurablePart(self.config, self.counter, embedder)
        self.users_with_state = kept_with(self.users, self.storage)

    @property
    def uses_recall(self) -> bool:
        """True for ``rag_augmented``."""
        return self.config.strategy == "rag_augmented"

    def rules(self, summary_max_tokens: int | None = None) -> ContextBudget:
        """The contract's numbers: the configured ones, ``summary_max_tokens`` overridden."""
        cap = self.config.summary_max_tokens if summary_max_tokens is None else summary_max_tokens
        return replace(
            self.budget,
            summary_max_tokens=cap,
            summary_share=self.config.summary_share,
            resolve_dates=self.config.resolve_dates,
            order=self.config.context_order,
        )

    def budget_of(self, options: ReadOptions) -> int:
        """The read's budget; ``UsageError`` when it is too small for any context."""
        budget = (
            self.config.context_max_tokens
            if options.budget_tokens is None
            else options.budget_tokens
        )
        if budget < MIN_BUDGET_TOKENS:
            raise UsageError(
                f"budget_tokens must be at least {MIN_BUDGET_TOKENS} (the smallest context "
                f"that still holds a message), got {budget}"
            )
        return budget

    async def load(self, chat_id: str) -> ChatState:
        """The chat's state as a read needs it (one smart load, the user's memory with it)."""
        return await self.storage.load_state(chat_id, with_user_memory=self.users_with_state)

    async def read(
        self,
        chat_id: str,
        query: str | None,
        options: ReadOptions,
        state: ChatState | None = None,
    ) -> AssembledContext:
        """The context for ``query`` under the contract (see the module docstring).

        ``state`` is one :meth:`load` already made (a caller that checked the chat on it).
        """
        budget = self.budget_of(options)
        state = await self.load(chat_id) if state is None else state
        plain = self.config.strategy == "none"  # as if there were no memory: the whole chat
        user, known = (None, ()) if plain else await self._user(state, budget, options)
        durable = () if user is None else (user,)
        whole = await self._whole(state, None if plain else budget - _user_cost(user), query)
        if whole is not None:  # no cliff where none is needed: the chat itself, if it fits
            verbatim = whole_chat_context(
                whole,
                durable=durable,
                budget_tokens=None if plain else budget,
                counter=self.counter,
                rules=replace(self.budget, summary_max_tokens=0) if plain else self.rules(0),
            )
            if verbatim is not None:
                return replace(verbatim, user_facts=known)
        layered = await self._layered(state, query, options, budget, user)
        return replace(layered, user_facts=known)

    async def _layered(
        self,
        state: ChatState,
        query: str | None,
        options: ReadOptions,
        budget: int,
        user: ContextPart | None,
    ) -> AssembledContext:
        """[durable facts] [user] [recalled] [summary] [recent window] for a chat too long."""
        rules = self.rules(options.summary_max_tokens)
        if not query:  # nothing is recalled: the summary may take all the window leaves
            rules = replace(rules, summary_share=1.0)
            if options.summary_max_tokens is None:
                rules = replace(rules, summary_max_tokens=self.config.no_query_summary_cap)
        elif options.summary_max_tokens is None:  # recall needs the room for the answer
            cap = min(rules.summary_max_tokens, self.config.summary_query_max_tokens)
            rules = replace(rules, summary_max_tokens=cap)
        recent_turns = (
            self.config.summary_recent_turns
            if options.recent_turns is None
            else options.recent_turns
        )
        split = split_history(
            _numbered(state.messages),
            last_summarized=state.chat.last_summarized_sequence,
            recent_turns=recent_turns,
        )
        stable = self.config.context_order == "cache_friendly"
        draft = self.durable.draft(
            state, budget, _verbatim_sequences(split, stable=stable), asked=bool(query)
        )
        room = budget - draft.reserve - _user_cost(user)
        earlier = [] if query else await self._older(state, split.summarized, room)
        shown_window = await self.show([*earlier, *split.pending, *split.recent], query)
        window = quoted_lines(shown_window)  # each line as the context counts and shows it
        first_recent = split.recent[0][0] if split.recent else math.inf
        pending = [line for line in window if line.sequence < first_recent]
        recent = [line for line in window if line.sequence >= first_recent]
        layout = divide_quoted(
            room, verbatim=recent, counter=self.counter, rules=rules, stable=stable
        )
        recall = (
            asyncio.ensure_future(
                recall_for_read(
                    self.recall,
                    query,
                    self.scope(state.chat),
                    k=self.config.rag_k,
                    budget_tokens=room,
                    threshold=self.config.rag_similarity_threshold,
                    floor=self.config.rag_relevance_floor,
                    shown=layout.shown,
                )
            )
            if self.uses_recall and query
            else None
        )
        try:
            if recall is not None:
                await asyncio.sleep(0)  # recall hands the query to the embedder, then...
            # ...the facts the question needs are found and the summary cut while it embeds
            # cache_friendly: the facts part must not change with the question (it leads the
            # cached prefix), so durability alone chooses when not all fit
            facts, dropped_facts = await self.durable.part(draft, None if stable else query)
            if facts is not None and recall is not None:
                # recall needs the room for the answer, and the summary would repeat what the
                # facts say of people; without a question it is the only view of the past
                layout = layout.yielding(facts.tokens)
            shown = self.shown_summaries(state.summaries, max_tokens=layout.summary_text)
            recalled = await recall if recall is not None else []
        finally:
            if recall is not None and not recall.done():
                recall.cancel()
        key = (state.chat.id, budget)
        sticky = stable and recall is not None  # the last block may be shown again
        kept = self.recall_blocks.kept(key, state) if sticky else ()
        said, kept_said = quoted_turns(recalled), quoted_turns(kept)
        summary = quoted_summary(shown.text or None, (row.summary_text for row in shown.rows))
        assembled = assemble_quoted(
            durable=tuple(part for part in (facts, user) if part is not None),
            recalled=said,
            summary=summary,
            summary_rows=shown.rows,
            summary_cut=shown.truncated,
            verbatim=recent,
            pending=pending,
            budget_tokens=budget,
            counter=self.counter,
            rules=rules,
            division=layout,
            kept_recall=kept_said,
        )
        if sticky:
            self.recall_blocks.keep(key, state.chat, assembled.recall_block)
        return replace(assembled, dropped_facts=dropped_facts)

    async def _whole(
        self, state: ChatState, room: int | None, query: str | None
    ) -> list[Numbered] | None:
        """The whole filtered chat when it may fit ``room`` (None: no bound), else None.

        The chat's length (its characters and messages) tells when it cannot fit without
        loading it; only a chat that may fit is loaded (the assembly measures it exactly).
        Without a bound (strategy ``none``) the chat is shown as it is, not ranked by ``query``.
        """
        chat = state.chat
        if room is None:
            return await self.show(await self._history(state))
        if not chat.message_count or self._estimate(chat) > room:
            return None
        return await self.show(await self._history(state), query)

    async def _history(self, state: ChatState) -> list[Numbered]:
        """The chat's every message: what the smart load left out is loaded now."""
        stored = list(state.messages)
        left_out = stored[0].sequence > 1 if stored else state.chat.message_count > 0
        if left_out:
            stored = await self.storage.list_messages(state.chat.id)
        return _numbered(stored)

    async def _older(
        self, state: ChatState, loaded: Sequence[Numbered], room: int
    ) -> list[Numbered]:
        """Messages older than the pending ones, to show verbatim when nothing is recalled.

        Without a query, the budget recall would have used holds the newest of them before
        anything is left to the summary alone; enough are loaded to fill ``room``.
        """
        chat = state.chat
        per_message = self._estimate(chat) / max(1, chat.message_count) + 3
        wanted = int(room / per_message) + 2
        older = list(loaded)
        first = older[0][0] if older else (state.messages[0].sequence if state.messages else 1)
        missing = min(wanted - len(older), first - 1)
        if missing > 0:
            before = await self.storage.list_messages(
                chat.id, after_sequence=first - 1 - missing, limit=missing
            )
            older = [*_numbered(before), *older]
        return older

    def _estimate(self, chat: ChatRecord) -> int:
        """The chat's tokens estimated from its length, before loading it (one line each).

        The one estimate a read makes without the messages; what is loaded is counted with
        the configured tokenizer.
        """
        return math.ceil(chat.content_chars / self.config.chars_per_token) + chat.message_count

    async def _user(
        self, state: ChatState, budget: int, options: ReadOptions
    ) -> tuple[ContextPart | None, tuple[UserFact, ...]]:
        """What is known about the chat's user from earlier chats, within its cap."""
        chat = state.chat
        configured = self.config.user_memory_tokens
        wanted = configured if options.user_memory_tokens is None else options.user_memory_tokens
        cap = min(wanted, budget // USER_MEMORY_SHARE)
        if chat.user is None or cap <= 0:
            return None, ()
        facts = state.user_memory
        if facts is None:
            facts = tuple(await self.users.items(chat.tenant, chat.user))
        elsewhere = [fact for fact in facts if fact.chat_id != chat.id]
        return user_part(chat.user, elsewhere, cap, self.counter)

    async def show(self, numbered: Sequence[Numbered], query: str | None = None) -> list[Numbered]:
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


MIN_BUDGET_TOKENS = 32
"""The smallest budget a context is assembled under: a header and one short message."""


class ScopeOf(Protocol):
    """The recall scope of a chat."""

    def __call__(self, chat: ChatRecord) -> RecallScope:
        """The scope."""
        ...


def _user_cost(user: ContextPart | None) -> int:
    """What the user part takes of the budget: its tokens and its separator (0 without it)."""
    return user.tokens + 1 if user is not None else 0


def _numbered(messages: Sequence[StoredMessage]) -> list[Numbered]:
    return [(item.sequence, item.message) for item in messages]


def _verbatim_sequences(split: HistorySplit, *, stable: bool) -> set[int]:
    """The sequences whose facts the window already shows word for word.

    ``stable`` (``cache_friendly``): every message not summarized yet, a set that changes
    only when the summary is extended, so the facts part does not change as the window
    slides; otherwise the recent window's.
    """
    shown = (*split.pending, *split.recent) if stable else split.recent
    return {sequence for sequence, _ in shown}
