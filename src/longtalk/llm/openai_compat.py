"""OpenAI-compatible chat completions over httpx: OpenAI, vLLM, llama.cpp, LM Studio, Ollama /v1.

No SDK: one ``POST {base_url}/chat/completions``. Structured output goes as
``response_format = {"type": "json_schema", ...}``; a server that rejects it (HTTP 400
naming ``response_format`` / ``json_schema``) is asked again with ``{"type": "json_object"}``
and remembered, when ``schema_fallback`` allows it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

import httpx

from longtalk.core.redact import redact
from longtalk.errors import ConfigError, HTTPStatusError, LLMPermanentError, LLMTransientError
from longtalk.llm._http import HTTPBackend, decode_json_line, usage_or_estimate
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.llm.retry import RetryPolicy, check_reply, with_retries

__all__ = ["DEFAULT_OPENAI_BASE_URL", "OpenAICompatibleLLM", "StructuredMode"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
StructuredMode = Literal["json_schema", "json_object", "none"]


class OpenAICompatibleLLM(HTTPBackend):
    """Chat completions against any OpenAI-compatible server.

    Args:
        model: The model name the server knows (``gpt-4o-mini``, a vLLM model path, ...).
        base_url: Up to and including ``/v1``.
        api_key: The key; when None it is read from the ``api_key_env`` variable. Local
            servers need none.
        api_key_env: Environment variable holding the key.
        structured: How a request's JSON schema is sent: ``json_schema`` (strict structured
            output), ``json_object`` (JSON mode) or ``none`` (prompt only).
        schema_fallback: On a 400 that rejects ``json_schema``, retry with ``json_object``.
        strict: The ``strict`` flag of the JSON schema.
        stream: Ask for a server-sent-event stream and assemble it.
        timeout: Seconds per HTTP request (connect: 10 s).
        retry: Retry policy for transient failures.
        extra_body: Extra top-level fields for every request (``top_p``, ``seed``, ...).
        headers: Extra HTTP headers.
        client: An ``httpx.AsyncClient`` to use instead of an owned one.
    """

    backend_name = "OpenAI-compatible server"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        structured: StructuredMode = "json_schema",
        schema_fallback: bool = True,
        strict: bool = False,
        stream: bool = False,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        extra_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if not model:
            raise ConfigError("an OpenAI-compatible backend needs a model name", path="model")
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        all_headers = {"Authorization": f"Bearer {key}"} if key else {}
        all_headers.update(headers or {})
        super().__init__(base_url, timeout=timeout, retry=retry, headers=all_headers, client=client)
        self.model = model
        self.structured: StructuredMode = structured
        self.schema_fallback = schema_fallback
        self.strict = strict
        self.stream = stream
        self.extra_body = dict(extra_body or {})

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM({self.model!r}, base_url={redact(self.base_url)!r})"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete the chat; transient failures are retried per ``retry``."""
        response = await with_retries(
            lambda: self.within_deadline(self._attempt(request)), self.retry
        )
        return check_reply(response)

    async def _attempt(self, request: LLMRequest) -> LLMResponse:
        try:
            return await self._send(request, self.structured)
        except HTTPStatusError as exc:
            if not self._rejects_schema(exc, request):
                raise
            self.structured = "json_object"
            return await self._send(request, "json_object")

    def _rejects_schema(self, exc: HTTPStatusError, request: LLMRequest) -> bool:
        body = exc.body.lower()
        return (
            self.schema_fallback
            and self.structured == "json_schema"
            and request.json_schema is not None
            and exc.status_code in (400, 422, 500)
            and ("response_format" in body or "json_schema" in body)
        )

    def payload(self, request: LLMRequest, structured: StructuredMode) -> dict[str, Any]:
        """The JSON body of a chat-completions request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "stream": self.stream,
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        if request.json_schema is not None and structured == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": dict(request.json_schema),
                    "strict": self.strict,
                },
            }
        elif request.json_schema is not None and structured == "json_object":
            body["response_format"] = {"type": "json_object"}
        body.update(self.extra_body)
        return body

    async def _send(self, request: LLMRequest, structured: StructuredMode) -> LLMResponse:
        payload = self.payload(request, structured)
        if self.stream:
            return await self._streamed(request, payload)
        data = await self.post_json("/chat/completions", payload)
        return self._parse(request, data)

    def _parse(self, request: LLMRequest, data: dict[str, Any]) -> LLMResponse:
        choices = data.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            raise LLMTransientError(f"{self.backend_name} answered without choices: {data}")
        message = choices[0].get("message") or {}
        text = _content_text(message.get("content"))
        if not text and message.get("refusal"):
            raise LLMPermanentError(f"{self.model} refused: {message['refusal']}")
        usage = data.get("usage") or {}
        return LLMResponse(
            text=text,
            finish_reason=str(choices[0].get("finish_reason") or "stop"),
            usage=usage_or_estimate(
                request, text, usage.get("prompt_tokens"), usage.get("completion_tokens")
            ),
            model=str(data.get("model") or self.model),
        )

    async def _streamed(self, request: LLMRequest, payload: dict[str, Any]) -> LLMResponse:
        parts: list[str] = []
        finish, model = "stop", self.model
        usage: dict[str, Any] = {}
        async for line in self.stream_lines("/chat/completions", payload):
            if not line.startswith("data:"):
                continue  # SSE comments, event names, keep-alives
            data_text = line[5:].strip()
            if data_text == "[DONE]":
                break
            chunk = decode_json_line(data_text, self.backend_name)
            if "error" in chunk:
                raise LLMTransientError(f"{self.backend_name} stream error: {chunk['error']}")
            model = str(chunk.get("model") or model)
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices") or []:
                parts.append(_content_text((choice.get("delta") or {}).get("content")))
                finish = str(choice.get("finish_reason") or finish)
        text = "".join(parts)
        return LLMResponse(
            text=text,
            finish_reason=finish,
            usage=usage_or_estimate(
                request, text, usage.get("prompt_tokens"), usage.get("completion_tokens")
            ),
            model=model,
        )


def _content_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)
