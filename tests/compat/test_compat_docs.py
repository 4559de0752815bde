"""The examples of docs/compat.md run as written."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import longtalk.compat.orbiter as orbiter
import longtalk.compat.orchid as orchid

DOC = Path(__file__).resolve().parents[2] / "docs" / "compat.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_has_an_example_per_shim() -> None:
    found = examples()
    assert len(found) == 2
    assert "longtalk.compat.orchid" in found[0] and "longtalk.compat.orbiter" in found[1]


@pytest.mark.parametrize("index", [0, 1])
def test_the_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"compat_example_{index}"}
    exec(compile(examples()[index], "docs/compat.md", "exec"), namespace)  # noqa: S102


def import_map() -> list[tuple[str, str, str]]:
    section = DOC.read_text(encoding="utf-8").split("## Import map", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (`[^|]+) \| ([^|]+) \| (.+) \|$", section, re.M)
    return [(old, new.strip(), names) for old, new, names in rows]


ORBITER_MEMORY_MODULES = (
    "orbiter.memory",
    "orbiter.memory.base",
    "orbiter.memory.short_term",
    "orbiter.memory.summary",
    "orbiter.memory.long_term",
    "orbiter.memory.events",
    "orbiter.memory.persistence",
    "orbiter.memory.backends.sqlite",
    "orbiter.memory.backends.postgres",
    "orbiter.memory.backends.vector",
)
INTERNAL = {"longtalk.compat.orchid.messages", "longtalk.compat.orchid.writer"}


def test_every_name_the_import_map_promises_is_there() -> None:
    rows = [(old, new, names) for old, new, names in import_map() if new.startswith("`longtalk")]
    assert len(rows) >= 20
    for old, new, names in rows:
        module = importlib.import_module(new.strip("`"))
        promised = re.findall(r"`([A-Za-z_]\w*)`", names.split(" (", 1)[0])
        missing = [name for name in promised if not hasattr(module, name)]
        assert missing == [], f"{old}: {new} lacks {missing}"


def test_the_import_map_covers_every_orbiter_memory_module_and_every_shim_module() -> None:
    rows = import_map()
    listed = " ".join(old for old, _, _ in rows)
    assert [m for m in ORBITER_MEMORY_MODULES if f"`{m}`" not in listed] == []
    targets = {new.strip("`") for _, new, _ in rows}
    shims = {
        f"{package.__name__}.{info.name}"
        for package in (orchid, orbiter)
        for info in pkgutil.iter_modules(package.__path__)
    }
    assert shims - targets - INTERNAL == set()
