import importlib
import re
from pathlib import Path

import pytest

import longtalk

ROOT = Path(__file__).resolve().parents[1]
GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")

# The names of the systems longtalk replaces, where a user of those systems finds them.
COMPATIBLE_NAMES = {
    "longtalk.summary.triggers": "check_trigger TriggerResult",
    "longtalk.compat.templates": (
        "generate_summary SummaryConfig SummaryTemplate SummaryResult Summarizer"
    ),
    "longtalk.compat.truncation": "truncate_content truncate_content_async",
    "longtalk.core.truncation": "TruncationStrategy",
    "longtalk.core.filters": (
        "MessageFilter MessageFilterPipeline SUPERVISOR_PIPELINE agent_pipeline "
        "extract_conversation_history"
    ),
    "longtalk.compat.compression": "compress_conversation_history",
    "longtalk.summary.model": "ConversationSummary SummaryEntity",
    "longtalk.vectors.base": "NullVectorReader",
    "longtalk.compat.orchid": "NullConversationMemory OrchidConversationMemory",
}


def test_every_compatible_name_is_importable_from_its_submodule() -> None:
    missing = [
        f"{module}.{name}"
        for module, names in COMPATIBLE_NAMES.items()
        for name in names.split()
        if not hasattr(importlib.import_module(module), name)
    ]
    assert missing == []


def test_all_lists_exactly_the_public_names() -> None:
    public = {  # dir(): the names loaded on first use count too
        name
        for name in dir(longtalk)
        if not name.startswith("_") and not isinstance(getattr(longtalk, name), type(importlib))
    }
    assert set(longtalk.__all__) == public | {"__version__"}
    assert len(longtalk.__all__) <= 25
    for name in longtalk.__all__:
        assert getattr(longtalk, name) is not None


def test_all_is_exactly_what_the_getting_started_page_lists() -> None:
    section = GETTING_STARTED.split("## What `import longtalk` gives you", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([A-Za-z_]+)`", section, re.M))
    assert listed == set(longtalk.__all__)


def test_the_submodules_the_page_documents_exist() -> None:
    section = GETTING_STARTED.split("## Everything else", 1)[1].split("\n## ", 1)[0]
    modules = re.findall(r"^\| `(longtalk[\w.]*)`", section, re.M)
    assert len(modules) >= 8
    for module in modules:
        importlib.import_module(module)


def test_the_root_offers_only_what_all_lists() -> None:
    for name in ("SUPERVISOR_PIPELINE", "compress_conversation_history", "user", "no_such_name"):
        assert not hasattr(longtalk, name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        longtalk.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def test_the_version_comes_from_one_place() -> None:
    from importlib.metadata import version

    assert longtalk.__version__ == version("longtalk")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", longtalk.__version__)
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
