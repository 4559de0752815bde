"""The getting-started page's examples run as written."""

import re
from pathlib import Path

import pytest

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "getting-started.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE, re.S)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path))
    return tmp_path


def run(block: str) -> dict[str, object]:
    namespace: dict[str, object] = {"__name__": "getting_started"}
    exec(compile(block, "getting-started.md", "exec"), namespace)  # noqa: S102
    return namespace


def test_the_sync_chat_loop_runs_and_recalls(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (loop,) = [block for block in BLOCKS if "with Memory() as memory" in block]
    namespace = run(loop)
    context = namespace["context"]
    messages = context.messages  # type: ignore[attr-defined]
    assert messages[-1] == {"role": "user", "content": "What can Sam not eat?"}
    assert "allergic to shellfish" in capsys.readouterr().out
    assert (data_dir / "longtalk.db").is_file()  # the data directory, not the user's


def test_the_async_chat_loop_runs(data_dir: Path) -> None:
    (block,) = [block for block in BLOCKS if "AsyncMemory() as memory" in block]
    run(block)
    assert (data_dir / "longtalk.db").is_file()


def test_the_user_memory_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = [block for block in BLOCKS if "memory.remember(" in block]
    run(block)
    out = capsys.readouterr().out
    assert "What is known about priya from earlier chats:" in out
    assert "- (profile) Works night shifts." in out and "vegetarian" in out
    assert "preference derived japan (1, 1)" in out
