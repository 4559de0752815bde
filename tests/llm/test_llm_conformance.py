"""The LLM seam's conformance suite over every backend that can answer here.

The OpenAI-compatible backend talks to a real HTTP server on 127.0.0.1
(``ChatCompletionsServer``); the shipped doubles are LLMs too and must obey the same seam.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from longtalk.llm.base import LLM, LLMRequest
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.testing import ChatCompletionsServer, CountingLLM, FunctionLLM
from longtalk.testing.llm_suite import LLMConformance


def echo(request: LLMRequest) -> str:
    return "You said: " + request.messages[-1].content


class TestOpenAICompatible(LLMConformance):
    @pytest.fixture
    async def llm(self) -> AsyncIterator[LLM]:
        server = ChatCompletionsServer(answer_tokens=8).start()
        try:
            async with OpenAICompatibleLLM(
                "double", base_url=f"{server.url}/v1", api_key="k"
            ) as llm:
                yield llm
        finally:
            server.stop()


class TestCountingLLM(LLMConformance):
    @pytest.fixture
    def llm(self) -> LLM:
        return CountingLLM(answer_tokens=8)


class TestFunctionLLM(LLMConformance):
    @pytest.fixture
    def llm(self) -> LLM:
        return FunctionLLM(echo)
