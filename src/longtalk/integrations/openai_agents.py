"""An OpenAI Agents SDK ``Session`` kept in longtalk (``pip install longtalk[openai-agents]``).

::

    async with AsyncMemory() as memory:
        session = LongtalkSession("trip", memory)
        result = await Runner.run(agent, "Where should I stay?", session=session)

Every item the runner adds (messages, function calls and their outputs, reasoning) is stored
as a longtalk message with the item itself kept in its metadata, so it comes back exactly.
``get_items`` gives, with ``view="context"`` (the default), what the agent should see,
bounded: the running summary (and recalled turns) as one system item, then the recent
window; ``view="all"`` gives every item. Chats are append-only, so ``pop_item`` (the SDK's
best-effort rewind on a conversation retry) is refused with an error the runner logs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from longtalk.core.messages import Message, MessageType, Role
from longtalk.errors import UsageError, needs_extra
from longtalk.integrations.views import ChatView, View
from longtalk.memory import AsyncMemory

try:
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra(__name__, "the OpenAI Agents SDK", "openai-agents", exc) from exc

__all__ = ["LongtalkSession", "from_item", "to_item"]

ITEM_KEY = "openai_agents_item"
_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM}


class LongtalkSession(ChatView):
    """The Agents SDK's session protocol over one longtalk chat of an ``AsyncMemory``.

    Args:
        session_id: The chat id (created on first use).
        memory: The memory the chat lives in.
        user: The chat's user, set when it is created.
        view: ``"context"`` (summary + recent window) or ``"all"`` items.
        query: For the context view, the text recall ranks earlier turns against (none:
            no recall; the runner reads the session before it passes the new input).
        budget_tokens: For the context view, the budget (default: the configuration's).
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        memory: AsyncMemory,
        *,
        user: str | None = None,
        view: View = "context",
        query: str | None = None,
        budget_tokens: int | None = None,
    ) -> None:
        super().__init__(user, view, query, budget_tokens)
        self.session_id = session_id
        self.memory = memory

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first (the latest ``limit`` when given)."""
        chat = await self.memory.chat(self.session_id, user=self.user)
        if self.view == "all":
            items = [to_item(stored.message) for stored in await chat.messages()]
        else:
            context = await chat.context(self.query, budget_tokens=self.budget_tokens)
            preamble = context.preamble()
            items = [_system_item(preamble)] if preamble else []
            items += [to_item(message) for message in context.verbatim]
        return items if limit is None else items[-limit:] if limit > 0 else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Store the items in one transaction."""
        if not items:
            return
        chat = await self.memory.chat(self.session_id, user=self.user)
        await chat.extend([from_item(item) for item in items])

    async def pop_item(self) -> TResponseInputItem | None:
        """Refused: longtalk chats are append-only (summaries cover stored messages)."""
        raise UsageError(
            "longtalk sessions are append-only: pop_item cannot remove a stored item; "
            "use clear_session() to delete the whole session"
        )

    async def clear_session(self) -> None:
        """Delete the chat with its messages, summaries and recall vectors."""
        await self.memory.delete(self.session_id)


def from_item(item: TResponseInputItem) -> Message:
    """A session item as a longtalk message; the item rides along in its metadata."""
    data = cast(Mapping[str, Any], item)
    kind = data.get("type", "message")
    metadata = {ITEM_KEY: json.loads(json.dumps(data, default=str))}
    if kind == "message" and data.get("role") in ("user", "assistant", "system", "developer"):
        role = _ROLES.get(str(data["role"]), Role.SYSTEM)
        return Message(role=role, content=_text(data.get("content")), metadata=metadata)
    call = str(data.get("call_id") or data.get("id") or "")
    if kind == "function_call":
        content = f"{data.get('name', 'tool')}({data.get('arguments', '')})"
        return _tool(Role.ASSISTANT, content, call, metadata)
    if kind == "function_call_output":
        return _tool(Role.TOOL, _text(data.get("output")) or "(no output)", call, metadata)
    return _tool(Role.ASSISTANT, f"[{kind}] {json.dumps(data, default=str)[:2000]}", call, metadata)


def to_item(message: Message) -> TResponseInputItem:
    """The item a message was stored from, exactly (a ``{"role", "content"}`` one otherwise)."""
    stored = message.metadata.get(ITEM_KEY)
    if isinstance(stored, dict):
        return cast(TResponseInputItem, stored)
    role = "assistant" if message.role == Role.TOOL else message.role.value
    return cast(TResponseInputItem, {"role": role, "content": message.content})


def _system_item(text: str) -> TResponseInputItem:
    return cast(TResponseInputItem, {"role": "system", "content": text})


def _tool(role: Role, content: str, call: str, metadata: dict[str, Any]) -> Message:
    return Message(
        role=role,
        content=content,
        type=MessageType.TOOL,
        tool_call_ids=(call,) if call else (),
        metadata=metadata,
    )


def _text(content: Any) -> str:
    """The text of a string or of a list of content parts (``input_text``, ``output_text``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(part.get("text") or part.get("refusal") or "") for part in content]
        return "\n".join(text for text in texts if text)
    return json.dumps(content, default=str)
