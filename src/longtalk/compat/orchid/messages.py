"""Graph-state messages as Orchid reads them: anything with ``.type`` and ``.content``.

LangChain's ``HumanMessage`` (``type == "human"``) and ``AIMessage`` (``"ai"``) are read as
user and assistant messages; system, tool and other messages are left out, as in Orchid.
"""

from __future__ import annotations

from typing import Any

from longtalk.core.messages import Message, Role

_ROLE_OF_TYPE = {
    "human": Role.USER,
    "humanmessage": Role.USER,
    "ai": Role.ASSISTANT,
    "aimessage": Role.ASSISTANT,
}


def native_message(message: Any) -> Message | None:
    """The longtalk message for a human or AI state message; None for any other kind."""
    kind = getattr(message, "type", None) or type(message).__name__
    role = _ROLE_OF_TYPE.get(str(kind).lower())
    if role is None:
        return None
    content = message.content if hasattr(message, "content") else message
    return Message(role=role, content=str(content))
