"""The conformance suite of the ``LLM`` seam: what the summary writers and titles rely on.

Subclass it and give it an ``llm`` fixture (your backend, ready to answer)::

    import pytest
    from longtalk.testing.llm_suite import LLMConformance


    class TestMyLLM(LLMConformance):
        @pytest.fixture
        async def llm(self):
            async with MyLLM(...) as backend:
                yield backend

The tests ask nothing of what a model says, only of how the answer comes back: any model
that answers passes them.
"""

from __future__ import annotations

import asyncio

from longtalk.llm.base import LLM, ChatMessage, LLMRequest, LLMResponse, prompt_request

__all__ = ["LLMConformance"]


def _answered(response: LLMResponse) -> None:
    assert isinstance(response, LLMResponse)
    assert isinstance(response.text, str) and response.text.strip()
    assert isinstance(response.finish_reason, str) and response.finish_reason
    assert isinstance(response.model, str)
    usage = response.usage
    assert isinstance(usage.input_tokens, int) and usage.input_tokens >= 0
    assert isinstance(usage.output_tokens, int) and usage.output_tokens >= 0


class LLMConformance:
    """One ``complete`` that answers typed, counts its tokens and runs concurrently."""

    async def test_is_an_llm(self, llm: LLM) -> None:
        assert isinstance(llm, LLM)

    async def test_answers_a_prompt(self, llm: LLM) -> None:
        _answered(await llm.complete(prompt_request("Say hello.", max_tokens=32)))

    async def test_answers_a_chat_with_a_system_prompt(self, llm: LLM) -> None:
        request = LLMRequest(
            messages=(
                ChatMessage("system", "You answer in one word."),
                ChatMessage("user", "Name a colour."),
                ChatMessage("assistant", "Blue."),
                ChatMessage("user", "Another one?"),
            ),
            max_tokens=16,
        )
        _answered(await llm.complete(request))

    async def test_counts_a_longer_prompt_as_no_fewer_tokens(self, llm: LLM) -> None:
        short = await llm.complete(prompt_request("Hi.", max_tokens=16))
        long = await llm.complete(prompt_request("Hi. " + "Tell me about trains. " * 40))
        if short.usage.input_tokens:  # a backend that counts counts the prompt
            assert long.usage.input_tokens > short.usage.input_tokens

    async def test_concurrent_calls_each_get_an_answer(self, llm: LLM) -> None:
        prompts = [prompt_request(f"Say the number {n}.", max_tokens=16) for n in range(4)]
        for response in await asyncio.gather(*(llm.complete(p) for p in prompts)):
            _answered(response)
