"""Test doubles and conformance suites shipped with longtalk, for your tests and ours.

Doubles (none is collected by pytest):

- LLMs: ``ScriptedLLM`` answers from a queue, ``FunctionLLM`` from a function,
  ``CountingLLM`` counts input tokens (``longtalk.testing.llm``);
- embedders: ``RecordingEmbedder`` records what a real one embedded, ``BagOfWordsEmbedder``
  is small and deterministic (``.embedders``);
- recall: ``RecordingRecall`` records queries, stores and deletions (alone or around a
  real backend, stores held at a gate), ``BrokenRecall`` fails every call (``.recall``);
- ``ChatCompletionsServer``: an LLM behind a real HTTP server speaking the OpenAI
  chat-completions protocol, for services in other processes (``.wire``).

Conformance suites, one per seam, to subclass with a fixture giving your backend (each
module says which): ``ChatStoreConformance``, ``SummaryStoreConformance`` and
``IndexOutboxConformance`` (``.storage_suite``), ``UserMemoryConformance``
(``.user_memory_suite``), ``ForgetStoreConformance`` (``.forget_suite``),
``VectorStoreConformance`` (``.vector_suite``), ``LLMConformance``
(``.llm_suite``), ``EmbedderConformance`` (``.embedder_suite``),
``SummaryWriterConformance`` (``.writer_suite``), ``JobQueueConformance`` and
``ChatLeasesConformance`` (``.lease_suite``). They need pytest (and pytest-asyncio),
imported only when a suite is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from longtalk.core.lazy import lazy_loader
from longtalk.testing.embedders import BagOfWordsEmbedder, RecordingEmbedder
from longtalk.testing.llm import CountingLLM, FunctionLLM, RecordedCall, Reply, ScriptedLLM
from longtalk.testing.recall import BrokenRecall, RecordingRecall
from longtalk.testing.wire import ChatCompletionsServer, WireCall, free_port

if TYPE_CHECKING:
    from longtalk.testing.embedder_suite import EmbedderConformance
    from longtalk.testing.forget_suite import ForgetStoreConformance
    from longtalk.testing.lease_suite import ChatLeasesConformance, JobQueueConformance
    from longtalk.testing.llm_suite import LLMConformance
    from longtalk.testing.storage_suite import (
        ChatStoreConformance,
        IndexOutboxConformance,
        SummaryStoreConformance,
    )
    from longtalk.testing.user_memory_suite import UserMemoryConformance
    from longtalk.testing.vector_suite import VectorStoreConformance
    from longtalk.testing.writer_suite import SummaryWriterConformance

__all__ = [
    "BagOfWordsEmbedder",
    "BrokenRecall",
    "ChatCompletionsServer",
    "ChatLeasesConformance",
    "ChatStoreConformance",
    "CountingLLM",
    "EmbedderConformance",
    "ForgetStoreConformance",
    "FunctionLLM",
    "IndexOutboxConformance",
    "JobQueueConformance",
    "LLMConformance",
    "RecordedCall",
    "RecordingEmbedder",
    "RecordingRecall",
    "Reply",
    "ScriptedLLM",
    "SummaryStoreConformance",
    "SummaryWriterConformance",
    "UserMemoryConformance",
    "VectorStoreConformance",
    "WireCall",
    "free_port",
]

_SUITES = {
    "ChatStoreConformance": "longtalk.testing.storage_suite",
    "SummaryStoreConformance": "longtalk.testing.storage_suite",
    "IndexOutboxConformance": "longtalk.testing.storage_suite",
    "UserMemoryConformance": "longtalk.testing.user_memory_suite",
    "ForgetStoreConformance": "longtalk.testing.forget_suite",
    "VectorStoreConformance": "longtalk.testing.vector_suite",
    "LLMConformance": "longtalk.testing.llm_suite",
    "EmbedderConformance": "longtalk.testing.embedder_suite",
    "SummaryWriterConformance": "longtalk.testing.writer_suite",
    "JobQueueConformance": "longtalk.testing.lease_suite",
    "ChatLeasesConformance": "longtalk.testing.lease_suite",
}


__getattr__ = lazy_loader(__name__, _SUITES)
"""The conformance suites, imported on first use (they import pytest)."""
