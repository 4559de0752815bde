"""A reply that falls into a repetition loop is stopped early, over the real wire protocols."""

from __future__ import annotations

import json

import pytest
from llm_wire import Reply, ScriptedServer
from small_chat import long_chat

from longtalk.core.messages import format_transcript
from longtalk.errors import LLMOutputError
from longtalk.llm.base import LLMRequest, LLMResponse, prompt_request
from longtalk.llm.ollama import OllamaLLM
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.repetition import RepetitionGuard, looping
from longtalk.llm.retry import RetryPolicy, check_reply
from longtalk.summary.model import SCHEMA_BOUNDS, ConversationSummary, SummaryEntity

DATE_LOOP = ['{\n  "topics": [\n'] + [
    f'    "2023-05-08 {13 + m // 60}:{m % 60:02d}",\n' for m in range(120)
]
PARAGRAPH = (
    "Your event was amazing, and I'm so grateful to be a part of it. You've been doing a "
    "fantastic job of sharing your journey with others.\n\n"
)
NO_RETRY = RetryPolicy(max_attempts=1)


def summary_request() -> LLMRequest:
    return LLMRequest((prompt_request("Summarize.").messages[0],), stop_on_repetition=True)


def test_a_loop_is_recognised_with_a_counter_in_it() -> None:
    assert looping("".join(DATE_LOOP))
    assert looping("Hello.\n\n" + PARAGRAPH * 7)
    assert not looping("Hello.\n\n" + PARAGRAPH * 2)  # twice is not yet a loop
    assert not looping("")


def test_ordinary_text_and_bounded_summaries_are_not_loops() -> None:
    """A long transcript, and a structured summary filled to the schema's bounds."""
    transcript = format_transcript(long_chat(200))
    assert not any(looping(transcript[:end]) for end in range(400, len(transcript), 211))
    same = "x" * SCHEMA_BOUNDS["chars"]
    full = ConversationSummary(
        topics=tuple([same] * SCHEMA_BOUNDS["items"]),
        entities=tuple(
            SummaryEntity(name=same, type=same, details=same)
            for _ in range(SCHEMA_BOUNDS["entities"])
        ),
        narrative="a" * SCHEMA_BOUNDS["narrative"],
    )
    pretty = json.dumps(json.loads(full.to_json()), indent=2)
    prefix = pretty[: pretty.index('"narrative"')]
    assert not looping(prefix)  # a list of identical items closes before it loops


def test_the_guard_watches_a_stream_chunk_by_chunk() -> None:
    guard = RepetitionGuard()
    fed = 0
    for line in DATE_LOOP:
        fed += 1
        if guard.feed(line):
            break
    assert fed < len(DATE_LOOP) // 2
    assert guard.reply == "".join(DATE_LOOP[:fed])


def test_a_cut_off_reply_whose_tail_loops_is_reported_as_a_loop() -> None:
    response = LLMResponse("".join(DATE_LOOP), finish_reason="length")
    with pytest.raises(LLMOutputError, match="repetition loop") as raised:
        check_reply(response)
    assert raised.value.response.finish_reason == "repetition"  # type: ignore[attr-defined]
    with pytest.raises(LLMOutputError, match="cut off"):
        check_reply(LLMResponse("They planned", finish_reason="length"))


def sse_reply(pieces: list[str]) -> Reply:
    events = [
        {"model": "m", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
        for p in pieces
    ]
    lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
    return Reply(chunks=lines, content_type="text/event-stream")


async def test_a_summary_request_streams_and_stops_when_the_reply_loops(
    server: ScriptedServer,
) -> None:
    server.enqueue(sse_reply(DATE_LOOP))
    async with OpenAICompatibleLLM(
        "m", base_url=f"{server.url}/v1", api_key="", retry=NO_RETRY
    ) as llm:
        with pytest.raises(LLMOutputError, match="repetition loop") as raised:
            await llm.complete(summary_request())
        response = raised.value.response  # type: ignore[attr-defined]
        assert response.finish_reason == "repetition"
        assert len(response.text) < len("".join(DATE_LOOP)) // 2
        assert response.usage.output_tokens > 0  # estimated: the server never said
        assert server.requests[0].body["stream"] is True
        server.enqueue(Reply({"choices": [{"message": {"content": "Hi"}}], "model": "m"}))
        assert (await llm.complete(prompt_request("hi"))).text == "Hi"
        assert server.requests[1].body["stream"] is False  # other requests as configured


async def test_a_server_that_ignores_stream_is_read_whole(server: ScriptedServer) -> None:
    choice = {"message": {"content": "They met."}, "finish_reason": "stop"}
    server.enqueue(Reply({"choices": [choice], "model": "m"}))
    async with OpenAICompatibleLLM(
        "m", base_url=f"{server.url}/v1", api_key="", retry=NO_RETRY
    ) as llm:
        assert (await llm.complete(summary_request())).text == "They met."


async def test_ollama_stops_a_looping_summary_too(server: ScriptedServer) -> None:
    lines = [
        json.dumps({"model": "q", "message": {"content": piece}, "done": False}) + "\n"
        for piece in DATE_LOOP
    ]
    server.enqueue(Reply(chunks=lines, content_type="application/x-ndjson"))
    async with OllamaLLM("q", base_url=server.url, retry=NO_RETRY) as llm:
        with pytest.raises(LLMOutputError, match="repetition loop"):
            await llm.complete(summary_request())
    assert server.requests[0].body["stream"] is True
