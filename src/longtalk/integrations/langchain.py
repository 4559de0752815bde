"""LangChain chat history kept in longtalk (``pip install longtalk[langchain]``).

``LongtalkChatMessageHistory`` is a ``BaseChatMessageHistory``: every message LangChain
adds is stored in a longtalk chat. What it gives back depends on ``view``:

- ``"context"`` (the default): what the model should see, bounded: the running summary
  (and recalled turns) as one ``SystemMessage``, then the recent window;
- ``"all"``: every stored message, oldest first.

Give it a ``Memory`` for the sync methods (``messages``, ``add_messages``, ``clear``) or an
``AsyncMemory`` for the async ones (``aget_messages``, ``aadd_messages``, ``aclear``), as
``RunnableWithMessageHistory`` calls them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.core.messages import Message, Role
from longtalk.errors import UsageError, needs_extra
from longtalk.integrations.views import ChatView, View
from longtalk.memory import AsyncMemory, Context, Memory

try:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra(__name__, "langchain-core", "langchain", exc) from exc

__all__ = ["LongtalkChatMessageHistory", "context_messages", "from_langchain", "to_langchain"]


class LongtalkChatMessageHistory(ChatView, BaseChatMessageHistory):
    """A LangChain chat history stored in the longtalk chat ``chat_id``.

    Args:
        memory: A ``Memory`` (sync methods) or an ``AsyncMemory`` (async methods).
        chat_id: The chat; created on first use.
        user: The chat's user, set when it is created.
        view: ``"context"`` (summary + recent window) or ``"all"`` messages.
        query: For the context view, the text recall ranks earlier turns against (none:
            no recall; the history is read before the new question is known).
        budget_tokens: For the context view, the budget (default: the configuration's).
    """

    def __init__(
        self,
        memory: Memory | AsyncMemory,
        chat_id: str,
        *,
        user: str | None = None,
        view: View = "context",
        query: str | None = None,
        budget_tokens: int | None = None,
    ) -> None:
        super().__init__(user, view, query, budget_tokens)
        self.memory = memory
        self.chat_id = chat_id

    # -- sync (Memory) --------------------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The stored messages as LangChain messages, per ``view``."""
        chat = self._sync().chat(self.chat_id, user=self.user)
        if self.view == "all":
            return [to_langchain(item.message) for item in chat.messages()]
        return context_messages(chat.context(self.query, budget_tokens=self.budget_tokens))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages in one transaction."""
        chat = self._sync().chat(self.chat_id, user=self.user)
        chat.extend([from_langchain(message) for message in messages])

    def clear(self) -> None:
        """Delete the chat with its messages, summaries and recall vectors."""
        self._sync().delete(self.chat_id)

    # -- async (AsyncMemory) --------------------------------------------------------------------

    async def aget_messages(self) -> list[BaseMessage]:
        """The stored messages as LangChain messages, per ``view``."""
        chat = await self._async().chat(self.chat_id, user=self.user)
        if self.view == "all":
            return [to_langchain(item.message) for item in await chat.messages()]
        context = await chat.context(self.query, budget_tokens=self.budget_tokens)
        return context_messages(context)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages in one transaction."""
        chat = await self._async().chat(self.chat_id, user=self.user)
        await chat.extend([from_langchain(message) for message in messages])

    async def aclear(self) -> None:
        """Delete the chat with its messages, summaries and recall vectors."""
        await self._async().delete(self.chat_id)

    def _sync(self) -> Memory:
        if not isinstance(self.memory, Memory):
            raise UsageError("this history holds an AsyncMemory: use the async methods")
        return self.memory

    def _async(self) -> AsyncMemory:
        if not isinstance(self.memory, AsyncMemory):
            raise UsageError("this history holds a Memory: use the sync methods")
        return self.memory


def from_langchain(message: BaseMessage) -> Message:
    """A LangChain message as a longtalk message (its id kept: a re-add stores nothing)."""
    role = _ROLES.get(message.type)
    if role is None:
        raise UsageError(f"cannot store a LangChain {message.type!r} message")
    calls: tuple[str, ...] = ()
    if isinstance(message, ToolMessage):
        calls = (message.tool_call_id,)
    elif isinstance(message, AIMessage) and message.tool_calls:
        calls = tuple(call["id"] or "" for call in message.tool_calls)
    metadata: dict[str, Any] = {}
    if isinstance(message, AIMessage) and message.tool_calls:
        metadata["tool_calls"] = [dict(call) for call in message.tool_calls]
    return Message(
        role=role,
        content=message.text,
        name=message.name,
        id=message.id,
        tool_call_ids=calls,
        type="tool" if calls else "text",
        metadata=metadata,
    )


def to_langchain(message: Message) -> BaseMessage:
    """A longtalk message as the LangChain message of its role."""
    common: dict[str, Any] = {"content": message.content, "name": message.name, "id": message.id}
    if message.role == Role.USER:
        return HumanMessage(**common)
    if message.role == Role.SYSTEM:
        return SystemMessage(**common)
    if message.role == Role.TOOL:
        call = message.tool_call_ids[0] if message.tool_call_ids else ""
        return ToolMessage(tool_call_id=call, **common)
    return AIMessage(tool_calls=message.metadata.get("tool_calls", []), **common)


_ROLES = {"human": Role.USER, "ai": Role.ASSISTANT, "system": Role.SYSTEM, "tool": Role.TOOL}


def context_messages(context: Context) -> list[BaseMessage]:
    """A context's messages (summary and recall as one system message, then the window)."""
    return [_from_dict(item) for item in context.messages]


def _from_dict(item: Mapping[str, str]) -> BaseMessage:
    if item["role"] == "system":
        return SystemMessage(content=item["content"])
    if item["role"] == "user":
        return HumanMessage(content=item["content"])
    return AIMessage(content=item["content"])
