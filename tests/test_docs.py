import re
from pathlib import Path

import pytest

from longtalk.config import (
    CountOrTokensThresholds,
    LimitsConfig,
    LLMConfig,
    MemoryConfig,
    PendingTokensThresholds,
    ServiceConfig,
    SupervisorConfig,
    TokensAndEpisodesThresholds,
    TriggerThresholds,
    VectorsConfig,
)
from longtalk.storage.config import StorageConfig

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "model",
    [
        MemoryConfig,
        TriggerThresholds,
        PendingTokensThresholds,
        CountOrTokensThresholds,
        TokensAndEpisodesThresholds,
        SupervisorConfig,
        StorageConfig,
        VectorsConfig,
        LLMConfig,
        LimitsConfig,
        ServiceConfig,
    ],
)
def test_the_configuration_reference_lists_every_key(model: type) -> None:
    prose = re.sub(r"```.*?```", "", CONFIGURATION, flags=re.S)
    spans = " ".join(re.findall(r"`([^`]+)`", prose))
    documented = set(re.split(r"[.\s,=:]+", spans))
    assert [name for name in model.model_fields if name not in documented] == []


def test_every_linked_document_exists() -> None:
    links = re.findall(r"\]\(((?:docs/)[^)]+)\)", README)
    assert links
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_the_readme_stays_a_front_page() -> None:
    assert len(README.splitlines()) <= 150
    assert "pip install longtalk" in README and "make run" in README and "make test" in README
