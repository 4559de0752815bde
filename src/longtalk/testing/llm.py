"""LLM doubles: answers from a queue, from a function, or of a fixed size.

``ScriptedLLM`` answers from a queue, ``FunctionLLM`` from a function, and ``CountingLLM``
counts the input tokens of every call. They implement the ``LLM`` protocol, so they plug in
wherever a real backend does. None of them is collected by pytest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from longtalk.core.tokens import DEFAULT_COUNTER, TokenCounter, TokenUsage
from longtalk.llm.base import LLMRequest, LLMResponse

__all__ = ["CountingLLM", "FunctionLLM", "RecordedCall", "Reply", "ScriptedLLM"]

Reply = str | LLMResponse | BaseException


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One request an LLM double received."""

    request: LLMRequest

    @property
    def text(self) -> str:
        """All message contents of the request, joined."""
        return "\n".join(message.content for message in self.request.messages)


def _input_text(request: LLMRequest) -> str:
    return "\n".join(message.content for message in request.messages)


def _as_response(reply: str | LLMResponse, request: LLMRequest) -> LLMResponse:
    if isinstance(reply, LLMResponse):
        return reply
    usage = TokenUsage(DEFAULT_COUNTER.count(_input_text(request)), DEFAULT_COUNTER.count(reply))
    return LLMResponse(text=reply, usage=usage, model="scripted")


@dataclass
class ScriptedLLM:
    """Answers each call with the next queued reply; an exception in the queue is raised.

    With an empty queue it answers ``default`` (raised when it is an exception; an
    ``AssertionError`` when it is None, so a test notices an unexpected call).
    """

    __test__ = False

    default: Reply | None = None
    calls: list[RecordedCall] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)

    def enqueue(self, *replies: Reply) -> ScriptedLLM:
        """Queue replies (text, a full ``LLMResponse``, or an exception to raise)."""
        self._queue.extend(replies)
        return self

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Record the call and answer the next reply."""
        self.calls.append(RecordedCall(request))
        if self._queue:
            reply = self._queue.popleft()
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError("ScriptedLLM got a call with nothing queued")
        if isinstance(reply, BaseException):
            raise reply
        return _as_response(reply, request)


class FunctionLLM:
    """Answers with ``function(request)``, sync or async."""

    __test__ = False

    def __init__(
        self, function: Callable[[LLMRequest], str | LLMResponse | Awaitable[str | LLMResponse]]
    ) -> None:
        self.function = function
        self.calls: list[RecordedCall] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Record the call and answer what the function returns."""
        self.calls.append(RecordedCall(request))
        reply = self.function(request)
        if isinstance(reply, Awaitable):
            reply = await reply
        return _as_response(reply, request)


class CountingLLM:
    """Counts every input token (instructions included) and answers a fixed-size summary.

    Used by the token-cost benchmark: ``answer_tokens`` tokens of text per call.
    """

    __test__ = False

    def __init__(self, *, answer_tokens: int = 300, counter: TokenCounter | None = None) -> None:
        self.counter = counter or DEFAULT_COUNTER
        self.answer_tokens = answer_tokens
        self.input_tokens = 0
        self.calls: list[RecordedCall] = []

    def _answer(self) -> str:
        words: list[str] = []
        index = len(self.calls)
        while self.counter.count(" ".join(words)) < self.answer_tokens:
            words.append(f"fact{index}-{len(words)}")
        return " ".join(words)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Count the request's tokens and answer with ``answer_tokens`` tokens."""
        self.calls.append(RecordedCall(request))
        tokens = sum(self.counter.count(m.content) for m in request.messages)
        self.input_tokens += tokens
        text = self._answer()
        return LLMResponse(text=text, usage=TokenUsage(tokens, self.counter.count(text)))
