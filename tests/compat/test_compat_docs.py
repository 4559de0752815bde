"""The examples of docs/compat.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
