"""Orchid's agent base class (``orchid_ai.core.agent.OrchidAgent``), as far as memory goes.

A deployment subclasses it (``name``, ``description``, ``run``) and builds its context with
the history helpers: ``extract_conversation_history`` and ``compress_conversation_history``
(static, as in Orchid), then ``summarise`` to answer with that history. The constructor
takes Orchid's keywords (``reader``, ``chat_model``, ``mcp_clients``, ``model_id``) and
absorbs the extras Orchid's graph builder passes (``config``, ``summary_config``, ...).
Tool calling, document RAG and signals are Orchid's agent runtime, not memory: they are
not here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from longtalk.compat.orchid import helpers

__all__ = ["OrchidAgent"]


class OrchidAgent(ABC):
    """Base of an Orchid agent: identity, ``run``, and the history helpers."""

    def __init__(
        self,
        *,
        model_id: str = "",
        reader: Any = None,
        mcp_clients: list[Any] | None = None,
        chat_model: Any | None = None,
        **_kwargs: Any,
    ) -> None:
        self.model_id = model_id
        self.reader = reader
        self.mcp_clients = list(mcp_clients or [])
        self._chat_model = chat_model

    @property
    @abstractmethod
    def name(self) -> str:
        """The agent's unique name, e.g. ``"planner"``."""

    @property
    @abstractmethod
    def description(self) -> str:
        """What the agent handles, for the supervisor's routing."""

    @property
    def rag_namespace(self) -> str:
        """The agent's vector-store namespace ('' when it uses none)."""
        return ""

    @abstractmethod
    async def run(self, state: dict[str, Any]) -> dict[str, Any]:
        """The agent's turn: reads the graph state, returns the state update."""

    # The history helpers, static as in Orchid: the module functions themselves.
    extract_user_query = staticmethod(helpers.extract_user_query)
    extract_conversation_history = staticmethod(helpers.extract_conversation_history)
    compress_conversation_history = staticmethod(helpers.compress_conversation_history)

    async def summarise(
        self,
        query: str,
        mcp_data: dict[str, Any],
        rag_data: list[dict[str, Any]],
        *,
        system_prompt: str,
        temperature: float = 0.2,
        conversation_history: list[dict[str, str]] | None = None,
        **options: Any,
    ) -> str:
        """The answer from the agent's chat model, with the conversation history.

        ``options`` are ``helpers.summarise``'s prompt overrides (``prior_tool_context``,
        ``history_reminder``, ...). Raises ``RuntimeError`` without a chat model.
        """
        if not self._chat_model:
            raise RuntimeError(
                f"[{self.name}] Cannot summarise: no chat model injected. "
                "Pass chat_model= when constructing the agent."
            )
        return await helpers.summarise(
            query,
            mcp_data,
            rag_data,
            system_prompt=system_prompt,
            chat_model=self._chat_model,
            temperature=temperature,
            conversation_history=conversation_history,
            **options,
        )
