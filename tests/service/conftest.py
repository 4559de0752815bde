from __future__ import annotations

import pytest
from service_harness import SummaryModel


@pytest.fixture
def model() -> SummaryModel:
    return SummaryModel()
