"""The HTTP plumbing the OpenAI-compatible and Ollama backends share (httpx, async).

httpx errors never leave this module: timeouts and connection failures become
:class:`~longtalk.errors.LLMTransientError`, error statuses the typed errors of
:func:`longtalk.llm.retry.status_error`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import httpx

from longtalk.core.redact import redact
from longtalk.core.tokens import DEFAULT_COUNTER, TokenUsage
from longtalk.errors import LLMTransientError
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.llm.retry import RetryPolicy, check_reply, status_error, with_retries

T = TypeVar("T")


class HTTPBackend:
    """A JSON-over-HTTP backend with an owned (or injected) ``httpx.AsyncClient``.

    The owned client pools connections, which belong to the event loop that opened them:
    use a backend from one loop and ``aclose()`` it (or ``async with`` it) when done.
    """

    backend_name = "LLM"
    probe_path = "/models"
    """A cheap GET that answers 2xx when the server is up (``ping``)."""
    model: str
    """The model every request names."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        retry: RetryPolicy | None,
        headers: Mapping[str, str] | None,
        client: httpx.AsyncClient | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._headers = dict(headers or {})
        self._client = client
        self._owns_client = client is None

    @property
    def client(self) -> httpx.AsyncClient:
        """The HTTP client, created on first use."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=10.0))
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client if this backend created it."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, base_url={redact(self.base_url)!r})"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete the chat; transient failures are retried per ``retry``."""
        response = await with_retries(
            lambda: self.within_deadline(self._attempt(request)), self.retry
        )
        return check_reply(response)

    async def _attempt(self, request: LLMRequest) -> LLMResponse:
        """One call to the server, bounded and retried by :meth:`complete`."""
        raise NotImplementedError

    async def __aenter__(self) -> HTTPBackend:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def within_deadline(self, call: Awaitable[T]) -> T:
        """``call`` bounded as a whole (connect to last byte) by ``timeout`` seconds.

        httpx's own timeout is per read, so a server that trickles bytes could hold a call
        forever; this deadline covers the whole exchange.
        """
        try:
            async with asyncio.timeout(self.timeout):
                return await call
        except TimeoutError as exc:
            raise LLMTransientError(
                f"{self.backend_name} timed out: no complete answer within {self.timeout:g} s "
                "(llm.timeout_seconds)"
            ) from exc

    async def ping(self, timeout: float = 5.0) -> None:
        """Reach the server with one cheap GET; ``LLMTransientError`` when it is not up."""
        url = f"{self.base_url}{self.probe_path}"
        try:
            response = await self.client.get(url, headers=self._headers, timeout=timeout)
        except httpx.HTTPError as exc:
            raise LLMTransientError(
                f"{self.backend_name} unreachable at {redact(url)}: {exc}"
            ) from exc
        self._raise_for_status(response)

    async def post_json(self, path: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """POST JSON and return the decoded JSON object of a 2xx answer."""
        url = f"{self.base_url}{path}"
        with self._transport_errors(url):
            response = await self.client.post(url, json=payload, headers=self._headers)
        self._raise_for_status(response)
        try:
            data = response.json()
        except ValueError as exc:
            raise LLMTransientError(
                f"{self.backend_name} answered with invalid JSON: {response.text[:200]}"
            ) from exc
        if not isinstance(data, dict):
            raise LLMTransientError(f"{self.backend_name} answered with a non-object JSON")
        return data

    async def stream_lines(self, path: str, payload: Mapping[str, Any]) -> AsyncIterator[str]:
        """POST JSON and yield the non-empty lines of a streamed 2xx answer."""
        url = f"{self.base_url}{path}"
        with self._transport_errors(url):
            async with self.client.stream(
                "POST", url, json=payload, headers=self._headers
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    self._raise_for_status(response)
                async for line in response.aiter_lines():
                    if line.strip():
                        yield line

    @contextmanager
    def _transport_errors(self, url: str) -> Iterator[None]:
        """A timeout or a broken connection to ``url`` as ``LLMTransientError``."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise LLMTransientError(f"{self.backend_name} timed out: {redact(url)}") from exc
        except httpx.TransportError as exc:
            raise LLMTransientError(
                f"{self.backend_name} unreachable at {redact(url)}: {exc}"
            ) from exc

    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        raise status_error(
            f"{self.backend_name} {redact(str(response.request.url))}",
            response.status_code,
            response.text,
            retry_after=response.headers.get("retry-after"),
        )


def decode_json_line(line: str, backend: str) -> dict[str, Any]:
    """One JSON object of a stream; a malformed line is a transient error."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise LLMTransientError(f"{backend} streamed invalid JSON: {line[:200]}") from exc
    if not isinstance(data, dict):
        raise LLMTransientError(f"{backend} streamed a non-object: {line[:200]}")
    return data


def estimate_usage(request: LLMRequest, text: str) -> TokenUsage:
    """Token usage estimated with the default counter, for servers that report none."""
    prompt = sum(DEFAULT_COUNTER.count(m.content) + 4 for m in request.messages)
    return TokenUsage(prompt, DEFAULT_COUNTER.count(text))


def usage_or_estimate(
    request: LLMRequest, text: str, input_tokens: Any, output_tokens: Any
) -> TokenUsage:
    """The server's counts when it gave both as integers, else an estimate."""
    if isinstance(input_tokens, int) and isinstance(output_tokens, int):
        return TokenUsage(input_tokens, output_tokens)
    return estimate_usage(request, text)
