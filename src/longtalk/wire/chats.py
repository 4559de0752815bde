"""Chats: create, read and list, each with its summary bookkeeping and what it has cost."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from longtalk.core.fields import field_names, same_named
from longtalk.core.limits import scrub
from longtalk.core.redact import public_error
from longtalk.storage.records import ChatRecord, SummaryStats, TitleSource
from longtalk.wire.fields import RequestBody, SummaryState

__all__ = ["ChatIn", "ChatList", "ChatOut", "Page"]


class ChatIn(RequestBody):
    """``POST /chats``."""

    id: str | None = Field(None, description="Letters, digits and _ . : - (the input gate).")
    user: str | None = Field(None, description="Letters, digits and _ . : @ + -.")
    title: str | None = None


class ChatOut(BaseModel):
    """A chat with its summary bookkeeping, background-job state and summary cost."""

    id: str
    tenant: str
    user: str | None
    title: str | None
    title_source: TitleSource | None = Field(
        None, description="user: given by the application; generated: written by longtalk."
    )
    created_at: datetime | None
    updated_at: datetime | None
    message_count: int
    last_summarized_sequence: int
    summary_version: int
    indexed_sequence: int = 0
    index_lag: int = Field(0, description="Stored messages not yet recallable.")
    summary_state: SummaryState
    last_error: str | None
    summary_calls: int = Field(0, description="Summary model calls made for this chat.")
    summary_input_tokens: int = Field(0, description="Tokens sent in those calls.")
    summary_output_tokens: int = Field(0, description="Tokens the model answered with.")
    summary_failures: int = Field(0, description="Failed summary runs since the last success.")
    retry_at: datetime | None = Field(
        None, description="When a failing chat's summary is tried again (null: not backing off)."
    )

    @classmethod
    def of(cls, chat: ChatRecord, state: SummaryState, error: str | None) -> ChatOut:
        """Build from a record and the job state."""
        stats = chat.stats
        return cls(
            **same_named(
                cls.model_fields,
                chat,
                user=scrub(chat.user),
                title=scrub(chat.title),
                summary_state=state,
                last_error=public_error(error),
                summary_calls=stats.calls,
                summary_input_tokens=stats.input_tokens,
                summary_output_tokens=stats.output_tokens,
                summary_failures=stats.failures,
                retry_at=stats.retry_at,
            )
        )

    def record(self) -> ChatRecord:
        """The chat as the library's record (what a client's chat object holds)."""
        stats = SummaryStats(
            calls=self.summary_calls,
            input_tokens=self.summary_input_tokens,
            output_tokens=self.summary_output_tokens,
            failures=self.summary_failures,
            retry_at=self.retry_at,
        )
        return ChatRecord(**same_named(field_names(ChatRecord), self, stats=stats))


class Page(BaseModel):
    """Paging of a list."""

    limit: int
    offset: int
    next_offset: int | None


class ChatList(Page):
    """``GET /chats``."""

    items: list[ChatOut]
