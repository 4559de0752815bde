"""Request and response bodies of the HTTP API.

Request models accept what their OpenAPI schema says and nothing else: integers are strict
(``false`` is not ``0``), a timestamp is a date-time string (not a number of seconds), a
batch holds at least one message; the episode-summary service's numeric ``sessionId`` is
declared as the integer it may be.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    field_validator,
)

from longtalk.core.messages import Message
from longtalk.service.errors import public_error
from longtalk.service.events import SummaryState
from longtalk.service.limits import MAX_INT, SCRUB_DEPTH, has_surrogate, json_problem, scrub
from longtalk.storage.base import (
    ChatRecord,
    StoredMessage,
    SummaryFormat,
    SummaryKind,
    SummaryRow,
)

StrategyName = Literal["none", "running_summary", "rag_augmented"]
_RANGE = re.compile(r"^\s*(\d{1,18})\s*-\s*(\d{1,18})\s*$")


def _json_integer(value: Any) -> Any:
    """JSON's integers only: ``true``/``false`` and text are not numbers here."""
    if isinstance(value, bool | str):
        raise ValueError("an integer is expected (not true, false or text)")
    return value


# Integers as the schema says: ``5`` or ``5.0``, never ``false`` or ``"5"`` (the bounds come
# before the check, so the schema states them).
Count = Annotated[int, Field(ge=0, le=MAX_INT), BeforeValidator(_json_integer)]
"""A non-negative integer every JSON client and storage hold exactly."""
Budget = Annotated[int, Field(ge=1, le=1_000_000), BeforeValidator(_json_integer)]
Turns = Annotated[int, Field(ge=0, le=10_000), BeforeValidator(_json_integer)]
Tokens = Annotated[int, Field(ge=0, le=1_000_000), BeforeValidator(_json_integer)]
EpisodeRange = Annotated[
    tuple[int, int],
    WithJsonSchema({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}),
]
"""``[first, last]`` episodes of a summary row (a plain array in the schema, which every
OpenAPI tool reads; ``prefixItems`` some do not)."""


def _numeric_id(value: Any) -> Any:
    """The episode-summary service sends ``sessionId`` as a number: read it as text."""
    if isinstance(value, float) and value.is_integer():  # 7.0 is the integer 7 in JSON
        value = int(value)
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


ChatIdIn = Annotated[
    str,
    BeforeValidator(_numeric_id),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
]
"""A chat id in a request body: text, or (the episode-summary service's) an integer."""


def _date_time_text(value: Any) -> Any:
    """A timestamp is an ISO 8601 date-time string, as the schema says (not seconds)."""
    if isinstance(value, int | float) or (
        isinstance(value, str) and value.strip().lstrip("+-").replace(".", "", 1).isdigit()
    ):
        raise ValueError("a timestamp is an ISO 8601 date-time string, e.g. 2024-05-08T13:56:00Z")
    return value


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ChatIn(_In):
    """``POST /chats``."""

    id: str | None = Field(None, min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")
    user: str | None = None
    title: str | None = None


class ChatOut(BaseModel):
    """A chat with its summary bookkeeping and background-job state."""

    id: str
    tenant: str
    user: str | None
    title: str | None
    created_at: datetime | None
    updated_at: datetime | None
    message_count: int
    last_summarized_sequence: int
    summary_version: int
    indexed_sequence: int = 0
    index_lag: int = Field(0, description="Stored messages not yet recallable.")
    summary_state: SummaryState
    last_error: str | None

    @classmethod
    def of(cls, chat: ChatRecord, state: SummaryState, error: str | None) -> ChatOut:
        """Build from a record and the job state."""
        return cls(
            id=chat.id,
            tenant=chat.tenant,
            user=scrub(chat.user),
            title=scrub(chat.title),
            created_at=chat.created_at,
            updated_at=chat.updated_at,
            message_count=chat.message_count,
            last_summarized_sequence=chat.last_summarized_sequence,
            summary_version=chat.summary_version,
            indexed_sequence=chat.indexed_sequence,
            index_lag=chat.index_lag,
            summary_state=state,
            last_error=public_error(error),
        )


class Page(BaseModel):
    """Paging of a list."""

    limit: int
    offset: int
    next_offset: int | None


class ChatList(Page):
    """``GET /chats``."""

    items: list[ChatOut]


class MessageIn(Message):
    """A message sent to the API (a ``Message`` whose timestamp is date-time text)."""

    timestamp: Annotated[datetime | None, BeforeValidator(_date_time_text)] = None

    def plain(self) -> Message:
        """The same message as the ``Message`` every layer below handles."""
        return Message.model_validate(dict(self))


class MessageBatch(_In):
    """``POST /chats/{id}/messages`` with several messages."""

    messages: list[MessageIn] = Field(json_schema_extra={"minItems": 1})  # the gate says why

    def plain(self) -> list[Message]:
        """The batch's messages as ``Message`` values."""
        return [message.plain() for message in self.messages]


def _body_kind(value: Any) -> str:
    return "batch" if isinstance(value, dict) and "messages" in value else "message"


AppendIn = Annotated[
    Annotated[MessageIn, Tag("message")] | Annotated[MessageBatch, Tag("batch")],
    Discriminator(_body_kind),
]


class MessageOut(BaseModel):
    """A stored message."""

    sequence: int
    message: Message

    @classmethod
    def of(cls, stored: StoredMessage) -> MessageOut:
        """Build from storage's record."""
        message = stored.message
        if _unanswerable(message):  # stored before the limits: answer it, repaired
            data = scrub(message.model_dump(mode="python"))
            message = Message.model_validate(data)
        return cls(sequence=stored.sequence, message=message)


def _unanswerable(message: Message) -> bool:
    texts = [message.content, message.name or "", message.id or "", *message.tool_call_ids]
    if any(has_surrogate(text) for text in texts):
        return True
    return json_problem(message.metadata, max_depth=SCRUB_DEPTH - 1) is not None


class AppendOut(BaseModel):
    """What an append stored; summarization runs in the background."""

    chat_id: str
    stored: list[MessageOut]
    message_count: int
    summary_state: SummaryState


class MessageList(BaseModel):
    """``GET /chats/{id}/messages``."""

    items: list[MessageOut]
    after_sequence: int
    limit: int
    next_after: int | None


class ContextIn(_In):
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


class ContextOut(BaseModel):
    """The assembled context: ordered parts and the rendered text."""

    chat_id: str
    strategy: StrategyName
    budget_tokens: int
    tokens_used: int
    dropped_recalled: int
    dropped_verbatim: int
    dropped_pending: int = 0
    window_intact: bool = True
    parts: list[ContextPartOut]
    text: str
    messages: list[dict[str, str]] = Field(
        default_factory=list,
        description='What to send the model: {"role", "content"} dicts, the summary and '
        "recalled turns as one system message, then the recent window.",
    )


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
            id=row.id,
            chat_id=row.chat_id,
            sequence=row.sequence,
            format=row.format,
            summary_text=scrub(row.summary_text),
            episode_first=row.episode_first,
            episode_last=row.episode_last,
            episode_range=row.episode_range,
            turn_number=row.turn_number,
            token_count=row.token_count,
            kind=row.kind,
            version=row.version,
            created_at=row.created_at,
            updated_at=row.updated_at,
            structured=scrub(_structured(row)),
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


class _SummaryFields(_In):
    """Content fields; seed 002's camelCase names are accepted too."""

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
    """``POST /summaries`` (seed 002: ``{sessionId, content, tokenCount, episodeRange}``)."""

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

    @field_validator("error")
    @classmethod
    def _public(cls, value: str | None) -> str | None:
        return public_error(value)


class HealthOut(BaseModel):
    """``GET /healthz``."""

    status: Literal["ok", "degraded", "down"]
    checks: dict[str, dict[str, Any]]
