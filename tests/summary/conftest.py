"""Fixtures of the summary tests: the real embedder the offline summarizer ranks with."""

from __future__ import annotations

import pytest

from longtalk.embed.minilm import MiniLMEmbedder


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()
