"""list, show, delete, --version, ingest's report and plain-text help, through the runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from longtalk import __version__
from longtalk.cli import app

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "supervisor:\n"
        "  memory:\n"
        "    summary_recent_turns: 1\n"
        "    summary_trigger_tokens: 20\n"
        "storage:\n"
        f"  sqlite_path: {tmp_path / 'cli.db'}\n",
        encoding="utf-8",
    )
    return path


def invoke(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(arg) for arg in args], input=input)


def two_chats(tmp_path: Path) -> Path:
    lines = []
    for chat in ("lisbon", "porto"):
        for n in range(6):
            role = "user" if n % 2 == 0 else "assistant"
            text = f"{chat} message {n}: we booked the tram tour and a fado evening"
            lines.append(json.dumps({"chat_id": chat, "role": role, "content": text}))
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_ingest_prints_the_chat_ids_embeds_and_summarizes(config: Path, tmp_path: Path) -> None:
    path = two_chats(tmp_path)
    result = invoke("ingest", path, "--config", config)
    assert result.exit_code == 0, result.output
    assert "new chat lisbon: 6 messages" in result.stdout
    assert "new chat porto: 6 messages" in result.stdout
    assert "12 messages added" in result.stdout and "12 embedded for recall" in result.stdout
    passes = int(result.stdout.split("embedded for recall, ")[1].split(" summary")[0])
    assert passes >= 2  # each chat's summary was extended
    listed = json.loads(invoke("list", "--config", config, "--json").stdout)
    assert {c["id"]: c["indexed_sequence"] for c in listed} == {"lisbon": 6, "porto": 6}
    assert all(c["last_summarized_sequence"] > 0 for c in listed)
    again = invoke("ingest", path, "--config", config)
    assert "existing chat lisbon: 6 messages" in again.stdout
    assert "0 messages added, 12 already stored, 0 embedded" in again.stdout


def test_list_show_and_delete(config: Path, tmp_path: Path) -> None:
    assert invoke("list", "--config", config).stdout.strip() == "No chats."
    invoke("ingest", two_chats(tmp_path), "--config", config)
    table = invoke("list", "--config", config)
    assert table.exit_code == 0 and "lisbon" in table.stdout and "porto" in table.stdout
    assert json.loads(invoke("list", "--config", config, "--json", "--tenant", "x").stdout) == []
    assert len(json.loads(invoke("list", "--config", config, "--json", "--limit", "1").stdout)) == 1

    shown = invoke("show", "lisbon", "--config", config, "--last", "2")
    assert shown.exit_code == 0, shown.output
    assert "6 messages" in shown.stdout and "lisbon message 5" in shown.stdout
    assert "lisbon message 3" not in shown.stdout  # only the last two
    data = json.loads(invoke("show", "lisbon", "--config", config, "--json", "--last", "0").stdout)
    assert [m["sequence"] for m in data["messages"]] == [1, 2, 3, 4, 5, 6]
    assert data["chat"]["id"] == "lisbon" and data["summaries"]
    missing = invoke("show", "nope", "--config", config)
    assert missing.exit_code == 4 and "no chat 'nope'" in missing.output

    kept = invoke("delete", "lisbon", "--config", config, input="n\n")
    assert kept.exit_code == 1 and "Nothing deleted" in kept.output
    assert invoke("show", "lisbon", "--config", config).exit_code == 0
    gone = invoke("delete", "lisbon", "--config", config, "--yes")
    assert gone.exit_code == 0 and "Deleted chat 'lisbon'" in gone.stdout
    assert invoke("show", "lisbon", "--config", config).exit_code == 4
    assert invoke("delete", "lisbon", "--config", config, "-y").exit_code == 4
    remaining = json.loads(invoke("list", "--config", config, "--json").stdout)
    assert [c["id"] for c in remaining] == ["porto"]


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"longtalk {__version__}"


def commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = []
    for name, command in group.commands.items():
        found.append(((*prefix, name), command))
        if hasattr(command, "commands"):
            found += commands(command, (*prefix, name))
    return found


def test_every_command_has_plain_text_help() -> None:
    group: Any = typer.main.get_command(app)
    found = commands(group)
    assert {"list", "show", "delete", "ingest"} <= {path[0] for path, _ in found}
    for path, command in [((), group), *found]:
        result = invoke(*path, "--help")
        assert result.exit_code == 0, path
        assert command.help, f"{path} has no help text"
        assert "`" not in result.output, f"{path}: markup in help"
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help":
                assert param.help, f"{path} --{param.name} has no help"
