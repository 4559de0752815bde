from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The LLM tests' scripted wire-protocol server and the service tests' harness (summary
# model double, real uvicorn) are shared with these tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

from llm_wire import ScriptedServer  # noqa: E402
from service_harness import SummaryModel  # noqa: E402


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer()
    scripted.start()
    yield scripted
    scripted.stop()


@pytest.fixture
def model() -> SummaryModel:
    return SummaryModel()
