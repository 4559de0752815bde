"""Messages and episodes: frozen values that every other layer passes around."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from longtalk.errors import UsageError


class Role(StrEnum):
    """Who said a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class MessageType(StrEnum):
    """What kind of message it is; ``tool`` marks tool calls and tool results."""

    TEXT = "text"
    TOOL = "tool"


class Message(BaseModel):
    """One chat message.

    ``tool_call_ids`` holds, on an assistant message that calls tools, the ids of the calls;
    on a tool result, the id of the call it answers. ``name`` is the speaking agent or person.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str
    name: str | None = None
    type: MessageType = MessageType.TEXT
    tool_call_ids: tuple[str, ...] = ()
    timestamp: datetime | None = None
    id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def is_tool(self) -> bool:
        """True for tool calls and tool results."""
        return self.type == MessageType.TOOL or self.role == Role.TOOL

    @property
    def content_hash(self) -> str:
        """A stable hash of who said what, used to deduplicate recalled turns."""
        return content_hash(self.role.value, self.name or "", self.content)

    def with_content(self, content: str) -> Message:
        """A copy with other content."""
        return self.model_copy(update={"content": content})

    def speaker(self) -> str:
        """The label a transcript shows for this message."""
        return self.name or self.role.value.capitalize()


def content_hash(*parts: str) -> str:
    """SHA-256 over the parts, unambiguously joined."""
    digest = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()


def user(content: str, **kwargs: Any) -> Message:
    """A user message."""
    return Message(role=Role.USER, content=content, **kwargs)


def assistant(content: str, **kwargs: Any) -> Message:
    """An assistant message."""
    return Message(role=Role.ASSISTANT, content=content, **kwargs)


def system(content: str, **kwargs: Any) -> Message:
    """A system message."""
    return Message(role=Role.SYSTEM, content=content, **kwargs)


def tool_call(content: str, call_ids: Sequence[str], **kwargs: Any) -> Message:
    """An assistant message that calls tools."""
    return Message(
        role=Role.ASSISTANT,
        content=content,
        type=MessageType.TOOL,
        tool_call_ids=tuple(call_ids),
        **kwargs,
    )


def tool_result(content: str, call_id: str, **kwargs: Any) -> Message:
    """The result of one tool call."""
    return Message(
        role=Role.TOOL, content=content, type=MessageType.TOOL, tool_call_ids=(call_id,), **kwargs
    )


@dataclass(frozen=True, slots=True)
class Episode:
    """A user turn with the replies it got (the episode-summary service's unit of summarization)."""

    number: int
    messages: tuple[Message, ...] = field(default_factory=tuple)

    @property
    def user_message(self) -> Message | None:
        """The user message that opened the episode, if any."""
        for message in self.messages:
            if message.role == Role.USER:
                return message
        return None


def group_episodes(messages: Iterable[Message], *, first_number: int = 1) -> list[Episode]:
    """Group messages into episodes: each user message opens a new one.

    Messages before the first user message form an episode of their own.
    """
    episodes: list[Episode] = []
    current: list[Message] = []
    for message in messages:
        if message.role == Role.USER and current:
            episodes.append(Episode(first_number + len(episodes), tuple(current)))
            current = []
        current.append(message)
    if current:
        episodes.append(Episode(first_number + len(episodes), tuple(current)))
    return episodes


def format_transcript(
    messages: Iterable[Message], line: Callable[[Message], str] | None = None
) -> str:
    """Render messages as ``Speaker: text`` lines, each drawn by ``line`` (:func:`format_line`).

    Dates are printed once, as a ``[YYYY-MM-DD HH:MM]`` line before the first message of
    each new timestamp, not on every line: the summarizer (and the reader) still knows when
    things were said, at a fraction of the tokens.
    """
    draw = line or format_line
    lines: list[str] = []
    last_stamp: str | None = None
    for message in messages:
        if message.timestamp is not None:
            stamp = f"{message.timestamp:%Y-%m-%d %H:%M}"
            if stamp != last_stamp:
                lines.append(f"[{stamp}]")
                last_stamp = stamp
        lines.append(draw(message))
    return "\n".join(lines)


def format_line(message: Message) -> str:
    """One transcript line, without the date."""
    return f"{message.speaker()}: {message.content}"


def build_message(
    role: Role | str,
    content: str,
    name: str | None,
    timestamp: datetime | None,
    message_id: str | None,
    metadata: dict[str, Any],
) -> Message:
    """A message from ``append``'s arguments; a bad role or content is a ``UsageError``."""
    try:
        kind = Role(role)
    except ValueError:
        roles = ", ".join(item.value for item in Role)
        raise UsageError(f"unknown role {role!r}: use one of {roles}") from None
    if not isinstance(content, str):
        raise UsageError(f"content must be a string, not {type(content).__name__}")
    return Message(
        role=kind,
        content=content,
        name=name,
        timestamp=timestamp,
        id=message_id,
        metadata=metadata,
    )


def message_from_mapping(item: Mapping[str, Any]) -> Message:
    """A ``{"role", "content", ...}`` dict as a message; other keys become metadata."""
    if "role" not in item or "content" not in item:
        raise UsageError(f"a message needs 'role' and 'content', got keys {sorted(item)}")
    rest = {key: value for key, value in item.items() if key not in ("role", "content")}
    name, timestamp = rest.pop("name", None), rest.pop("timestamp", None)
    message_id = rest.pop("id", None)
    return build_message(item["role"], item["content"], name, timestamp, message_id, rest)


def as_messages(items: Iterable[Message | Mapping[str, Any]]) -> list[Message]:
    """``Message`` values as they are and role/content dicts as messages (what ``extend`` takes)."""
    return [item if isinstance(item, Message) else message_from_mapping(item) for item in items]
