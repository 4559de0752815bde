"""The LLM seam: one async chat-completion method, with typed request and response."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from longtalk.core.tokens import TokenUsage

__all__ = [
    "LLM",
    "ChatMessage",
    "ChatRole",
    "LLMRequest",
    "LLMResponse",
    "TokenUsage",
    "prompt_request",
]

ChatRole = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message sent to a model."""

    role: ChatRole
    content: str


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """A chat-completion request.

    ``json_schema`` asks for structured output that follows the schema, where the backend
    supports it; ``max_tokens`` caps the answer; ``metadata`` travels to usage accounting
    (for example the chat id). ``stop_on_repetition`` asks the backend to stop reading a
    reply that has fallen into a repetition loop (see ``longtalk.llm.repetition``): such a
    reply ends with finish reason ``repetition`` instead of running on to ``max_tokens``.
    """

    messages: Sequence[ChatMessage]
    temperature: float = 0.2
    max_tokens: int | None = 500
    json_schema: Mapping[str, Any] | None = None
    schema_name: str = "response"
    metadata: Mapping[str, str] = field(default_factory=dict)
    stop_on_repetition: bool = False


@dataclass(frozen=True, slots=True)
class LLMResponse:
    """A completed answer: text, why it stopped, and the tokens it cost.

    ``finish_reason`` is the server's (``stop``, ``length``...), or ``repetition`` when the
    reply was stopped early because it looped.
    """

    text: str
    finish_reason: str = "stop"
    usage: TokenUsage = field(default_factory=TokenUsage)
    model: str = ""


@runtime_checkable
class LLM(Protocol):
    """Anything that completes a chat: the one required method of every backend.

    Backends raise ``LLMTransientError`` (retry later), ``LLMPermanentError`` (fix the
    configuration) or ``LLMOutputError`` (empty, or cut off by the output limit).
    """

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete the chat in ``request``."""
        ...


def prompt_request(
    prompt: str,
    *,
    system: str | None = None,
    temperature: float = 0.2,
    max_tokens: int | None = 500,
    json_schema: Mapping[str, Any] | None = None,
) -> LLMRequest:
    """A request of one user prompt, optionally after a system prompt."""
    messages = [ChatMessage("system", system)] if system else []
    messages.append(ChatMessage("user", prompt))
    return LLMRequest(
        messages=tuple(messages),
        temperature=temperature,
        max_tokens=max_tokens,
        json_schema=json_schema,
    )
