"""A LangChain-style chat model (``await model.ainvoke(messages, temperature=...)``) as an LLM.

Orchid hands its memory a ``BaseChatModel``; longtalk's writer and truncation speak the
``LLM`` protocol. The adapter sends the request's messages as ``{"role", "content"}`` dicts
with the request's temperature (as Orchid calls it: no output cap, no JSON schema) and reads
``.content`` from the answer.
"""

from __future__ import annotations

from typing import Any

from longtalk.llm.base import LLMRequest, LLMResponse


class ChatModelLLM:
    """The ``LLM`` protocol over any object with ``async ainvoke(messages, **kwargs)``.

    ``last_text`` is the last answer as the model gave it (before longtalk cleans it).
    """

    def __init__(self, chat_model: Any) -> None:
        self.chat_model = chat_model
        self.last_text = ""

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Invoke the chat model; an answer without ``content`` counts as empty."""
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        result = await self.chat_model.ainvoke(messages, temperature=request.temperature)
        content = getattr(result, "content", result)
        self.last_text = content if isinstance(content, str) else str(content or "")
        return LLMResponse(text=self.last_text)
