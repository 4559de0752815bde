"""Planning a summary update: computation only, no storage writes.

The planner reads a chat's loaded state, decides whether the running summary must be
extended, extends it with ONLY the messages that left the verbatim window since the last
extension (batched under a size cap, overflow carried over), rolls the chain over to a new
row when the latest grows past ``summary_row_max_tokens``, and returns the rows to write.
A failing writer stops the plan where it is: what succeeded is kept, nothing failed is stored.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from longtalk.config import MemoryConfig
from longtalk.core.history import (
    HistorySplit,
    Numbered,
    count_episodes,
    episode_numbers,
    next_batch,
    split_history,
)
from longtalk.core.messages import Message
from longtalk.core.tokens import TokenCounter, TokenUsage
from longtalk.errors import LLMError
from longtalk.llm.base import LLMResponse
from longtalk.storage.base import SummaryRow
from longtalk.summary.chain import row_summary, stored_form
from longtalk.summary.consolidate import Consolidation, consolidate, due
from longtalk.summary.model import earliest
from longtalk.summary.replies import FailureKind, failure_kind
from longtalk.summary.triggers import (
    CountOrTokensTrigger,
    TokensAndEpisodesTrigger,
    TriggerPolicy,
    TriggerResult,
)
from longtalk.summary.writer import SummaryDraft, SummaryWriter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SummaryPlan:
    """What a summarization run computed.

    ``rows`` are the rows to write (new rows have ``id`` None) and ``chain`` the whole
    chain afterwards (empty when nothing changed); ``last_summarized`` is the
    new bookkeeping sequence, or None when nothing was folded. ``error`` is the writer
    failure that stopped the run early, if any, and ``failure`` its kind (for a chat's
    last error and a metric label). ``usage`` counts every call, the failed one included;
    ``replies`` are the kinds of the extensions' replies (``json``, ``prose``; empty for
    the offline writer), one per extension.
    """

    rows: tuple[SummaryRow, ...] = ()
    chain: tuple[SummaryRow, ...] = ()
    last_summarized: int | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    extensions: int = 0
    folded: tuple[Numbered, ...] = ()
    decision: TriggerResult = TriggerResult(False, "nothing pending", 0, 0)
    error: LLMError | None = None
    consolidations: int = 0
    """Consolidations the writer made (a structural merge calls no model and is not one)."""
    replies: tuple[str, ...] = ()

    @property
    def failure(self) -> FailureKind | None:
        """Why the run stopped early (``cut_off``, ``broken_json``, ``unavailable``...)."""
        return None if self.error is None else failure_kind(self.error)

    @property
    def changed(self) -> bool:
        """True when the summary chain changes."""
        return bool(self.rows)


class SummaryPlanner:
    """Computes summary updates for one memory configuration."""

    def __init__(self, config: MemoryConfig, writer: SummaryWriter, counter: TokenCounter):
        self.config = config
        self.writer = writer
        self.counter = counter
        self.policy = trigger_policy(config)

    def split(self, messages: Sequence[Numbered], last_summarized: int) -> HistorySplit:
        """The loaded messages split into summarized / pending / recent."""
        return split_history(
            messages,
            last_summarized=last_summarized,
            recent_turns=self.config.summary_recent_turns,
        )

    def decide(self, split: HistorySplit) -> TriggerResult:
        """Apply the configured trigger policy to the pending messages."""
        pending = [message for _, message in split.pending]
        if not pending:
            return TriggerResult(False, "nothing pending", 0, 0)
        return self.policy.evaluate(
            pending, new_episodes=count_episodes(pending), counter=self.counter
        )

    async def plan(
        self,
        chain: Sequence[SummaryRow],
        messages: Sequence[Numbered],
        *,
        chat_id: str,
        last_summarized: int,
        force: bool = False,
    ) -> SummaryPlan:
        """Extend the chain with pending messages while the trigger holds (or ``force``)."""
        split = self.split(messages, last_summarized)
        decision = self.decide(split)
        if not (decision.triggered or (force and split.pending)):
            return SummaryPlan(decision=decision)
        state = _ChainState(list(chain), last_summarized)
        pending = split.pending
        usage, extensions = TokenUsage(), 0
        replies: list[str] = []
        folded: list[Numbered] = []
        error: LLMError | None = None
        while pending and extensions < self.config.max_extensions_per_run:
            batch, rest = next_batch(pending, max_chars=self.config.summary_input_max_chars)
            try:
                draft = await self._extend(state, batch, chat_id)
            except LLMError as exc:
                log.warning(
                    "summary extension failed for chat %s (%s): %s",
                    chat_id,
                    failure_kind(exc),
                    exc,
                )
                usage += spent(exc)
                error = exc
                break
            usage += draft.usage
            replies.append(draft.kind)
            extensions += 1
            folded.extend(batch)
            pending = rest
            if not force and not self.decide(HistorySplit((), pending, ())).triggered:
                break
        consolidations = 0
        cap = self.config.summary_max_tokens
        if folded and due(state.rows, cap, self.config.consolidate_threshold):
            result = await consolidate(
                state.rows,
                self.writer if self.config.summary_consolidation == "model" else None,
                max_tokens=self.config.summary_max_tokens,
                counter=self.counter,
                structured=self.config.structured_output,
            )
            state.consolidated(result)
            usage += result.usage
            consolidations = int(result.by_writer)
        return SummaryPlan(
            rows=tuple(state.touched()),
            chain=tuple(state.rows) if folded else (),
            last_summarized=state.last_summarized if folded else None,
            usage=usage,
            extensions=extensions,
            folded=tuple(folded),
            decision=decision,
            error=error,
            consolidations=consolidations,
            replies=tuple(replies),
        )

    async def _extend(
        self, state: _ChainState, batch: Sequence[Numbered], chat_id: str
    ) -> SummaryDraft:
        latest = state.latest()
        rollover = latest is None or latest.token_count > self.config.summary_row_max_tokens
        existing = None if rollover or latest is None else row_summary(latest)
        numbers = episode_numbers(batch, last_episode=latest.episode_last if latest else 0)
        new_messages: list[Message] = [message for _, message in batch]
        draft = await self.writer.extend(
            existing, new_messages, structured=self.config.structured_output
        )
        since, until = _dates(new_messages)
        summary = draft.summary.model_copy(
            update={
                "covered_turns": (existing.covered_turns if existing else 0)
                + count_episodes(new_messages),
                "since": earliest(existing.since if existing else None, since),
                "until": until or (existing.until if existing else None),
            }
        )
        text, fmt = stored_form(summary, structured=self.config.structured_output)
        tokens = self.counter.count(text)
        if rollover or latest is None:
            row = SummaryRow(
                chat_id=chat_id,
                summary_text=text,
                format=fmt,
                episode_first=numbers[0],
                episode_last=numbers[-1],
                turn_number=batch[-1][0],
                token_count=tokens,
            )
            state.append(row)
        else:
            state.replace_latest(
                replace(
                    latest,
                    summary_text=text,
                    format=fmt,
                    episode_last=numbers[-1],
                    turn_number=batch[-1][0],
                    token_count=tokens,
                )
            )
        state.last_summarized = batch[-1][0]
        return draft


def spent(error: LLMError) -> TokenUsage:
    """What a failed call cost: a reply that came back unusable still used tokens."""
    response = getattr(error, "response", None)
    return response.usage if isinstance(response, LLMResponse) else TokenUsage()


def _dates(messages: Sequence[Message]) -> tuple[date | None, date | None]:
    """The first and last day the messages were written (from their timestamps)."""
    days = [m.timestamp.date() for m in messages if m.timestamp is not None]
    return (min(days), max(days)) if days else (None, None)


def trigger_policy(config: MemoryConfig) -> TriggerPolicy:
    """The trigger policy ``summary_trigger`` names, applied to pending messages.

    ``pending_tokens`` (default) extends once the pending messages exceed its ``tokens``:
    large enough batches that instructions and the existing summary are a small share of
    every call. ``count_or_tokens`` is Orbiter's and the LangGraph backend's check
    (> 20 messages OR > 4000 tokens); ``tokens_and_episodes`` is the episode-summary
    service's (> 200 tokens AND >= 5 new episodes).
    """
    triggers = config.summary_triggers
    if config.summary_trigger == "pending_tokens":
        return CountOrTokensTrigger(sys.maxsize, triggers.pending_tokens.tokens)
    if config.summary_trigger == "count_or_tokens":
        count = triggers.count_or_tokens
        return CountOrTokensTrigger(count.messages, count.tokens)
    episodes = triggers.tokens_and_episodes
    return TokensAndEpisodesTrigger(episodes.tokens, episodes.episodes)


class _ChainState:
    """The shown chain as the plan changes it, and the rows to write (in order)."""

    def __init__(self, rows: list[SummaryRow], last_summarized: int) -> None:
        self.rows = rows
        self.last_summarized = last_summarized
        self._writes: dict[tuple[str, int], SummaryRow] = {}
        self._keys: dict[int, tuple[str, int]] = {}

    def latest(self) -> SummaryRow | None:
        return self.rows[-1] if self.rows else None

    def append(self, row: SummaryRow) -> None:
        self.rows.append(row)
        self._write(row)

    def replace_latest(self, row: SummaryRow) -> None:
        key = self._keys.pop(id(self.rows[-1]), None)
        self.rows[-1] = row
        self._write(row, key)

    def consolidated(self, result: Consolidation) -> None:
        """The folded rows become archived; the digest (new or replaced) takes their place."""
        digest_key: tuple[str, int] | None = None
        archived = iter(result.archived)
        for old in self.rows[: result.folded]:
            key = self._keys.pop(id(old), None)
            if old.kind == "digest":
                digest_key = key
            else:
                self._write(next(archived), key)
        self.rows = [result.digest, *self.rows[result.folded :]]
        self._write(result.digest, digest_key)

    def touched(self) -> list[SummaryRow]:
        return list(self._writes.values())

    def _write(self, row: SummaryRow, key: tuple[str, int] | None = None) -> None:
        if key is None:
            key = ("id", row.id) if row.id is not None else ("new", len(self._writes))
        self._writes[key] = row
        self._keys[id(row)] = key
