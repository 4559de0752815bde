"""OpenAICompatibleLLM against a real HTTP server speaking the chat-completions protocol."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from llm_wire import Reply, ScriptedServer

from longtalk.errors import (
    HTTPStatusError,
    LLMOutputError,
    LLMPermanentError,
    LLMTransientError,
)
from longtalk.llm.base import ChatMessage, LLMRequest, prompt_request
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.retry import RetryPolicy

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.05)
SCHEMA = {"type": "object", "properties": {"narrative": {"type": "string"}}}


def completion(text: str, finish: str = "stop", usage: dict[str, int] | None = None) -> Reply:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return Reply(body)


def sse(*events: dict | str) -> Reply:
    lines = [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events]
    return Reply(chunks=[": keep-alive\n\n", *lines], content_type="text/event-stream")


def delta(text: str | None, finish: str | None = None) -> dict:
    return {
        "model": "served-model",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }


def llm(server: ScriptedServer, **kwargs) -> OpenAICompatibleLLM:
    kwargs.setdefault("retry", FAST)
    kwargs.setdefault("api_key", "sk-test")
    return OpenAICompatibleLLM("gpt-test", base_url=f"{server.url}/v1", **kwargs)


async def test_request_shape_and_usage(server: ScriptedServer) -> None:
    server.enqueue(completion("A summary.", usage={"prompt_tokens": 31, "completion_tokens": 4}))
    request = LLMRequest(
        messages=(ChatMessage("system", "Be brief."), ChatMessage("user", "Summarize.")),
        temperature=0.2,
        max_tokens=500,
        json_schema=SCHEMA,
        schema_name="conversation_summary",
    )
    async with llm(server, strict=True) as backend:
        response = await backend.complete(request)
    assert response.text == "A summary."
    assert (response.usage.input_tokens, response.usage.output_tokens) == (31, 4)
    assert response.model == "served-model"
    seen = server.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body["model"] == "gpt-test"
    assert seen.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Summarize."},
    ]
    assert seen.body["temperature"] == 0.2
    assert seen.body["max_tokens"] == 500
    assert seen.body["stream"] is False
    assert seen.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "conversation_summary", "schema": SCHEMA, "strict": True},
    }


async def test_api_key_from_a_configurable_env_var(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_GATEWAY_KEY", "from-env")
    server.enqueue(completion("ok"), completion("ok"))
    async with llm(server, api_key=None, api_key_env="MY_GATEWAY_KEY") as backend:
        await backend.complete(prompt_request("hi"))
    monkeypatch.delenv("MY_GATEWAY_KEY")
    async with llm(server, api_key=None, api_key_env="MY_GATEWAY_KEY") as backend:
        await backend.complete(prompt_request("hi"))
    assert server.requests[0].headers["authorization"] == "Bearer from-env"
    assert "authorization" not in server.requests[1].headers
    assert "response_format" not in server.requests[1].body


async def test_usage_is_estimated_when_the_server_reports_none(server: ScriptedServer) -> None:
    server.enqueue(completion("twelve chars"))
    async with llm(server) as backend:
        response = await backend.complete(prompt_request("x" * 400))
    assert response.usage.input_tokens >= 100
    assert response.usage.output_tokens == 3


async def test_rejected_json_schema_falls_back_to_json_object_and_is_remembered(
    server: ScriptedServer,
) -> None:
    rejection = Reply(
        {"error": {"message": "response_format type json_schema is not supported"}}, status=400
    )
    server.enqueue(rejection, completion('{"narrative": "x"}'), completion('{"narrative": "y"}'))
    request = prompt_request("Answer in JSON.", json_schema=SCHEMA)
    async with llm(server) as backend:
        first = await backend.complete(request)
        second = await backend.complete(request)
    assert (first.text, second.text) == ('{"narrative": "x"}', '{"narrative": "y"}')
    formats = [r.body["response_format"]["type"] for r in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]


async def test_no_fallback_when_disabled(server: ScriptedServer) -> None:
    server.enqueue(Reply({"error": {"message": "json_schema unsupported"}}, status=400))
    async with llm(server, schema_fallback=False) as backend:
        with pytest.raises(LLMPermanentError):
            await backend.complete(prompt_request("x", json_schema=SCHEMA))
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "Incorrect API key provided"), (403, "forbidden"), (404, "model not found")],
)
async def test_permanent_errors_raise_at_once_with_status_and_body(
    server: ScriptedServer, status: int, message: str
) -> None:
    server.enqueue(Reply({"error": {"message": message}}, status=status))
    async with llm(server) as backend:
        with pytest.raises(LLMPermanentError) as caught:
            await backend.complete(prompt_request("hi"))
    assert isinstance(caught.value, HTTPStatusError)
    assert caught.value.status_code == status
    assert message in caught.value.body
    assert str(status) in str(caught.value)
    assert len(server.requests) == 1


async def test_server_errors_are_retried_then_give_up(server: ScriptedServer) -> None:
    server.enqueue(*[Reply({"error": "overloaded"}, status=503) for _ in range(5)])
    async with llm(server) as backend:
        with pytest.raises(LLMTransientError) as caught:
            await backend.complete(prompt_request("hi"))
    assert len(server.requests) == 3
    assert isinstance(caught.value, HTTPStatusError) and caught.value.status_code == 503


async def test_rate_limit_honours_retry_after(server: ScriptedServer) -> None:
    server.enqueue(Reply({"error": "slow down"}, status=429, headers={"Retry-After": "0"}))
    server.enqueue(completion("done"))
    patient = RetryPolicy(max_attempts=2, initial_delay=60.0, max_delay=60.0, jitter=0.0)
    async with llm(server, retry=patient) as backend:
        response = await asyncio.wait_for(backend.complete(prompt_request("hi")), 10)
    assert response.text == "done"
    assert len(server.requests) == 2


async def test_timeouts_are_transient_and_retried(server: ScriptedServer) -> None:
    server.enqueue(Reply(delay=3.0, body={}), Reply(delay=3.0, body={}))
    policy = RetryPolicy(max_attempts=2, initial_delay=0.01)
    async with llm(server, timeout=0.5, retry=policy) as backend:
        with pytest.raises(LLMTransientError, match="timed out"):
            await backend.complete(prompt_request("hi"))
    for _ in range(40):  # on a loaded machine the server thread may record the retry late
        if len(server.requests) == 2:
            break
        await asyncio.sleep(0.05)
    assert len(server.requests) == 2


async def test_connection_refused_is_transient() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = OpenAICompatibleLLM(
        "m", base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(max_attempts=1)
    )
    with pytest.raises(LLMTransientError, match="unreachable"):
        await backend.complete(prompt_request("hi"))
    await backend.aclose()


async def test_length_finish_is_an_output_error_not_retried(server: ScriptedServer) -> None:
    server.enqueue(completion("The user asked about", finish="length"))
    async with llm(server) as backend:
        with pytest.raises(LLMOutputError, match="cut off"):
            await backend.complete(prompt_request("hi"))
    assert len(server.requests) == 1


async def test_special_tokens_are_stripped_and_empty_is_an_error(server: ScriptedServer) -> None:
    server.enqueue(completion("<think>plan</think>The summary.<|im_end|>"))
    server.enqueue(completion("<|im_start|>assistant\n<|im_end|>"))
    async with llm(server) as backend:
        assert (await backend.complete(prompt_request("a"))).text == "The summary."
        with pytest.raises(LLMOutputError, match="empty"):
            await backend.complete(prompt_request("b"))


async def test_streamed_answer_is_assembled_like_a_plain_one(server: ScriptedServer) -> None:
    server.enqueue(
        sse(
            delta("The user "),
            delta("moved to "),
            delta(None),
            delta("Lyon.", finish="stop"),
            {
                "model": "served-model",
                "choices": [],
                "usage": {"prompt_tokens": 9, "completion_tokens": 5},
            },
            "[DONE]",
        )
    )
    server.enqueue(completion("The user moved to Lyon."))
    async with llm(server, stream=True) as streaming:
        streamed = await streaming.complete(prompt_request("hi"))
    async with llm(server) as plain:
        whole = await plain.complete(prompt_request("hi"))
    assert streamed.text == whole.text == "The user moved to Lyon."
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (9, 5)
    assert server.requests[0].body["stream"] is True
    assert server.requests[0].body["stream_options"] == {"include_usage": True}
    assert server.requests[1].body["stream"] is False


async def test_streamed_length_finish_is_an_output_error(server: ScriptedServer) -> None:
    server.enqueue(sse(delta("cut"), delta(" off", finish="length"), "[DONE]"))
    async with llm(server, stream=True) as backend:
        with pytest.raises(LLMOutputError):
            await backend.complete(prompt_request("hi"))


async def test_streamed_error_status_is_typed(server: ScriptedServer) -> None:
    server.enqueue(Reply({"error": {"message": "The model `x` does not exist"}}, status=404))
    async with llm(server, stream=True) as backend:
        with pytest.raises(LLMPermanentError, match="does not exist"):
            await backend.complete(prompt_request("hi"))
