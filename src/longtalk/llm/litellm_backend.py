"""LiteLLM provider strings (``gemini/gemini-2.5-flash-lite``, ``anthropic/...``): an extra.

``pip install 'longtalk[litellm]'``. LiteLLM's own retries are switched off
(``num_retries=0``) so that longtalk's :class:`~longtalk.llm.retry.RetryPolicy` is the only
one; its exceptions are translated by their HTTP status (LiteLLM's exceptions carry the
provider's) or, without one, by kind (timeouts and connection errors are transient).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from longtalk.errors import (
    ConfigError,
    LLMError,
    LLMPermanentError,
    LLMTransientError,
    MissingExtraError,
)
from longtalk.llm._http import usage_or_estimate
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.llm.retry import RetryPolicy, check_reply, status_error, with_retries

__all__ = ["LiteLLMLLM"]

_TRANSIENT_KINDS = ("timeout", "connection", "ratelimit", "serviceunavailable", "internalserver")


def _import_litellm() -> Any:
    try:
        return importlib.import_module("litellm")
    except ImportError as exc:
        raise MissingExtraError("litellm", "litellm") from exc


class LiteLLMLLM:
    """Any provider LiteLLM knows, through ``litellm.acompletion``.

    Args:
        model: A LiteLLM provider string, e.g. ``gemini/gemini-2.5-flash-lite`` (Orchid's).
        api_key: Passed through; when None LiteLLM reads the provider's usual variable
            (``GEMINI_API_KEY``, ``ANTHROPIC_API_KEY``...).
        base_url: ``api_base`` for self-hosted or proxied providers.
        timeout: Seconds per call.
        retry: Retry policy for transient failures.
        extra: More keyword arguments for ``acompletion`` (``top_p``, ``safety_settings``...).

    Raises:
        MissingExtraError: LiteLLM is not installed.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        if not model:
            raise ConfigError("a LiteLLM backend needs a provider/model string", path="model")
        self._litellm = _import_litellm()
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.extra = dict(extra or {})

    def __repr__(self) -> str:
        return f"LiteLLMLLM({self.model!r})"

    def arguments(self, request: LLMRequest) -> dict[str, Any]:
        """The keyword arguments of one ``litellm.acompletion`` call."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "timeout": self.timeout,
            "num_retries": 0,
            **self.extra,
        }
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        if request.json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": dict(request.json_schema)},
            }
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key
        if self.base_url is not None:
            kwargs["api_base"] = self.base_url
        return kwargs

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete the chat; transient failures are retried per ``retry``."""
        response = await with_retries(lambda: self._attempt(request), self.retry)
        return check_reply(response)

    async def _attempt(self, request: LLMRequest) -> LLMResponse:
        try:
            reply = await self._litellm.acompletion(**self.arguments(request))
        except Exception as exc:  # noqa: BLE001 - LiteLLM raises its own tree; translated here
            raise _translate(exc, self.model) from exc
        return _response(request, reply, self.model)


def _translate(exc: Exception, model: str) -> LLMError:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status >= 400:
        body = str(getattr(exc, "message", "") or exc)
        return status_error(f"LiteLLM {model}", status, body)
    kind = type(exc).__name__.lower()
    if isinstance(exc, TimeoutError | ConnectionError) or any(k in kind for k in _TRANSIENT_KINDS):
        return LLMTransientError(f"LiteLLM {model}: {type(exc).__name__}: {exc}")
    return LLMPermanentError(f"LiteLLM {model}: {type(exc).__name__}: {exc}")


def _field(obj: Any, name: str) -> Any:
    """An attribute or a mapping key: LiteLLM's response objects allow both."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _response(request: LLMRequest, reply: Any, model: str) -> LLMResponse:
    choices = _field(reply, "choices") or []
    if not choices:
        raise LLMTransientError(f"LiteLLM {model} answered without choices")
    message = _field(choices[0], "message")
    text = str(_field(message, "content") or "") if message is not None else ""
    usage = _field(reply, "usage")
    return LLMResponse(
        text=text,
        finish_reason=str(_field(choices[0], "finish_reason") or "stop"),
        usage=usage_or_estimate(
            request,
            text,
            _field(usage, "prompt_tokens") if usage is not None else None,
            _field(usage, "completion_tokens") if usage is not None else None,
        ),
        model=str(_field(reply, "model") or model),
    )
