"""Graph-state messages as Orchid reads them: anything with ``.type`` and ``.content``.

LangChain's ``HumanMessage`` / ``AIMessage`` qualify as they are; these minimal classes
stand in for them where LangChain is not installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from memstrata.core.messages import Message, Role

_ROLE_OF_TYPE = {"human": Role.USER, "humanmessage": Role.USER}
_ROLE_OF_TYPE |= {"ai": Role.ASSISTANT, "aimessage": Role.ASSISTANT}


@dataclass
class BaseMessage:
    """A graph-state message: ``type`` names the speaker, ``content`` the text."""

    content: str
    type: ClassVar[str] = "base"


@dataclass
class HumanMessage(BaseMessage):
    """A user message (LangChain's ``type == "human"``)."""

    type: ClassVar[str] = "human"


@dataclass
class AIMessage(BaseMessage):
    """An assistant message (LangChain's ``type == "ai"``)."""

    type: ClassVar[str] = "ai"


@dataclass
class SystemMessage(BaseMessage):
    """A system message (ignored by the history extractor, as in Orchid)."""

    type: ClassVar[str] = "system"


def native_message(message: Any) -> Message | None:
    """The memstrata message for a human or AI state message; None for any other kind."""
    kind = getattr(message, "type", None) or type(message).__name__.lower()
    role = _ROLE_OF_TYPE.get(str(kind).lower())
    if role is None:
        return None
    content = message.content if hasattr(message, "content") else message
    return Message(role=role, content=str(content))
