"""Orbiter's typed memory items and store protocol (``orbiter.memory.base``).

Items move through ``DRAFT -> ACCEPTED -> DISCARD``; a ``MemoryStore`` is any object with
async ``add``, ``get``, ``search`` and ``clear`` (``ShortTermMemory`` is the in-memory one).
``to_message`` / ``from_message`` convert an item to and from a longtalk ``Message``
(``human`` is ``user``, ``ai`` is ``assistant``).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from longtalk.core.messages import Message, Role

__all__ = [
    "AIMemory",
    "HumanMemory",
    "MemoryError",
    "MemoryItem",
    "MemoryMetadata",
    "MemoryStatus",
    "MemoryStore",
    "SystemMemory",
    "ToolMemory",
    "from_message",
]


class MemoryError(Exception):  # noqa: A001 - Orbiter's name
    """Base exception for memory operations."""


class MemoryStatus(StrEnum):
    """Memory item status lifecycle: DRAFT -> ACCEPTED -> DISCARD."""

    DRAFT = "draft"
    ACCEPTED = "accepted"
    DISCARD = "discard"


_VALID_TRANSITIONS: dict[MemoryStatus, set[MemoryStatus]] = {
    MemoryStatus.DRAFT: {MemoryStatus.ACCEPTED, MemoryStatus.DISCARD},
    MemoryStatus.ACCEPTED: {MemoryStatus.DISCARD},
    MemoryStatus.DISCARD: set(),
}


class MemoryMetadata(BaseModel):
    """Scoping metadata for memory items; every field is optional."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = None
    session_id: str | None = None
    task_id: str | None = None
    agent_id: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class MemoryItem(BaseModel):
    """Base class for all memory entries."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    content: str
    memory_type: str
    status: MemoryStatus = MemoryStatus.ACCEPTED
    metadata: MemoryMetadata = Field(default_factory=MemoryMetadata)
    created_at: str = Field(default_factory=_now)
    updated_at: str = Field(default_factory=_now)

    def transition(self, new_status: MemoryStatus) -> None:
        """Move to ``new_status``; raises ``MemoryError`` for a transition not allowed."""
        if new_status not in _VALID_TRANSITIONS.get(self.status, set()):
            raise MemoryError(f"Cannot transition from {self.status!r} to {new_status!r}")
        self.status = new_status
        self.updated_at = _now()

    def to_message(self) -> Message:
        """The longtalk message for this item."""
        role = _ROLE_OF_TYPE.get(self.memory_type, Role.USER)
        return Message(role=role, content=self.content, id=self.id)


class SystemMemory(MemoryItem):
    """System/initialization memory (e.g. system prompts)."""

    memory_type: str = "system"


class HumanMemory(MemoryItem):
    """User/human message memory."""

    memory_type: str = "human"


class AIMemory(MemoryItem):
    """AI/assistant response memory."""

    memory_type: str = "ai"
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)


class ToolMemory(MemoryItem):
    """Tool execution result memory."""

    memory_type: str = "tool"
    tool_call_id: str = ""
    tool_name: str = ""
    is_error: bool = False


@runtime_checkable
class MemoryStore(Protocol):
    """A pluggable memory backend: every method is async, local or remote alike."""

    async def add(self, item: MemoryItem) -> None:
        """Keep ``item``."""
        ...

    async def get(self, item_id: str) -> MemoryItem | None:
        """The item with this id, or None."""
        ...

    async def search(
        self,
        *,
        query: str = "",
        metadata: MemoryMetadata | None = None,
        memory_type: str | None = None,
        status: MemoryStatus | None = None,
        limit: int = 10,
    ) -> list[MemoryItem]:
        """At most ``limit`` items matching every filter given."""
        ...

    async def clear(self, *, metadata: MemoryMetadata | None = None) -> int:
        """Remove the items matching ``metadata`` (all without it); how many went."""
        ...


_ROLE_OF_TYPE = {
    "system": Role.SYSTEM,
    "human": Role.USER,
    "ai": Role.ASSISTANT,
    "tool": Role.TOOL,
}
_ITEM_OF_ROLE: dict[Role, type[MemoryItem]] = {
    Role.SYSTEM: SystemMemory,
    Role.USER: HumanMemory,
    Role.ASSISTANT: AIMemory,
    Role.TOOL: ToolMemory,
}


def from_message(message: Message) -> MemoryItem:
    """The Orbiter item for a longtalk message."""
    item_type = _ITEM_OF_ROLE.get(message.role, HumanMemory)
    fields: dict[str, str] = {"content": message.content}
    if message.id:
        fields["id"] = message.id
    return item_type.model_validate(fields)
