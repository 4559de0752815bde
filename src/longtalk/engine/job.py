"""The one job path every summary takes, wherever it runs: extend, facts, title, user memory.

A run loads the chat once. It does nothing while the chat backs off from a failed run
(unless forced) or when the trigger does not hold; otherwise the planner extends the
summary with the messages that left the window (the model's calls). The new rows, the
chat's durable facts (what the folded messages state, merged into the chat's own), its
title (never over one the user set) and the run's cost land in ONE compare-and-swap
commit; a lost swap re-plans from fresh state. A failed extension keeps the last good
summary and commits only its bookkeeping: the failure's kind, the error, and when the chat
is due again (exponential backoff with jitter, capped, reset by a success). Afterwards the
user's memory takes the facts the chat's user stated.

The library (inline or in the background), the CLI and the service's workers on one node
or on several replicas all run summaries through :meth:`SummaryJob.run`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from longtalk.config import MemoryConfig
from longtalk.core.history import Numbered
from longtalk.core.messages import Message
from longtalk.engine.appending import RECENT
from longtalk.errors import ConflictError, NotFoundError
from longtalk.llm.base import LLM
from longtalk.storage.base import (
    ChatRecord,
    ChatState,
    ChatStorage,
    RecordUpdate,
    StoredMessage,
    SummaryRun,
    SummaryUpdate,
    TurnCommit,
)
from longtalk.storage.user_memory import UserFact, UserMemoryStore
from longtalk.summary.backoff import BackoffPolicy
from longtalk.summary.chain import row_summary
from longtalk.summary.planner import SummaryPlan, SummaryPlanner
from longtalk.summary.title import generate_title

log = logging.getLogger(__name__)
CAS_ATTEMPTS = 5


class JobListener(Protocol):
    """Told when a run starts calling the summarizer (the service turns it into an event)."""

    def summarizing(self, chat: ChatRecord) -> None:
        """The chat's summary is being extended now."""
        ...


class FactKeeper(Protocol):
    """Keeps a chat's durable facts: found as messages arrive, settled as they are summarized."""

    def of_messages(
        self, messages: Sequence[Numbered], previous: Sequence[Message] = ()
    ) -> list[dict[str, Any]]:
        """The facts new messages state, as storage keeps them.

        ``previous`` are the chat's latest messages before them (whom the first answers).
        """
        ...

    def update(
        self,
        current: Sequence[Mapping[str, Any]],
        plan: SummaryPlan,
        previous: Sequence[Message] = (),
    ) -> list[dict[str, Any]] | None:
        """The chat's facts after ``plan`` (None: unchanged)."""
        ...

    def known_about_user(
        self, chat: ChatRecord, current: Sequence[Mapping[str, Any]], state: ChatState
    ) -> list[UserFact]:
        """The facts of the chat's user, as items of their memory across chats."""
        ...


@dataclass(frozen=True, slots=True)
class SummarizeOutcome:
    """What a run of the job did: the plan, the chat afterwards, the new title.

    ``skipped`` says why nothing ran (``not due``, ``backing off``); ``deferred`` that the
    summary kept losing races with concurrent commits and is left for the next run.
    """

    plan: SummaryPlan = field(default_factory=SummaryPlan)
    chat: ChatRecord | None = None
    title: str | None = None
    attempts: int = 0
    deferred: bool = False
    skipped: str | None = None

    @property
    def changed(self) -> bool:
        """True when the summary chain changed."""
        return self.plan.changed

    @property
    def failed(self) -> bool:
        """True when an extension failed (the last good summary was kept)."""
        return self.plan.error is not None


@dataclass(eq=False)
class SummaryJob:
    """Runs the job path for one engine's storage, planner and post-summary steps."""

    storage: ChatStorage
    planner: SummaryPlanner
    users: UserMemoryStore
    config: MemoryConfig
    facts: FactKeeper
    _: KW_ONLY
    title_llm: LLM | None = None
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    backoff: BackoffPolicy = field(init=False)
    rng: random.Random = field(init=False, default_factory=random.Random)

    def __post_init__(self) -> None:
        config = self.config
        self.backoff = BackoffPolicy(
            base=config.summary_retry_seconds, ceiling=config.summary_retry_max_seconds
        )

    async def due(self, chat_id: str, *, incarnation: str | None = None) -> bool:
        """True when a run would extend the summary now (not backing off, trigger holds)."""
        state = await self.load(chat_id, incarnation)
        return self._why_not(state) is None

    async def run(
        self,
        chat_id: str,
        *,
        force: bool = False,
        incarnation: str | None = None,
        listener: JobListener | None = None,
        state: ChatState | None = None,
    ) -> SummarizeOutcome:
        """Extend the summary if due (always when ``force``); see the module docstring.

        ``incarnation`` pins the chat: ``NotFoundError`` when the chat of that id is now
        another one (deleted and created again), and nothing is written. ``state`` is the
        chat's state when the caller read it already (a queue's claim); a lost race reloads.
        """
        loaded = state
        for attempt in range(1, CAS_ATTEMPTS + 1):
            state = await self.load(chat_id, incarnation, loaded=loaded)
            loaded = None
            if not force and (reason := self._why_not(state)) is not None:
                return SummarizeOutcome(chat=state.chat, attempts=attempt, skipped=reason)
            if listener is not None:
                listener.summarizing(state.chat)
            plan = await self.planner.plan(
                state.summaries,
                _numbered(state.messages),
                chat_id=state.chat.id,
                last_summarized=state.chat.last_summarized_sequence,
                force=force,
            )
            try:
                return await self._commit(state, plan, attempt)
            except ConflictError:
                continue
        log.info(
            "chat %s: the summary lost %d races in a row; left for the next run",
            chat_id,
            CAS_ATTEMPTS,
        )
        return SummarizeOutcome(attempts=CAS_ATTEMPTS, deferred=True)

    async def load(
        self, chat_id: str, incarnation: str | None = None, *, loaded: ChatState | None = None
    ) -> ChatState:
        """The chat's state (``loaded``, else read from storage).

        ``NotFoundError`` when the chat is gone or another incarnation.
        """
        state = loaded if loaded is not None else await self.storage.load_state(chat_id)
        if incarnation is not None and state.chat.incarnation != incarnation:
            raise NotFoundError(f"chat {chat_id!r} was deleted (an id re-created is another chat)")
        return state

    def _why_not(self, state: ChatState) -> str | None:
        """Why a run would do nothing now, or None when it is due."""
        chat = state.chat
        retry_at = chat.stats.retry_at
        if retry_at is not None and retry_at > self.clock():
            return "backing off"
        if chat.content_chars < chat.stats.retry_volume:
            return "backing off"  # until the chat grew by what the failed call read
        split = self.planner.split(_numbered(state.messages), state.chat.last_summarized_sequence)
        return None if self.planner.decide(split).triggered else "not due"

    async def _commit(self, state: ChatState, plan: SummaryPlan, attempt: int) -> SummarizeOutcome:
        """Commit what the plan computed (rows, facts, title, cost) in one transaction."""
        run = self._run(state.chat, plan)
        if not plan.changed and run is None:
            return SummarizeOutcome(plan, state.chat, None, attempt)
        title = await self._title(state, plan)
        before = _before(state, plan)
        facts = self.facts.update(state.facts, plan, before) if plan.changed else None
        commit = TurnCommit(
            chat_id=state.chat.id,
            summary=SummaryUpdate(
                rows=plan.rows,
                last_summarized_sequence=plan.last_summarized,
                expected_version=state.chat.summary_version,
            ),
            record=RecordUpdate(title=title, facts=facts, run=run, facts_read=len(state.facts)),
            incarnation=state.chat.incarnation,
        )
        result = await self.storage.commit_turn(commit)
        if facts is not None:
            await self._refresh_user_memory(result.chat, facts, state)
        return SummarizeOutcome(plan, result.chat, title, attempt)

    def _run(self, chat: ChatRecord, plan: SummaryPlan) -> SummaryRun | None:
        """The run's bookkeeping: its cost, and on failure its kind and the backoff.

        A failed run waits out :class:`BackoffPolicy`'s delay; from the second failure in
        a row it also waits for the chat to grow by what the failed call read, so a model
        that keeps failing never reads much more than the chat itself holds.
        """
        calls = len(plan.replies) + plan.consolidations + int(plan.error is not None)
        usage = plan.usage
        if plan.error is None:
            if not calls and not chat.stats.failures:
                return None
            return SummaryRun(calls, usage.input_tokens, usage.output_tokens)
        failures = chat.stats.failures + 1
        read = int(usage.input_tokens * self.config.chars_per_token)
        return SummaryRun(
            calls,
            usage.input_tokens,
            usage.output_tokens,
            failure=plan.failure,
            error=str(plan.error),
            retry_at=self.clock() + timedelta(seconds=self.backoff.delay(failures, self.rng)),
            retry_volume=chat.content_chars + read if failures > 1 else 0,
        )

    async def _title(self, state: ChatState, plan: SummaryPlan) -> str | None:
        """A generated title for the new summary; None when the user set the chat's title."""
        if not plan.rows or state.chat.title_source == "user":
            return None
        messages = [item.message for item in state.messages]
        return await generate_title(
            self.title_llm, row_summary(plan.rows[-1]), messages, current=state.chat.title
        )

    async def _refresh_user_memory(
        self, chat: ChatRecord, facts: Sequence[Mapping[str, Any]], state: ChatState
    ) -> None:
        """What the user's memory took from this chat, replaced by the user's facts now."""
        if chat.user is None:
            return
        items = self.facts.known_about_user(chat, facts, state)
        await self.users.replace_derived(chat.tenant, chat.user, chat.id, items)


def _numbered(messages: Sequence[StoredMessage]) -> list[Numbered]:
    return [(item.sequence, item.message) for item in messages]


def _before(state: ChatState, plan: SummaryPlan) -> list[Message]:
    """The loaded messages just before the first one ``plan`` folded (a few)."""
    if not plan.folded:
        return []
    first = plan.folded[0][0]
    return [m.message for m in state.messages if first - RECENT <= m.sequence < first]
