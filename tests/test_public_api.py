import importlib
import re
from pathlib import Path

import memstrata

ROOT = Path(__file__).resolve().parents[1]
GETTING_STARTED = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")

# The names of the systems memstrata replaces, where a user of those systems finds them.
COMPATIBLE_NAMES = {
    "memstrata.summary.triggers": "check_trigger TriggerResult",
    "memstrata.summary.templates": (
        "generate_summary SummaryConfig SummaryTemplate SummaryResult Summarizer"
    ),
    "memstrata.truncation": "truncate_content truncate_content_async",
    "memstrata.core.truncation": "TruncationStrategy",
    "memstrata.core.filters": (
        "MessageFilter MessageFilterPipeline SUPERVISOR_PIPELINE agent_pipeline "
        "extract_conversation_history"
    ),
    "memstrata.summary.compression": "compress_conversation_history",
    "memstrata.summary.model": "ConversationSummary SummaryEntity",
    "memstrata.vectors.base": "NullVectorReader",
    "memstrata.null": "NullConversationMemory",
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
    public = {
        name
        for name, value in vars(memstrata).items()
        if not name.startswith("_") and not isinstance(value, type(importlib))
    }
    assert set(memstrata.__all__) == public | {"__version__"}
    assert len(memstrata.__all__) <= 25
    for name in memstrata.__all__:
        assert getattr(memstrata, name) is not None


def test_all_is_exactly_what_the_getting_started_page_lists() -> None:
    section = GETTING_STARTED.split("## What `import memstrata` gives you", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([A-Za-z_]+)`", section, re.M))
    assert listed == set(memstrata.__all__)


def test_the_submodules_the_page_documents_exist() -> None:
    section = GETTING_STARTED.split("## Everything else", 1)[1].split("\n## ", 1)[0]
    modules = re.findall(r"^\| `(memstrata[\w.]*)`", section, re.M)
    assert len(modules) >= 8
    for module in modules:
        importlib.import_module(module)


def test_names_earlier_versions_exported_from_the_root_still_import() -> None:
    from memstrata import SUPERVISOR_PIPELINE, compress_conversation_history, user
    from memstrata.core.filters import SUPERVISOR_PIPELINE as FROM_SUBMODULE

    assert SUPERVISOR_PIPELINE is FROM_SUBMODULE
    assert callable(compress_conversation_history) and user("x").content == "x"
    assert "SUPERVISOR_PIPELINE" not in memstrata.__all__
    try:
        memstrata.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_the_version_comes_from_one_place() -> None:
    from importlib.metadata import version

    assert memstrata.__version__ == version("memstrata")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", memstrata.__version__)
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
