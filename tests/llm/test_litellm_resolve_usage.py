"""LiteLLM mapping (through a stand-in module: the real one is an extra), the resolver, usage."""

from __future__ import annotations

import random
import sys
import types
from typing import Any

import prometheus_client
import pytest
from llm_wire import Reply, ScriptedServer

from longtalk.errors import (
    LLMOutputError,
    LLMPermanentError,
    LLMTransientError,
    MissingExtraError,
    UnknownBackendError,
)
from longtalk.llm.base import LLMRequest, LLMResponse, TokenUsage, prompt_request
from longtalk.llm.ollama import OllamaLLM
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.resolve import resolve_llm
from longtalk.llm.retry import RetryingLLM, RetryPolicy, TransientHTTPError, with_retries
from longtalk.llm.usage import MeteredLLM, UsageCollector, UsageLedger

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.05)


class ProviderError(Exception):
    """Shaped like LiteLLM's exceptions: a provider status code and a message."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code


@pytest.fixture
def fake_litellm(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """A tiny module named ``litellm`` whose acompletion follows a script."""
    state = types.SimpleNamespace(calls=[], script=[])

    async def acompletion(**kwargs: Any) -> Any:
        state.calls.append(kwargs)
        step = state.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    module = types.ModuleType("litellm")
    module.acompletion = acompletion  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", module)
    return state


def model_response(text: str, finish: str = "stop") -> dict[str, Any]:
    return {
        "model": "gemini-2.5-flash-lite",
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)
    with pytest.raises(MissingExtraError, match=r"longtalk\[litellm\]"):
        resolve_llm("gemini/gemini-2.5-flash-lite")


async def test_litellm_request_and_response_mapping(fake_litellm: types.SimpleNamespace) -> None:
    fake_litellm.script = [model_response("Summary.")]
    llm = resolve_llm("gemini/gemini-2.5-flash-lite", api_key="k", timeout=9.0)
    schema = {"type": "object"}
    response = await llm.complete(prompt_request("Summarize.", json_schema=schema))
    assert (response.text, response.usage) == ("Summary.", TokenUsage(12, 3))
    call = fake_litellm.calls[0]
    assert call["model"] == "gemini/gemini-2.5-flash-lite"
    assert call["messages"] == [{"role": "user", "content": "Summarize."}]
    assert (call["temperature"], call["max_tokens"], call["timeout"]) == (0.2, 500, 9.0)
    assert call["num_retries"] == 0 and call["api_key"] == "k"
    assert call["response_format"]["json_schema"]["schema"] == schema


async def test_litellm_errors_are_translated_by_status(
    fake_litellm: types.SimpleNamespace,
) -> None:
    fake_litellm.script = [ProviderError("rate limited", 429), model_response("ok")]
    llm = resolve_llm("litellm:gemini/gemini-2.5-flash-lite", retry=FAST)
    assert (await llm.complete(prompt_request("a"))).text == "ok"
    fake_litellm.script = [ProviderError("API key not valid", 401)]
    with pytest.raises(LLMPermanentError, match="API key not valid"):
        await llm.complete(prompt_request("b"))
    fake_litellm.script = [model_response("cut", finish="length")]
    with pytest.raises(LLMOutputError):
        await llm.complete(prompt_request("c"))
    assert len(fake_litellm.calls) == 4


def test_resolver_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    openai = resolve_llm("openai:gpt-4o-mini")
    assert isinstance(openai, OpenAICompatibleLLM)
    assert openai.model == "gpt-4o-mini" and openai.base_url == "https://api.openai.com/v1"
    local = resolve_llm("llamacpp:tiny", timeout=5.0)
    assert isinstance(local, OpenAICompatibleLLM) and local.base_url.endswith(":8080/v1")
    assert local.timeout == 5.0
    ollama = resolve_llm("ollama:qwen2.5:3b", base_url="http://gpu-box:11434")
    assert isinstance(ollama, OllamaLLM)
    assert (ollama.model, ollama.base_url) == ("qwen2.5:3b", "http://gpu-box:11434")
    for offline in (None, "", "offline", "None"):
        assert resolve_llm(offline) is None
    assert resolve_llm(openai) is openai


def test_resolver_suggests_the_nearest_name() -> None:
    with pytest.raises(UnknownBackendError, match="did you mean 'ollama:qwen2.5:3b'"):
        resolve_llm("olama:qwen2.5:3b")
    with pytest.raises(UnknownBackendError, match="'ollama:qwen2.5:3b'"):
        resolve_llm("qwen2.5:3b")
    with pytest.raises(UnknownBackendError, match="'offline'"):
        resolve_llm("oflline")
    with pytest.raises(UnknownBackendError, match="needs a model"):
        resolve_llm("openai:")


async def test_with_retries_honours_retry_after_and_backs_off() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    failures = [
        TransientHTTPError("busy", status_code=429, retry_after=2.5),
        LLMTransientError("reset"),
        LLMTransientError("reset"),
    ]

    async def attempt() -> str:
        if failures:
            raise failures.pop(0)
        return "ok"

    policy = RetryPolicy(max_attempts=4, initial_delay=1.0, multiplier=2.0, jitter=0.5)
    assert await with_retries(attempt, policy, sleep=sleep, rng=random.Random(7)) == "ok"
    assert slept[0] == 2.5
    assert 1.0 <= slept[1] <= 2.0 and 2.0 <= slept[2] <= 4.0  # jittered 2 s and 4 s backoffs


async def test_attempt_timeout_and_retrying_wrapper() -> None:
    calls: list[LLMRequest] = []

    class Slow:
        async def complete(self, request: LLMRequest) -> LLMResponse:
            calls.append(request)
            if len(calls) == 1:
                import asyncio

                await asyncio.sleep(5)
            return LLMResponse("Done.<|im_end|>")

    policy = RetryPolicy(max_attempts=2, initial_delay=0.0, attempt_timeout=0.1)
    response = await RetryingLLM(Slow(), policy).complete(prompt_request("x"))
    assert response.text == "Done." and len(calls) == 2


async def test_metered_llm_sums_per_chat_and_tenant(server: ScriptedServer) -> None:
    def reply(prompt: int, completion: int) -> Reply:
        choice = {"message": {"content": "ok"}, "finish_reason": "stop"}
        usage = {"prompt_tokens": prompt, "completion_tokens": completion}
        return Reply({"model": "m1", "choices": [choice], "usage": usage})

    server.enqueue(reply(10, 2), reply(20, 3), reply(5, 1))
    cut_off = reply(7, 500)
    cut_off.body["choices"][0]["finish_reason"] = "length"
    server.enqueue(cut_off)
    ledger = UsageLedger()
    async with OpenAICompatibleLLM("m1", base_url=server.url, api_key="") as backend:
        llm = MeteredLLM(backend, ledger)
        for chat, tenant in (("c1", "acme"), ("c1", "acme"), ("c2", "globex")):
            request = prompt_request("hi")
            request = LLMRequest(request.messages, metadata={"chat_id": chat, "tenant": tenant})
            await llm.complete(request)
        with pytest.raises(LLMOutputError):  # a cut-off reply is an error, yet it cost tokens
            await llm.complete(LLMRequest(request.messages, metadata={"chat_id": "c2"}))
    assert ledger.for_chat("c1") == TokenUsage(30, 5)
    assert ledger.for_chat("c2") == TokenUsage(12, 501)
    assert ledger.for_tenant("acme") == TokenUsage(30, 5)
    assert ledger.total == TokenUsage(42, 506)
    registry = prometheus_client.CollectorRegistry()
    registry.register(UsageCollector(ledger))
    labels = {"tenant": "acme", "model": "m1"}
    assert registry.get_sample_value("longtalk_llm_calls_total", labels) == 2
    tokens = registry.get_sample_value("longtalk_llm_tokens_total", labels | {"direction": "input"})
    assert tokens == 30
