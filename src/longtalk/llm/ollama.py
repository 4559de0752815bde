"""Ollama's native ``/api/chat``: the episode-summary service's qwen2.5:3b, temperature 0.2.

The request carries ``options.temperature`` and ``options.num_predict`` from the
:class:`~longtalk.llm.base.LLMRequest`, ``format`` with the JSON schema for structured
output, and ``stream: false`` (or ``true``, assembling the NDJSON stream). Usage comes from
``prompt_eval_count`` / ``eval_count``; ``done_reason: "length"`` is a cut-off reply. A
request that sets ``stop_on_repetition`` is streamed by default and stopped (the stream
closed, which Ollama takes as "stop generating") once the reply loops.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import httpx

from longtalk.errors import ConfigError, LLMTransientError
from longtalk.llm._http import HTTPBackend, decode_json_line, usage_or_estimate
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.llm.repetition import RepetitionGuard
from longtalk.llm.retry import RetryPolicy

__all__ = ["DEFAULT_OLLAMA_MODEL", "DEFAULT_OLLAMA_URL", "OllamaLLM"]

DEFAULT_OLLAMA_URL = "http://localhost:11434"
DEFAULT_OLLAMA_MODEL = "qwen2.5:3b"


class OllamaLLM(HTTPBackend):
    """A model served by Ollama, through its native chat API.

    Args:
        model: An Ollama model tag (default ``qwen2.5:3b``, the episode-summary service's).
        base_url: The Ollama server; default ``$OLLAMA_HOST`` or ``http://localhost:11434``.
        options: Extra Ollama ``options`` (``num_ctx``, ``top_p``, ``seed``...); the request's
            temperature and max tokens override ``temperature`` / ``num_predict``.
        keep_alive: How long Ollama keeps the model loaded (``"5m"``, ``-1``...).
        stream: Stream the answer (NDJSON) and assemble it: True for every request, False
            for none, None (default) for the requests that ask to be stopped in a repetition
            loop (``LLMRequest.stop_on_repetition``).
        api_key: Sent as a bearer token, for an Ollama behind an authenticating proxy.
        timeout: Seconds per HTTP request; a cold model load can take a while.
        retry: Retry policy for transient failures.
        client: An ``httpx.AsyncClient`` to use instead of an owned one.
    """

    backend_name = "Ollama"
    probe_path = "/api/tags"

    def __init__(
        self,
        model: str = DEFAULT_OLLAMA_MODEL,
        *,
        base_url: str | None = None,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | int | None = None,
        stream: bool | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if not model:
            raise ConfigError("an Ollama backend needs a model tag", path="model")
        url = base_url or _host_from_env() or DEFAULT_OLLAMA_URL
        all_headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        all_headers.update(headers or {})
        super().__init__(url, timeout=timeout, retry=retry, headers=all_headers, client=client)
        self.model = model
        self.options = dict(options or {})
        self.keep_alive = keep_alive
        self.stream = stream

    def streams(self, request: LLMRequest) -> bool:
        """Whether ``request`` is sent as a stream (see ``stream``)."""
        return request.stop_on_repetition if self.stream is None else self.stream

    def payload(self, request: LLMRequest) -> dict[str, Any]:
        """The JSON body of an ``/api/chat`` request."""
        options = {**self.options, "temperature": request.temperature}
        if request.max_tokens is not None:
            options["num_predict"] = request.max_tokens
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": self.streams(request),
            "options": options,
        }
        if request.json_schema is not None:
            body["format"] = dict(request.json_schema)
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    async def _attempt(self, request: LLMRequest) -> LLMResponse:
        if not self.streams(request):
            data = await self.post_json("/api/chat", self.payload(request))
            return self._response(request, _message_text(data), data)
        guard = RepetitionGuard() if request.stop_on_repetition else None
        parts: list[str] = []
        final: dict[str, Any] = {}
        async for line in self.stream_lines("/api/chat", self.payload(request)):
            chunk = decode_json_line(line, self.backend_name)
            if "error" in chunk:
                raise LLMTransientError(f"Ollama stream error: {chunk['error']}")
            parts.append(_message_text(chunk))
            if chunk.get("done"):
                final = chunk
                break
            if guard is not None and guard.feed(parts[-1]):
                final = {"done_reason": "repetition"}  # leaving the loop closes the stream
                break
        if not final:
            raise LLMTransientError("the Ollama stream ended before its final chunk")
        return self._response(request, "".join(parts), final)

    def _response(self, request: LLMRequest, text: str, data: dict[str, Any]) -> LLMResponse:
        return LLMResponse(
            text=text,
            finish_reason=str(data.get("done_reason") or "stop"),
            usage=usage_or_estimate(
                request, text, data.get("prompt_eval_count"), data.get("eval_count")
            ),
            model=str(data.get("model") or self.model),
        )


def _message_text(data: Mapping[str, Any]) -> str:
    message = data.get("message") or {}
    return str(message.get("content") or "") if isinstance(message, dict) else ""


def _host_from_env() -> str | None:
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return None
    return host if "://" in host else f"http://{host}"
