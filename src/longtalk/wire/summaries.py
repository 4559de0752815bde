"""Summary rows (the chain, as the episode-summary service exposes it) and forced summaries."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, field_validator

from longtalk.core.fields import same_named
from longtalk.core.limits import scrub
from longtalk.core.redact import public_error
from longtalk.storage.records import SummaryFormat, SummaryKind, SummaryRow
from longtalk.wire.fields import ChatIdIn, Count, EpisodeRange, RequestBody, SummaryState

__all__ = ["SummarizeOut", "SummaryCreate", "SummaryList", "SummaryOut", "SummaryPatchIn"]

_RANGE = re.compile(r"^\s*(\d{1,18})\s*-\s*(\d{1,18})\s*$")


class SummaryOut(BaseModel):
    """A summary row; ``structured`` is the parsed JSON of a structured row."""

    id: int | None
    chat_id: str
    sequence: int
    format: SummaryFormat
    summary_text: str
    episode_first: int
    episode_last: int
    episode_range: str
    turn_number: int
    token_count: int
    kind: SummaryKind = "row"
    version: int
    created_at: datetime | None
    updated_at: datetime | None
    structured: dict[str, Any] | None

    @classmethod
    def of(cls, row: SummaryRow) -> SummaryOut:
        """Build from a row."""
        return cls(
            **same_named(
                cls.model_fields,
                row,
                summary_text=scrub(row.summary_text),
                structured=scrub(_structured(row)),
            )
        )


def _structured(row: SummaryRow) -> dict[str, Any] | None:
    if row.format != "json":
        return None
    from longtalk.summary.model import ConversationSummary

    return ConversationSummary.parse(row.summary_text).model_dump(mode="json")


class SummaryList(BaseModel):
    """``GET /chats/{id}/summaries``: the chain, oldest first."""

    chat_id: str
    items: list[SummaryOut]


class _SummaryFields(RequestBody):
    """Content fields; the episode-summary service's camelCase names are accepted too."""

    summary_text: str | None = Field(
        None, validation_alias=AliasChoices("summary_text", "content"), min_length=1
    )
    token_count: Count | None = Field(
        None, validation_alias=AliasChoices("token_count", "tokenCount")
    )
    episode_range: str | None = Field(
        None,
        validation_alias=AliasChoices("episode_range", "episodeRange"),
        json_schema_extra={"pattern": _RANGE.pattern},
    )
    episode_first: Count | None = None
    episode_last: Count | None = None
    format: SummaryFormat | None = None
    turn_number: Count | None = None

    @field_validator("episode_range")
    @classmethod
    def _range(cls, value: str | None) -> str | None:
        if value is not None and not _RANGE.match(value):
            raise ValueError('an episode range is "first-last", e.g. "259-263"')
        return value

    def episodes(self) -> tuple[int | None, int | None]:
        """``(first, last)`` from ``episode_range`` or the explicit fields."""
        if self.episode_range is not None:
            match = _RANGE.match(self.episode_range)
            assert match is not None
            return int(match.group(1)), int(match.group(2))
        return self.episode_first, self.episode_last


class SummaryCreate(_SummaryFields):
    """``POST /summaries``; the episode-summary service's body is accepted as is.

    That is ``{sessionId, content, tokenCount, episodeRange}``.
    """

    chat_id: ChatIdIn = Field(validation_alias=AliasChoices("chat_id", "sessionId", "session_id"))
    summary_text: str = Field(
        validation_alias=AliasChoices("summary_text", "content"), min_length=1
    )


class SummaryPatchIn(_SummaryFields):
    """``PATCH /summaries/{id}``; ``chat_id`` is optional (it makes the lookup direct)."""

    chat_id: ChatIdIn | None = Field(
        None, validation_alias=AliasChoices("chat_id", "sessionId", "session_id")
    )


class SummarizeOut(BaseModel):
    """``POST /chats/{id}/summarize``."""

    chat_id: str
    outcome: str
    episode_ranges: list[EpisodeRange]
    error: str | None
    summary_state: SummaryState
    reason: str | None = Field(
        None, description="Why nothing changed (outcome unchanged or skipped); else null."
    )

    @field_validator("error")
    @classmethod
    def _public(cls, value: str | None) -> str | None:
        return public_error(value)
