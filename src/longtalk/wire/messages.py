"""Messages: what an append sends and stores, and the pages that list them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Discriminator, Field, Tag

from longtalk.core.limits import SCRUB_DEPTH, has_surrogate, json_problem, scrub
from longtalk.core.messages import Message
from longtalk.storage.records import StoredMessage
from longtalk.wire.fields import RequestBody, SummaryState, Timestamp

__all__ = ["AppendIn", "AppendOut", "MessageBatch", "MessageIn", "MessageList", "MessageOut"]


class MessageIn(Message):
    """A message sent to the API (a ``Message`` whose timestamp is date-time text)."""

    timestamp: Timestamp = None

    def plain(self) -> Message:
        """The same message as the ``Message`` every layer below handles."""
        return Message.model_validate(dict(self))


class MessageBatch(RequestBody):
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

    def stored(self, chat_id: str) -> StoredMessage:
        """The message as the library's record of it."""
        return StoredMessage(chat_id, self.sequence, self.message)


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
