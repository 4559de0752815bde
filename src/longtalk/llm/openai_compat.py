"""OpenAI-compatible chat completions over httpx: OpenAI, vLLM, llama.cpp, LM Studio, Ollama /v1.

No SDK: one ``POST {base_url}/chat/completions``. Structured output goes as
``response_format = {"type": "json_schema", ...}``; a server that rejects it (HTTP 400
naming ``response_format`` / ``json_schema``) is asked again with ``{"type": "json_object"}``
and remembered, when ``schema_fallback`` allows it.

A request that sets ``stop_on_repetition`` (summaries and digests) is streamed by default,
and reading stops once the reply has fallen into a repetition loop: closing the stream is
how llama.cpp, vLLM and Ollama are told to stop generating, so a looping small model costs
a few repetitions instead of ``max_tokens``. Server-side penalties (``frequency_penalty``,
llama.cpp's ``repeat_penalty`` or ``dry_multiplier``) can go in ``extra_body``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

import httpx

from longtalk.errors import ConfigError, HTTPStatusError, LLMPermanentError, LLMTransientError
from longtalk.llm._http import HTTPBackend, decode_json_line, usage_or_estimate
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.llm.repetition import RepetitionGuard
from longtalk.llm.retry import RetryPolicy

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
        stream: Ask for a server-sent-event stream and assemble it: True for every request,
            False for none, None (default) for the requests that ask to be stopped in a
            repetition loop (``LLMRequest.stop_on_repetition``), which only a stream can do.
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
        stream: bool | None = None,
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

    def streams(self, request: LLMRequest) -> bool:
        """Whether ``request`` is sent as a stream (see ``stream``)."""
        return request.stop_on_repetition if self.stream is None else self.stream

    def payload(self, request: LLMRequest, structured: StructuredMode) -> dict[str, Any]:
        """The JSON body of a chat-completions request."""
        stream = self.streams(request)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "stream": stream,
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if stream:
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
        if self.streams(request):
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
        """Assemble a server-sent-event stream; stop early when the reply loops.

        A server that ignores ``stream`` and answers one JSON body is read as a whole.
        """
        guard = RepetitionGuard() if request.stop_on_repetition else None
        stream = _Stream(self.model)
        async for line in self.stream_lines("/chat/completions", payload):
            if not line.startswith("data:"):
                stream.other.append(line)  # SSE comments, event names, or a plain JSON body
                continue
            data_text = line[5:].strip()
            if data_text == "[DONE]":
                break
            chunk = decode_json_line(data_text, self.backend_name)
            if "error" in chunk:
                raise LLMTransientError(f"{self.backend_name} stream error: {chunk['error']}")
            piece = stream.add(chunk)
            if guard is not None and guard.feed(piece):
                stream.finish = "repetition"  # leaving the loop closes the stream
                break
        if not stream.events and stream.other and stream.other[0].startswith("{"):
            whole = decode_json_line("\n".join(stream.other), self.backend_name)
            return self._parse(request, whole)
        text = "".join(stream.parts)
        usage = stream.usage
        return LLMResponse(
            text=text,
            finish_reason=stream.finish,
            usage=usage_or_estimate(
                request, text, usage.get("prompt_tokens"), usage.get("completion_tokens")
            ),
            model=stream.model,
        )


class _Stream:
    """What a chat-completions stream has said so far."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.parts: list[str] = []
        self.other: list[str] = []
        self.events = 0
        self.finish = "stop"
        self.usage: dict[str, Any] = {}

    def add(self, chunk: dict[str, Any]) -> str:
        """Take one event; the text it adds."""
        self.events += 1
        self.model = str(chunk.get("model") or self.model)
        self.usage = chunk.get("usage") or self.usage
        added = ""
        for choice in chunk.get("choices") or []:
            added += _content_text((choice.get("delta") or {}).get("content"))
            self.finish = str(choice.get("finish_reason") or self.finish)
        self.parts.append(added)
        return added


def _content_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)
