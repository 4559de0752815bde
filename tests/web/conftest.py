from __future__ import annotations

import sys
from pathlib import Path

# The service tests' harness (summary model double, real uvicorn) is shared with these tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))

import pytest  # noqa: E402
from service_harness import SummaryModel  # noqa: E402


@pytest.fixture
def model() -> SummaryModel:
    return SummaryModel()
