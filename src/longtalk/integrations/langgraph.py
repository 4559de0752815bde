"""LangGraph memory: a node keeping the thread in longtalk (``pip install longtalk[langgraph]``).

::

    remember = MemoryNode(memory)                    # an AsyncMemory
    graph = StateGraph(ContextState)
    graph.add_node("remember", remember)
    graph.add_node("model", lambda state: {"messages": [llm.invoke(state["context"])]})
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "model")

The node stores every message of the graph state that longtalk does not have yet (by
message id, so a state that carries the whole history stores each message once), in the
chat named by the run's ``thread_id``; then it puts the bounded context for the latest user
message under ``context``: the running summary and recalled turns as one ``SystemMessage``,
then the recent window. The model reads ``context``, not the ever-growing ``messages``.

``LongtalkStore`` (``longtalk.integrations.langgraph_store``) gives graphs longtalk's
chats as a LangGraph ``BaseStore``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Annotated, Any, TypedDict

from longtalk.errors import UsageError, needs_extra
from longtalk.integrations.langchain import context_messages, from_langchain
from longtalk.integrations.langgraph_store import LongtalkStore
from longtalk.memory import AsyncChat, AsyncMemory

try:
    from langchain_core.messages import BaseMessage, HumanMessage
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import add_messages
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra("longtalk.integrations.langgraph", "LangGraph", "langgraph", exc) from exc

__all__ = ["ContextState", "MemoryNode", "LongtalkStore"]


class ContextState(TypedDict):
    """Graph state with the running ``messages`` and the ``context`` the node assembles."""

    messages: Annotated[list[BaseMessage], add_messages]
    context: list[BaseMessage]


@dataclass(eq=False)
class MemoryNode:
    """A graph node: store the new messages of the thread, assemble its bounded context.

    Args:
        memory: The ``AsyncMemory`` the threads' chats live in.
        messages_key: The state key holding the conversation.
        context_key: The state key the context goes to.
        budget_tokens: The context budget (default: the configuration's).
        user_key: A ``configurable`` key naming the user a new chat belongs to.
    """

    memory: AsyncMemory
    _: KW_ONLY
    messages_key: str = "messages"
    context_key: str = "context"
    budget_tokens: int | None = None
    user_key: str = "user_id"

    async def __call__(self, state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        """Store what is new, then return ``{context_key: [...]}``."""
        configurable = config.get("configurable") or {}
        thread = configurable.get("thread_id")
        if not thread:
            raise UsageError("MemoryNode needs a thread_id in config['configurable']")
        messages: Sequence[BaseMessage] = state.get(self.messages_key) or []
        chat = await self.memory.chat(str(thread), user=configurable.get(self.user_key))
        await chat.extend([from_langchain(message) for message in await self._new(chat, messages)])
        query = next((m.text for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        context = await chat.context(query, budget_tokens=self.budget_tokens)
        return {self.context_key: context_messages(context)}

    async def _new(self, chat: AsyncChat, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """The messages after the last one stored (all when it is not in the state).

        Storage skips message ids it already has, so a state that was edited is safe too.
        """
        count = chat.record.message_count
        if count == 0:
            return list(messages)
        storage = self.memory.engine.storage
        last = await storage.list_messages(chat.id, after_sequence=count - 1, limit=1)
        ids = [message.id for message in messages]
        if last and last[0].message.id in ids:
            return list(messages[ids.index(last[0].message.id) + 1 :])
        return list(messages)
