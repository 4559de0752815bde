"""The Embedder seam's conformance suite over every embedder that runs here.

``BagOfWordsEmbedder`` is left out: its dimension grows with its vocabulary, so it is a
text embedder for the offline summary's tests, not an ``Embedder`` for a vector store.
"""

from __future__ import annotations

import pytest

from longtalk.embed.base import Embedder
from longtalk.embed.hashing import HashingEmbedder
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.testing import RecordingEmbedder
from longtalk.testing.embedder_suite import EmbedderConformance


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


class TestMiniLM(EmbedderConformance):
    @pytest.fixture
    def embedder(self, minilm: MiniLMEmbedder) -> Embedder:
        return minilm


class TestHashing(EmbedderConformance):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return HashingEmbedder()


class TestRecording(EmbedderConformance):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return RecordingEmbedder(HashingEmbedder())
