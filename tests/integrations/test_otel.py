"""OpenTelemetry spans and GenAI metrics, read back through the SDK's in-memory exporters.

The summary model is the real OpenAI-compatible backend talking HTTP to a scripted
chat-completions server on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from llm_wire import Reply, ScriptedServer
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.errors import LLMPermanentError
from longtalk.integrations.otel import TracedLLM, instrument
from longtalk.llm.base import prompt_request
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter

SUMMARY = {"narrative": "They planned a Lisbon trip.", "topics": ["travel"]}


def completion(text: str, input_tokens: int, output_tokens: int) -> Reply:
    return Reply(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "served-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens},
        }
    )


@dataclass
class Telemetry:
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        assert data is not None
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]


@pytest.fixture
def telemetry() -> Telemetry:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    return Telemetry(spans, reader, tracer_provider, MeterProvider(metric_readers=[reader]))


def backend(server: ScriptedServer) -> OpenAICompatibleLLM:
    retry = RetryPolicy(max_attempts=1, initial_delay=0.01, max_delay=0.01)
    return OpenAICompatibleLLM(
        "gpt-test", base_url=f"{server.url}/v1", api_key="sk-test", retry=retry
    )


@pytest.fixture
async def engine(tmp_path: Path, server: ScriptedServer) -> AsyncIterator[MemoryEngine]:
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=1,
        context_max_tokens=100,
        summary_share=0.5,  # room for the whole one-line summary beside the window
    )
    async with from_url(f"sqlite:///{tmp_path / 'otel.db'}") as storage, backend(server) as llm:
        writer = LLMSummaryWriter(llm, use_json_schema=False)
        yield MemoryEngine(storage, config=config, writer=writer)


async def test_memory_operations_and_model_calls_are_traced(
    engine: MemoryEngine, server: ScriptedServer, telemetry: Telemetry
) -> None:
    server.responder = lambda seen: completion(json.dumps(SUMMARY), 31, 4)
    instrument(
        engine,
        tracer_provider=telemetry.tracer_provider,
        meter_provider=telemetry.meter_provider,
    )
    assert instrument(engine) is engine  # a second call changes nothing
    await engine.create_chat("trip")
    turns = [
        user("Can you find us a quiet hotel in Alfama for the first three nights?"),
        assistant("Yes: two small guesthouses near the castle have rooms, both with views."),
        user("And how do we get from there to Belém and the monastery?"),
        assistant("Take tram 15 from Praça da Figueira; it stops right at the monastery."),
        user("Is the Gulbenkian museum worth half a day, or should we skip it?"),
        assistant("Worth it: the collection is small but superb, and the garden is lovely."),
    ]
    await engine.append("trip", turns)
    await engine.summarize("trip", force=True)
    context = await engine.get_context("trip", "hotel")

    spans = {span.name: span for span in telemetry.finished()}
    assert {
        "longtalk.append",
        "longtalk.summarize",
        "chat gpt-test",
        "longtalk.get_context",
    } <= set(spans)
    chat = spans["chat gpt-test"]
    summarize = spans["longtalk.summarize"]
    assert chat.kind is SpanKind.CLIENT
    assert chat.parent is not None and chat.parent.span_id == summarize.context.span_id
    assert chat.attributes is not None
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert chat.attributes["gen_ai.request.model"] == "gpt-test"
    assert chat.attributes["gen_ai.response.model"] == "served-model"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 31
    assert chat.attributes["gen_ai.usage.output_tokens"] == 4
    assert summarize.attributes is not None
    assert summarize.attributes["longtalk.chat.id"] == "trip"
    built = spans["longtalk.get_context"].attributes
    assert built is not None
    assert built["longtalk.context.tokens_used"] == context.tokens_used
    assert list(built["longtalk.context.parts"]) == [part.kind for part in context.parts]

    calls = len(server.requests)
    assert calls >= 1
    usage = {
        point.attributes["gen_ai.token.type"]: point
        for point in telemetry.points("gen_ai.client.token.usage")
    }
    assert (usage["input"].sum, usage["input"].count) == (31 * calls, calls)
    assert (usage["output"].sum, usage["output"].count) == (4 * calls, calls)
    assert usage["input"].attributes["gen_ai.request.model"] == "gpt-test"
    (duration,) = telemetry.points("gen_ai.client.operation.duration")
    assert duration.count == calls and duration.sum > 0
    by_part = {
        point.attributes["longtalk.context.part"]: point.sum
        for point in telemetry.points("longtalk.context.tokens")
    }
    assert by_part == {part.kind: part.tokens for part in context.parts}
    assert "summary" in by_part


async def test_a_failing_call_is_an_error_span(
    server: ScriptedServer, telemetry: Telemetry
) -> None:
    server.enqueue(Reply({"error": {"message": "bad key"}}, status=401))
    async with backend(server) as llm:
        traced = TracedLLM(
            llm,
            tracer_provider=telemetry.tracer_provider,
            meter_provider=telemetry.meter_provider,
        )
        assert traced.model == "gpt-test"
        with pytest.raises(LLMPermanentError) as raised:
            await traced.complete(prompt_request("Summarize."))
    (span,) = telemetry.finished()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == raised.type.__qualname__
    (duration,) = telemetry.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == raised.type.__qualname__
    assert "bad key" in (span.status.description or "")
    assert telemetry.points("gen_ai.client.token.usage") == []
