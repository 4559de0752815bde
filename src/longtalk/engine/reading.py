"""The one context path: every door's context is assembled here, once.

A read loads the chat's state (the summary chain, the messages since it, the durable facts)
and what is known about its user from earlier chats, then decides which messages it shows:
the whole chat when its length says it may fit, else the window of a layered context
(:class:`~longtalk.engine.layered.Layers`). Those messages go through the filter pipeline
once; the whole chat is measured and assembled in one call, and a layered read goes on in
:mod:`longtalk.engine.layered`: [durable facts] [user] [recalled] [summary] [recent window].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, field, replace

from longtalk.config import MemoryConfig
from longtalk.core.budget_division import ContextBudget
from longtalk.core.context import AssembledContext, ContextPart, whole_chat_context
from longtalk.core.filters import MessageFilterPipeline
from longtalk.core.history import HistorySplit, Numbered, split_history
from longtalk.core.tokens import TokenCounter
from longtalk.embed.semantic_shortener import TextEmbedder
from longtalk.engine.durable import DurablePart
from longtalk.engine.layered import Layers, LayerSources, ScopeOf, layered_context
from longtalk.engine.pipeline import show_numbered
from longtalk.engine.recall_blocks import RecallBlocks
from longtalk.errors import UsageError
from longtalk.storage.base import ChatRecord, ChatState, ChatStorage, StoredMessage
from longtalk.storage.user_memory import UserFact, UserMemoryStore, kept_with
from longtalk.summary.chain import LineSalience, ShownSummaries
from longtalk.summary.user_facts import user_part
from longtalk.vectors.base import VectorReader

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
        The messages a read shows go through the filter pipeline in one place; only a chat
        whose length said it may fit and whose filtered messages did not comes round again,
        as a layered read.
        """
        budget = self.budget_of(options)
        state = await self.load(chat_id) if state is None else state
        plain = self.config.strategy == "none"  # as if there were no memory: the whole chat
        user, known = (None, ()) if plain else await self._user(state, budget, options)
        whole = plain or self._may_fit(state.chat, budget - _user_cost(user))
        while True:  # no cliff where none is needed: the chat itself, if it fits
            layers = None if whole else await self._layers(state, query, options, budget, user)
            candidates = await self._history(state) if layers is None else layers.window
            # without a bound (strategy none) the chat is shown as it is, not ranked by query
            shown = await show_numbered(self.pipeline, candidates, None if plain else query)
            if layers is not None:
                layered = await layered_context(self._sources(), layers, shown, query)
                return replace(layered, user_facts=known)
            verbatim = whole_chat_context(
                shown,
                durable=() if user is None else (user,),
                budget_tokens=None if plain else budget,
                counter=self.counter,
                rules=replace(self.budget, summary_max_tokens=0) if plain else self.rules(0),
            )
            if verbatim is not None:
                return replace(verbatim, user_facts=known)
            whole = False  # the chat's length misled: the filtered chat is over its room

    def _sources(self) -> LayerSources:
        """What the layered stages read of this reader, as it is now.

        The fields in their order: each of another type, so a slip is a type error.
        """
        return LayerSources(
            self.config,
            self.counter,
            self.recall,
            self.scope,
            self.durable,
            self.shown_summaries,
            self.recall_blocks,
            self.uses_recall,
        )

    def _may_fit(self, chat: ChatRecord, room: int) -> bool:
        """Whether the whole chat may fit ``room``, told by its length before loading it.

        Only a chat that may fit is loaded whole; the assembly then measures it exactly.
        """
        return bool(chat.message_count) and self._estimate(chat) <= room

    async def _layers(
        self,
        state: ChatState,
        query: str | None,
        options: ReadOptions,
        budget: int,
        user: ContextPart | None,
    ) -> Layers:
        """What a layered read shows verbatim and the numbers it is assembled by."""
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
        return Layers(
            state=state,
            budget=budget,
            user=user,
            rules=self._layered_rules(query, options),
            stable=stable,
            draft=draft,
            room=room,
            window=[*earlier, *split.pending, *split.recent],
            first_recent=split.recent[0][0] if split.recent else math.inf,
        )

    def _layered_rules(self, query: str | None, options: ReadOptions) -> ContextBudget:
        """The contract's numbers for a layered read: the summary's cap by the question."""
        rules = self.rules(options.summary_max_tokens)
        if not query:  # nothing is recalled: the summary may take all the window leaves
            rules = replace(rules, summary_share=1.0)
            if options.summary_max_tokens is None:
                rules = replace(rules, summary_max_tokens=self.config.no_query_summary_cap)
        elif options.summary_max_tokens is None:  # recall needs the room for the answer
            cap = min(rules.summary_max_tokens, self.config.summary_query_max_tokens)
            rules = replace(rules, summary_max_tokens=cap)
        return rules

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
        """Messages through the reader's filter pipeline (:func:`show_numbered`)."""
        return await show_numbered(self.pipeline, numbered, query)


MIN_BUDGET_TOKENS = 32
"""The smallest budget a context is assembled under: a header and one short message."""


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
