"""OpenTelemetry spans and GenAI metrics (``pip install longtalk[otel]``).

``instrument(engine)`` traces the memory operations (``longtalk.append``,
``longtalk.get_context``, ``longtalk.summarize``, ``longtalk.delete_chat``) and wraps the
engine's summary and title models in :class:`TracedLLM`, which follows the OpenTelemetry
GenAI semantic conventions: a ``chat {model}`` client span per call with the
``gen_ai.usage.*`` attributes, and the ``gen_ai.client.token.usage`` and
``gen_ai.client.operation.duration`` histograms. ``longtalk.context.tokens`` records the
tokens of each assembled context part. Only ``opentelemetry-api`` is needed; without an SDK
configured every call is a no-op.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from longtalk.core.context import AssembledContext
from longtalk.engine import MemoryEngine
from longtalk.errors import needs_extra
from longtalk.llm.base import LLM, LLMRequest, LLMResponse

try:
    from opentelemetry import metrics, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra("longtalk.integrations.otel", "OpenTelemetry", "otel", exc) from exc

__all__ = ["TracedLLM", "instrument"]

SCOPE = "longtalk"
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48)
T = TypeVar("T")


class _Instruments:
    """The tracer and the three histograms, from the given or the global providers."""

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None,
        meter_provider: metrics.MeterProvider | None,
    ) -> None:
        self.tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, meter_provider=meter_provider)
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=list(TOKEN_BUCKETS),
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self.context_tokens = meter.create_histogram(
            "longtalk.context.tokens",
            unit="{token}",
            description="Tokens of each part of an assembled context.",
            explicit_bucket_boundaries_advisory=list(TOKEN_BUCKETS),
        )


class TracedLLM:
    """An ``LLM`` whose every call is a GenAI client span with token and duration metrics."""

    def __init__(
        self,
        llm: LLM,
        *,
        provider: str | None = None,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        instruments: _Instruments | None = None,
    ) -> None:
        self.llm = llm
        self.model = str(getattr(llm, "model", "") or "")
        self.provider = provider or _provider_of(llm)
        self._instruments = instruments or _Instruments(tracer_provider, meter_provider)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete through the wrapped model inside a ``chat {model}`` span."""
        tools = self._instruments
        base = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": self.provider}
        if self.model:
            base["gen_ai.request.model"] = self.model
        name = f"chat {self.model}" if self.model else "chat"
        started = time.perf_counter()
        with tools.tracer.start_as_current_span(
            name, kind=SpanKind.CLIENT, attributes=_request_attributes(base, request)
        ) as span:
            try:
                response = await self.llm.complete(request)
            except Exception as exc:
                error = {**base, "error.type": type(exc).__qualname__}
                tools.duration.record(time.perf_counter() - started, error)
                span.set_attribute("error.type", type(exc).__qualname__)
                span.set_status(Status(StatusCode.ERROR, str(exc)))
                raise
            measured = {**base, "gen_ai.response.model": response.model or self.model}
            tools.duration.record(time.perf_counter() - started, measured)
            usage = response.usage
            tools.token_usage.record(usage.input_tokens, {**measured, "gen_ai.token.type": "input"})
            tools.token_usage.record(
                usage.output_tokens, {**measured, "gen_ai.token.type": "output"}
            )
            span.set_attributes(
                {
                    "gen_ai.response.model": response.model or self.model,
                    "gen_ai.response.finish_reasons": (response.finish_reason,),
                    "gen_ai.usage.input_tokens": usage.input_tokens,
                    "gen_ai.usage.output_tokens": usage.output_tokens,
                }
            )
            return response


def instrument(
    engine: MemoryEngine,
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> MemoryEngine:
    """Trace ``engine``'s operations and its models' calls; returns the same engine.

    Instrumenting twice is a no-op. Providers default to the global ones.
    """
    if getattr(engine, "_longtalk_otel", False):
        return engine
    tools = _Instruments(tracer_provider, meter_provider)
    writer_llm = getattr(engine.writer, "llm", None)
    if writer_llm is not None:
        engine.writer.llm = TracedLLM(writer_llm, instruments=tools)  # type: ignore[attr-defined]
    if engine.title_llm is not None:
        engine.title_llm = TracedLLM(engine.title_llm, instruments=tools)
    for method in ("append", "summarize", "delete_chat"):
        setattr(engine, method, _traced(tools, method, getattr(engine, method)))
    setattr(engine, "get_context", _traced_context(tools, engine.get_context))  # noqa: B010
    engine._longtalk_otel = True  # type: ignore[attr-defined]
    return engine


def _traced(
    tools: _Instruments, operation: str, method: Callable[..., Awaitable[T]]
) -> Callable[..., Awaitable[T]]:
    @functools.wraps(method)
    async def traced(chat_id: str, *args: Any, **kwargs: Any) -> T:
        attributes = {"longtalk.operation": operation, "longtalk.chat.id": chat_id}
        with tools.tracer.start_as_current_span(f"longtalk.{operation}", attributes=attributes):
            return await method(chat_id, *args, **kwargs)

    return traced


def _traced_context(
    tools: _Instruments, method: Callable[..., Awaitable[AssembledContext]]
) -> Callable[..., Awaitable[AssembledContext]]:
    @functools.wraps(method)
    async def traced(chat_id: str, *args: Any, **kwargs: Any) -> AssembledContext:
        attributes = {"longtalk.operation": "get_context", "longtalk.chat.id": chat_id}
        with tools.tracer.start_as_current_span(
            "longtalk.get_context", attributes=attributes
        ) as span:
            context = await method(chat_id, *args, **kwargs)
            span.set_attributes(
                {
                    "longtalk.context.tokens_used": context.tokens_used,
                    "longtalk.context.budget_tokens": context.budget_tokens,
                    "longtalk.context.parts": tuple(part.kind for part in context.parts),
                    "longtalk.context.dropped_recalled": context.dropped_recalled,
                    "longtalk.context.dropped_verbatim": context.dropped_verbatim,
                }
            )
            for part in context.parts:
                tools.context_tokens.record(part.tokens, {"longtalk.context.part": part.kind})
            return context

    return traced


def _request_attributes(base: dict[str, str], request: LLMRequest) -> dict[str, Any]:
    attributes: dict[str, Any] = {**base, "gen_ai.request.temperature": request.temperature}
    if request.max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = request.max_tokens
    if request.json_schema is not None:
        attributes["gen_ai.output.type"] = "json"
    return attributes


def _provider_of(llm: LLM) -> str:
    name = type(llm).__name__.lower()
    for provider in ("ollama", "litellm", "openai"):
        if provider in name:
            return provider
    return "longtalk"
