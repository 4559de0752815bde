"""What the command line prints, read as a person reads it, and what it reads back.

Install hints verbatim, long lines wrapped (never cropped), structured summaries readable,
the ingest formats documented with examples that ingest, errors that name the line and the
field, export -> ingest round trips, -V, plain flags, invalid Unicode a usage error.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from longtalk import __version__
from longtalk.cli import app, main
from longtalk.cli.loading import EXAMPLE_EXPORT, EXAMPLE_JSONL, EXAMPLE_LOCOMO
from longtalk.config import load_settings
from longtalk.core.messages import Message
from longtalk.factory import open_memory
from longtalk.paths import DATA_DIR_ENV
from longtalk.storage.base import SummaryRow

runner = CliRunner()
STRUCTURED = {
    "narrative": "Sam planned a dinner party and chose the menu.",
    "topics": ["dinner party", "menu"],
    "entities": [{"name": "Sam", "type": "person", "details": "allergic to shellfish"}],
    "decisions": ["Serve the risotto [vegetarian] first."],
    "open_questions": ["Who brings the wine?"],
    "user_preferences": ["prefers quiet evenings"],
    "actions_taken": [],
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "supervisor:\n  memory:\n    strategy: running_summary\n"
        f"storage:\n  sqlite_path: {tmp_path / 'cli.db'}\n",
        encoding="utf-8",
    )
    return path


def invoke(*args: str | Path, columns: int = 80) -> Result:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str | Path
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["longtalk", *(str(a) for a in args)])
    with pytest.raises(SystemExit) as exited:
        main()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err


def stored(config: Path, chat: str) -> list[Message]:
    async def read() -> list[Message]:
        async with open_memory(load_settings(config)) as memory:
            return [m.message for m in await memory.storage.list_messages(chat)]

    return asyncio.run(read())


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_install_hint_is_shown_verbatim(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    monkeypatch.delitem(sys.modules, "longtalk.mcp", raising=False)
    for name in [name for name in sys.modules if name.split(".")[0] == "mcp"] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)  # the SDK not installed
    code, err = run_main(monkeypatch, capsys, "mcp", "-c", config)
    assert code == 2
    assert "pip install 'longtalk[mcp]'" in err
    assert "longtalk[mcp]" in invoke("mcp", "--help").stdout


def test_version_and_plain_flags() -> None:
    for flag in ("-V", "--version"):
        result = invoke(flag)
        assert result.exit_code == 0 and result.stdout == f"longtalk {__version__}\n"
    group: Any = typer.main.get_command(app)
    paths = [(name,) for name in group.commands] + [("config", "check")]
    for path in [(), *paths]:
        shown = invoke(*path, "--help", columns=200).stdout
        assert "<bool>" not in shown, path
        assert "--help  " in shown or "--help " in shown, path


def test_context_panels_wrap_long_lines(config: Path, tmp_path: Path) -> None:
    long = " ".join(f"word{n}" for n in range(60)) + " [mcp] THE-END"
    lines = [
        {"role": "user", "content": long},
        {"role": "assistant", "content": "ok"},
    ]
    data = write(tmp_path / "long.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    assert invoke("ingest", data, "-c", config, "--chat", "long").exit_code == 0
    shown = invoke("context", "long", "-c", config, columns=50)
    assert shown.exit_code == 0, shown.output
    assert all(len(line) <= 50 for line in shown.stdout.splitlines())
    words = shown.stdout.split()
    for n in range(60):
        assert f"word{n}" in words
    assert "[mcp]" in words and "THE-END" in words  # wrapped, not cropped, not markup


def add_structured_summary(config: Path, chat: str) -> None:
    async def add() -> None:
        async with open_memory(load_settings(config)) as memory:
            text = json.dumps(STRUCTURED)
            row = SummaryRow(
                chat, text, format="json", episode_first=1, episode_last=1, turn_number=2
            )
            await memory.storage.create_summary(row)

    asyncio.run(add())


def test_summaries_show_the_structured_fields(config: Path, tmp_path: Path) -> None:
    data = write(tmp_path / "sam.jsonl", '{"role": "user", "content": "Hi, I am Sam."}\n')
    invoke("ingest", data, "-c", config, "--chat", "sam", "--no-summarize")
    add_structured_summary(config, "sam")
    shown = invoke("summaries", "sam", "-c", config, columns=100)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.stdout.split())
    for expected in (
        "episodes 1-1",
        "to message 2",  # an episode is an exchange: the row reaches message 2
        "Sam planned a dinner party and chose the menu.",
        "Topics: dinner party, menu",
        "Entities",
        "• Sam (person): allergic to shellfish",
        "Decisions",
        "• Serve the risotto [vegetarian] first.",
        "Open questions",
        "• Who brings the wine?",
        "Preferences",
        "• prefers quiet evenings",
    ):
        assert expected in text, expected
    assert "Actions taken" not in text  # empty lists are left out
    assert '"topics"' not in text  # no JSON in the readable view
    rows = json.loads(invoke("summaries", "sam", "-c", config, "--json").stdout)
    assert rows[0]["structured"]["entities"][0]["details"] == "allergic to shellfish"
    assert rows[0]["structured"]["decisions"] == STRUCTURED["decisions"]
    assert "summary_text" not in rows[0]  # no escaped copy of the same JSON


def test_ingest_help_documents_every_format_with_examples_that_ingest(
    config: Path, tmp_path: Path
) -> None:
    shown = invoke("ingest", "--help", columns=200).stdout
    for name in ("JSON lines", "longtalk export", "LoCoMo"):
        assert name in shown
    for example in (EXAMPLE_JSONL, EXAMPLE_EXPORT, EXAMPLE_LOCOMO):
        for line in example.splitlines():
            assert f"  {line}" in shown
    files = {
        "lines.jsonl": ("trip", EXAMPLE_JSONL),
        "export.json": ("trip-export", EXAMPLE_EXPORT),
        "locomo.json": ("locomo-s1", EXAMPLE_LOCOMO),
    }
    for name, (chat, example) in files.items():
        path = write(tmp_path / name, example)
        extra = ["--chat", chat] if name == "export.json" else []
        result = invoke("ingest", path, "-c", config, "--no-summarize", *extra)
        assert result.exit_code == 0, (name, result.output)
        assert len(stored(config, chat)) == 2, name
    assert stored(config, "trip")[1].name == "Ana"
    assert stored(config, "locomo-s1")[0].timestamp is not None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"role": "user", "content": "ok"}\n{"role": "robot", "content": "x"}\n',
            "talk.jsonl:2: not a message: role: Input should be",
        ),
        (
            '{"role": "user", "content": "ok"}\n{"role": "user"}\n',
            "talk.jsonl:2: not a message: content: Field required",
        ),
        (
            '{"role": "user", "content": "x", "timestamp": "soon"}\n',
            "talk.jsonl:1: not a message: timestamp: Input should be a valid datetime",
        ),
        (
            '{"role": "user", "content": "x", "colour": "red"}\n',
            "talk.jsonl:1: not a message: colour:",
        ),
        (
            '{"role": "user", "content": "x"}\n{"role": "user", "content": \n',
            "talk.jsonl:2: not valid JSON",
        ),
        (
            '[{"role": "user", "content": "x"}]\n',
            "talk.jsonl:1: not a message: a line holds one message",
        ),
        (
            '{"role": "user", "content": "bad \\ud800 text"}\n',
            "talk.jsonl:1: not a message: content: a lone surrogate",
        ),
    ],
)
def test_a_bad_line_is_named_with_its_field_and_nothing_is_stored(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: Path,
    tmp_path: Path,
    content: str,
    expected: str,
) -> None:
    path = write(tmp_path / "talk.jsonl", content)
    code, err = run_main(monkeypatch, capsys, "ingest", path, "-c", config)
    assert code == 2
    assert expected in err and "validation error for" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1
    assert stored(config, "talk") == []


def test_a_json_array_line_without_a_suffix_is_not_read_as_locomo(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: Path,
    tmp_path: Path,
) -> None:
    lines = '[{"role": "user", "content": "x"}]\n{"role": "user", "content": "y"}\n'
    path = write(tmp_path / "talk.txt", lines)
    code, err = run_main(monkeypatch, capsys, "ingest", path, "-c", config)
    assert code == 2 and "talk.txt:1: not a message" in err and "LoCoMo" not in err


def test_text_that_is_not_unicode_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    code, err = run_main(monkeypatch, capsys, "context", "bad\udcff", "-c", config)
    assert code == 2 and "not valid UTF-8" in err
    code, err = run_main(monkeypatch, capsys, "context", "c", "-q", "\udcffx", "-c", config)
    assert code == 2 and "not valid UTF-8" in err


def test_export_ingests_back_into_a_fresh_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "unused"))  # --data-dir sets it: restored
    first, fresh = tmp_path / "first", tmp_path / "fresh"
    rows = [
        {
            "chat_id": "trip",
            "role": "user",
            "content": "We land on Friday [mcp] – ünïcode ✓",
            "name": "Maya",
            "timestamp": "2026-03-02T18:10:00+00:00",
            "id": "m1",
            "metadata": {"source": {"app": "web", "tags": ["a", "b"]}},
        },
        {
            "chat_id": "trip",
            "role": "assistant",
            "content": "",
            "type": "tool",
            "tool_call_ids": ["call-1"],
        },
        {"chat_id": "trip", "role": "tool", "content": '{"ok": true}', "tool_call_ids": ["call-1"]},
        {"chat_id": "trip", "role": "assistant", "content": "Line one\nline two\u2028same line"},
    ]
    data = write(tmp_path / "trip.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert invoke("ingest", data, "--data-dir", first, "--no-summarize").exit_code == 0
    exported = tmp_path / "trip.json"
    assert invoke("export", "trip", "--data-dir", first, "-o", exported).exit_code == 0
    loaded = invoke("ingest", exported, "--data-dir", fresh, "--no-summarize")
    assert loaded.exit_code == 0, loaded.output
    assert (fresh / "longtalk.db").is_file()

    def messages(directory: Path) -> list[Message]:
        monkeypatch.setenv(DATA_DIR_ENV, str(directory))
        return stored_default("trip")

    original, copied = messages(first), messages(fresh)
    assert len(original) == 4 and copied == original
    again = invoke("ingest", exported, "--data-dir", fresh, "--no-summarize")
    assert "0 messages added, 4 already stored" in again.stdout  # resumable as any ingest
    second = tmp_path / "again.json"
    invoke("export", "trip", "--data-dir", fresh, "-o", second)
    assert (
        json.loads(second.read_text())["messages"] == json.loads(exported.read_text())["messages"]
    )


def stored_default(chat: str) -> list[Message]:
    async def read() -> list[Message]:
        async with open_memory(load_settings()) as memory:
            return [m.message for m in await memory.storage.list_messages(chat)]

    return asyncio.run(read())


def test_an_export_keeps_the_title_and_user(config: Path, tmp_path: Path) -> None:
    export = {
        "chat": {"id": "dinner", "title": "Dinner [party]", "user": "sam"},
        "messages": [{"sequence": 1, "role": "user", "content": "Hi"}],
        "summaries": [],
    }
    path = write(tmp_path / "dinner.json", json.dumps(export))
    result = invoke("ingest", path, "-c", config, "--no-summarize")
    assert result.exit_code == 0 and "new chat dinner: 1 messages" in result.stdout
    listed = json.loads(invoke("list", "-c", config, "--json").stdout)
    assert [(c["id"], c["title"], c["user"]) for c in listed] == [
        ("dinner", "Dinner [party]", "sam")
    ]
    bad = {"chat": {"id": "x"}, "messages": [{"role": "user", "content": 5}]}
    failed = invoke("ingest", write(tmp_path / "bad.json", json.dumps(bad)), "-c", config)
    assert failed.exit_code == 2
    assert "bad.json: messages[0]: not a message: content: Input should be a valid string" in (
        " ".join(failed.output.split())
    )


def test_a_json_file_is_an_export_or_locomo(config: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "one.json", '{\n "role": "user",\n "content": "x"\n}\n')
    result = invoke("ingest", path, "-c", config)
    assert result.exit_code == 2
    assert "holds a longtalk export" in result.output and "an object without" in result.output
