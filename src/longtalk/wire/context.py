"""The assembled context over the wire, and back into the library's own value."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from longtalk.core.context import AssembledContext, ContextPart
from longtalk.core.fields import same_named
from longtalk.core.messages import Message
from longtalk.errors import NotFoundError
from longtalk.storage.records import SummaryRow
from longtalk.wire.fields import (
    Budget,
    EpisodeRange,
    RequestBody,
    StrategyName,
    Tokens,
    Turns,
)
from longtalk.wire.users import UserFactOut

if TYPE_CHECKING:
    from longtalk.engine import MemoryEngine

__all__ = ["ContextIn", "ContextOut", "ContextPartOut", "describe_context"]


class ContextIn(RequestBody):
    """``POST /chats/{id}/context``: strategy and budget default to the configuration."""

    query: str | None = None
    budget_tokens: Budget | None = None
    strategy: StrategyName | None = None
    recent_turns: Turns | None = Field(None, description="Window exchanges.")
    summary_max_tokens: Tokens | None = Field(None, description="Cap of the summary part.")


class ContextPartOut(BaseModel):
    """One part of the context with its provenance."""

    kind: str
    text: str
    tokens: int
    messages: list[Message] = Field(
        default_factory=list, description="The part's messages (recalled, verbatim), as shown."
    )
    sequences: list[int | None]
    message_ids: list[str | None]
    scores: list[float]
    episode_ranges: list[EpisodeRange]
    summary_ids: list[int]
    truncated: bool

    def part(self) -> ContextPart:
        """The part as the library's value."""
        return ContextPart(
            kind=cast(Any, self.kind),
            text=self.text,
            tokens=self.tokens,
            messages=tuple(self.messages),
            sequences=tuple(s for s in self.sequences if s is not None),
            scores=tuple(self.scores),
            episode_ranges=tuple(self.episode_ranges),
            truncated=self.truncated,
        )


class ContextOut(BaseModel):
    """The assembled context: ordered parts and the rendered text."""

    chat_id: str
    strategy: StrategyName
    budget_tokens: int
    tokens_used: int
    dropped_recalled: int
    dropped_verbatim: int
    dropped_pending: int = 0
    dropped_facts: int = Field(0, description="Durable facts left out for room.")
    window_intact: bool = True
    parts: list[ContextPartOut]
    user_facts: list[UserFactOut] = Field(
        default_factory=list, description="The items of the user part, with provenance."
    )
    text: str
    messages: list[dict[str, str]] = Field(
        default_factory=list,
        description='What to send the model: {"role", "content"} dicts, the summary and '
        "recalled turns as one system message, then the recent window.",
    )

    @classmethod
    def of(
        cls,
        chat_id: str,
        strategy: StrategyName,
        assembled: AssembledContext,
        rows: Sequence[SummaryRow],
    ) -> ContextOut:
        """From the engine's context; ``rows`` name the summary rows each part shows."""
        ids = {(r.episode_first, r.episode_last): r.id for r in rows if r.kind != "archived"}
        parts = [
            ContextPartOut(
                **same_named(
                    ContextPartOut.model_fields,
                    part,
                    summary_ids=[i for r in part.episode_ranges if (i := ids.get(r)) is not None],
                )
            )
            for part in assembled.parts
        ]
        return cls(
            **same_named(
                cls.model_fields,
                assembled,
                chat_id=chat_id,
                strategy=strategy,
                parts=parts,
                user_facts=[UserFactOut.of(fact) for fact in assembled.user_facts],
                text=assembled.render(),
            )
        )

    def assembled(self) -> AssembledContext:
        """The context as the engine's own value (``Context`` reads it the same way)."""
        parts = tuple(part.part() for part in self.parts)
        return AssembledContext(
            parts=parts,
            budget_tokens=self.budget_tokens,
            allocation={part.kind: part.tokens for part in parts},
            dropped_recalled=self.dropped_recalled,
            dropped_verbatim=self.dropped_verbatim,
            dropped_pending=self.dropped_pending,
            dropped_facts=self.dropped_facts,
            user_facts=tuple(fact.fact() for fact in self.user_facts),
        )


async def describe_context(
    engine: MemoryEngine,
    chat_id: str,
    tenant: str,
    query: str | None,
    budget: int | None,
    *,
    recent_turns: int | None = None,
    summary_max_tokens: int | None = None,
) -> ContextOut:
    """Assemble a tenant's chat's context and say where every part came from.

    The service's route and the CLI's ``context`` both answer with this. One load serves the
    tenant check, the context and the summary ids it names, so the answer comes from one
    snapshot (one statement on PostgreSQL); another tenant's chat is not found.
    """
    try:
        state = await engine.context_state(chat_id)
    except NotFoundError:
        state = None
    if state is None or state.chat.tenant != tenant:
        raise NotFoundError(f"no chat {chat_id!r}")
    assembled = await engine.get_context(
        chat_id,
        query,
        budget_tokens=budget,
        recent_turns=recent_turns,
        summary_max_tokens=summary_max_tokens,
        state=state,
    )
    return ContextOut.of(chat_id, engine.config.strategy, assembled, state.summaries)
