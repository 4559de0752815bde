"""OllamaLLM against a real HTTP server speaking Ollama's native /api/chat protocol."""

from __future__ import annotations

import json

import pytest
from llm_wire import Reply, ScriptedServer

from longtalk.errors import LLMOutputError, LLMPermanentError, LLMTransientError
from longtalk.llm.base import prompt_request
from longtalk.llm.ollama import OllamaLLM
from longtalk.llm.retry import RetryPolicy

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.05)
SCHEMA = {"type": "object", "properties": {"topics": {"type": "array"}}}


def chat(text: str, done_reason: str = "stop", counts: bool = True) -> Reply:
    body = {
        "model": "qwen2.5:3b",
        "created_at": "2026-11-22T12:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": True,
        "done_reason": done_reason,
    }
    if counts:
        body |= {"prompt_eval_count": 42, "eval_count": 7}
    return Reply(body)


def ndjson(*chunks: dict) -> Reply:
    return Reply(chunks=[json.dumps(c) + "\n" for c in chunks], content_type="application/x-ndjson")


def piece(text: str) -> dict:
    return {"model": "qwen2.5:3b", "message": {"role": "assistant", "content": text}, "done": False}


def ollama(server: ScriptedServer, **kwargs) -> OllamaLLM:
    kwargs.setdefault("retry", FAST)
    return OllamaLLM(base_url=server.url, **kwargs)


async def test_seed_002_request_shape(server: ScriptedServer) -> None:
    server.enqueue(chat("The user asked about the weather."))
    async with ollama(server, options={"num_ctx": 4096}) as backend:
        response = await backend.complete(prompt_request("Summarize.", json_schema=SCHEMA))
    seen = server.requests[0]
    assert seen.path == "/api/chat"
    assert seen.body["model"] == "qwen2.5:3b"
    assert seen.body["stream"] is False
    assert seen.body["options"] == {"num_ctx": 4096, "temperature": 0.2, "num_predict": 500}
    assert seen.body["format"] == SCHEMA
    assert seen.body["messages"] == [{"role": "user", "content": "Summarize."}]
    assert response.text == "The user asked about the weather."
    assert (response.usage.input_tokens, response.usage.output_tokens) == (42, 7)


async def test_free_text_has_no_format_and_missing_counts_are_estimated(
    server: ScriptedServer,
) -> None:
    server.enqueue(chat("A plain summary.", counts=False))
    async with ollama(server) as backend:
        response = await backend.complete(prompt_request("Summarize."))
    assert "format" not in server.requests[0].body
    assert response.usage.output_tokens == 4


async def test_done_reason_length_is_a_cut_off(server: ScriptedServer) -> None:
    server.enqueue(chat("The user and the assistant discussed", done_reason="length"))
    async with ollama(server) as backend:
        with pytest.raises(LLMOutputError, match="num_predict"):
            await backend.complete(prompt_request("Summarize."))
    assert len(server.requests) == 1


async def test_unknown_model_is_permanent(server: ScriptedServer) -> None:
    server.enqueue(Reply({"error": 'model "qwen9:1b" not found, try pulling it first'}, status=404))
    async with ollama(server, model="qwen9:1b") as backend:
        with pytest.raises(LLMPermanentError, match="try pulling it first") as caught:
            await backend.complete(prompt_request("hi"))
    assert "model name" in str(caught.value)
    assert len(server.requests) == 1


async def test_server_error_is_retried(server: ScriptedServer) -> None:
    server.enqueue(Reply({"error": "llama runner process has terminated"}, status=500))
    server.enqueue(chat("Recovered."))
    async with ollama(server) as backend:
        response = await backend.complete(prompt_request("hi"))
    assert response.text == "Recovered."
    assert len(server.requests) == 2


async def test_streamed_ndjson_is_assembled(server: ScriptedServer) -> None:
    final = {"model": "qwen2.5:3b", "message": {"role": "assistant", "content": ""}, "done": True}
    final |= {"done_reason": "stop", "prompt_eval_count": 20, "eval_count": 3}
    server.enqueue(ndjson(piece("Bob "), piece("likes "), piece("tea."), final))
    server.enqueue(chat("Bob likes tea."))
    async with ollama(server, stream=True) as streaming:
        streamed = await streaming.complete(prompt_request("hi"))
    async with ollama(server) as plain:
        whole = await plain.complete(prompt_request("hi"))
    assert streamed.text == whole.text == "Bob likes tea."
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (20, 3)
    assert server.requests[0].body["stream"] is True


async def test_stream_that_ends_early_is_transient(server: ScriptedServer) -> None:
    server.enqueue(*[ndjson(piece("half an answer")) for _ in range(3)])
    async with ollama(server, stream=True) as backend:
        with pytest.raises(LLMTransientError, match="final chunk"):
            await backend.complete(prompt_request("hi"))
    assert len(server.requests) == 3


async def test_ollama_host_env(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", server.url.removeprefix("http://"))
    server.enqueue(chat("ok"))
    async with OllamaLLM(retry=FAST) as backend:
        assert (await backend.complete(prompt_request("hi"))).text == "ok"
    assert backend.base_url == server.url
