"""The SummaryWriter seam's conformance suite over both writers.

The offline writer runs on the bundled embedder; the LLM writer on the OpenAI-compatible
backend against a real HTTP server on 127.0.0.1 (``ChatCompletionsServer``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.summary.writer import SummaryWriter
from longtalk.testing import ChatCompletionsServer
from longtalk.testing.writer_suite import SummaryWriterConformance


class TestOfflineWriter(SummaryWriterConformance):
    @pytest.fixture
    def writer(self) -> SummaryWriter:
        return OfflineSummaryWriter(MiniLMEmbedder())


class TestLLMWriter(SummaryWriterConformance):
    @pytest.fixture
    async def writer(self) -> AsyncIterator[SummaryWriter]:
        server = ChatCompletionsServer(answer_tokens=20).start()
        try:
            async with OpenAICompatibleLLM(
                "double", base_url=f"{server.url}/v1", api_key="k"
            ) as llm:
                yield LLMSummaryWriter(llm)
        finally:
            server.stop()
