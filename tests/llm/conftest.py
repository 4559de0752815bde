"""Fixtures of the LLM tests: a scripted wire-protocol server and the real embedder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llm_wire import ScriptedServer

from longtalk.embed.minilm import MiniLMEmbedder


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    scripted.start()
    yield scripted
    scripted.stop()


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()
