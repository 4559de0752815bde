"""The command line through Typer's runner, on a real SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from longtalk.cli import app
from longtalk.config import load_settings
from longtalk.factory import open_memory
from longtalk.storage.base import SummaryRow
from longtalk.tools.ingest import demo_path

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "supervisor:\n"
        "  memory:\n"
        "    strategy: running_summary\n"
        "    summary_recent_turns: 2\n"
        "    context_max_tokens: 150\n"
        "storage:\n"
        f"  sqlite_path: {tmp_path / 'cli.db'}\n",
        encoding="utf-8",
    )
    return path


def invoke(*args: str | Path, input: str | None = None) -> Result:
    return runner.invoke(app, [str(arg) for arg in args], input=input)


def write_jsonl(path: Path, count: int, chat: str | None = None) -> Path:
    lines = []
    for number in range(count):
        role = "user" if number % 2 == 0 else "assistant"
        row = {"role": role, "content": f"message {number} about the Lisbon trip"}
        if chat:
            row["chat_id"] = chat
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stored(config: Path, chat: str) -> list[str]:
    async def read() -> list[str]:
        async with open_memory(load_settings(config)) as memory:
            return [m.message.content for m in await memory.storage.list_messages(chat)]

    return asyncio.run(read())


def add_summary(config: Path, chat: str) -> None:
    async def write() -> None:
        async with open_memory(load_settings(config)) as memory:
            row = SummaryRow(chat, "Maya planned Lisbon.", episode_first=1, episode_last=2)
            await memory.storage.create_summary(row)

    asyncio.run(write())


def all_commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        path = (*prefix, name)
        found.append(path)
        if hasattr(command, "commands"):
            found += all_commands(command, path)
    return found


def test_every_command_has_help() -> None:
    group: Any = typer.main.get_command(app)
    commands = all_commands(group)
    expected = {"serve", "demo", "chat", "ingest", "context", "summaries", "export", "config"}
    assert expected <= {path[0] for path in commands}
    assert ("config", "check") in commands
    for path in commands:
        result = invoke(*path, "--help")
        assert result.exit_code == 0, path
        assert "Usage:" in result.output and "--help" in result.output
        command = group
        for name in path:
            command = command.commands[name]
        assert command.help, f"{path} has no help text"


def test_config_check(config: Path, tmp_path: Path) -> None:
    result = invoke("config", "check", config)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["memory (effective)"]["strategy"] == "running_summary"
    assert data["memory (effective)"]["summary_recent_turns"] == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("supervisor:\n  memory:\n    rag_k: zero\n", encoding="utf-8")
    failed = invoke("config", "check", bad)
    assert failed.exit_code == 2 and "supervisor.memory.rag_k" in failed.output


def test_ingest_is_idempotent_and_resumable(config: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "talk.jsonl", 6)
    first = invoke("ingest", path, "--config", config, "--chat", "talk", "--no-summarize")
    assert first.exit_code == 0, first.output
    assert "6 messages added" in first.stdout
    again = invoke("ingest", path, "--config", config, "--chat", "talk", "--no-summarize")
    assert "0 messages added, 6 already stored" in again.stdout
    write_jsonl(path, 10)  # the file grew (or the first run stopped half-way)
    resumed = invoke("ingest", path, "--config", config, "--chat", "talk", "--no-summarize")
    assert "4 messages added, 6 already stored" in resumed.stdout
    contents = stored(config, "talk")
    assert contents == [f"message {n} about the Lisbon trip" for n in range(10)]
    other = write_jsonl(tmp_path / "other.jsonl", 3)
    other.write_text(other.read_text().replace("message", "different"), encoding="utf-8")
    refused = invoke("ingest", other, "--config", config, "--chat", "talk", "--no-summarize")
    assert refused.exit_code == 2 and "already holds 10 messages" in refused.output
    assert len(stored(config, "talk")) == 10


def test_ingest_jsonl_chat_ids_and_bad_lines(config: Path, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps({"chat_id": "one", "role": "user", "content": "a"})
        + "\n"
        + json.dumps({"chat_id": "two", "role": "user", "content": "b"})
        + "\n",
        encoding="utf-8",
    )
    result = invoke("ingest", path, "--config", config, "--no-summarize")
    assert "2 chats (2 new)" in result.stdout
    assert stored(config, "one") == ["a"] and stored(config, "two") == ["b"]
    path.write_text('{"role": "user", "content": "ok"}\n{"role": "robot"}\n', encoding="utf-8")
    bad = invoke("ingest", path, "--config", config)
    assert bad.exit_code == 2 and "mixed.jsonl:2" in bad.output


def test_ingest_locomo(config: Path, tmp_path: Path) -> None:
    sample = {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hi!", "blip_caption": "a dog"},
            ],
        },
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    result = invoke("ingest", path, "--config", config, "--no-summarize")
    assert result.exit_code == 0, result.output
    assert stored(config, "locomo-s1") == ["Hey Mel!", "Hi! [shares a dog]"]
    exported = json.loads(invoke("export", "locomo-s1", "--config", config).stdout)
    first = exported["messages"][0]
    assert (first["role"], first["name"], first["id"]) == ("user", "Caroline", "D1:1")
    assert first["timestamp"].startswith("2023-05-08T13:56")
    assert exported["chat"]["title"] == "Caroline & Melanie"


def test_demo_chat_is_valid_package_data(config: Path) -> None:
    result = invoke("ingest", demo_path(), "--config", config, "--chat", "demo", "--no-summarize")
    assert result.exit_code == 0, result.output
    messages = stored(config, "demo")
    assert len(messages) >= 80 and "Maya" in messages[0]


def test_summaries_context_export(config: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "talk.jsonl", 24)  # more than the 150-token budget holds
    invoke("ingest", path, "--config", config, "--chat", "talk", "--no-summarize")
    assert "No summary yet" in invoke("summaries", "talk", "--config", config).stdout
    add_summary(config, "talk")
    table = invoke("summaries", "talk", "--config", config)
    assert table.exit_code == 0 and "1-2" in table.stdout and "Maya planned Lisbon." in table.stdout
    rows = json.loads(invoke("summaries", "talk", "--config", config, "--json").stdout)
    assert [(r["episode_range"], r["summary_text"]) for r in rows] == [
        ("1-2", "Maya planned Lisbon.")
    ]
    context = invoke("context", "talk", "--config", config, "-q", "Lisbon", "--json")
    body = json.loads(context.stdout)
    assert [p["kind"] for p in body["parts"]] == ["summary", "verbatim"]
    assert body["parts"][0]["episode_ranges"] == [[1, 2]]
    shown = invoke("context", "talk", "--config", config, "--budget", "150")
    assert shown.exit_code == 0 and "episodes 1-2" in shown.stdout
    target = tmp_path / "export.json"
    assert invoke("export", "talk", "--config", config, "-o", target).exit_code == 0
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert len(exported["messages"]) == 24 and exported["summaries"][0]["episode_range"] == "1-2"


def test_unknown_chat_and_bad_options(config: Path) -> None:
    said = set()
    for command in (["summaries"], ["export"], ["context"], ["show"], ["delete", "-y"]):
        result = invoke(command[0], "ghost", *command[1:], "--config", config)
        assert result.exit_code == 4, command
        said.add(result.output.strip())
    result = invoke("reindex", "--chat", "ghost", "--config", config)
    assert result.exit_code == 4
    said.add(result.output.strip())
    assert said == {"Error: no chat 'ghost' for tenant 'default'"}  # one message everywhere
    wrong = invoke("context", "ghost", "--config", config, "--strategy", "psychic")
    assert wrong.exit_code == 2


def test_chat_offline_stores_only_what_it_received(config: Path) -> None:
    result = invoke("chat", "terminal", "--config", config, input="hello there\nwhat next?\n\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("no model configured") == 2
    assert stored(config, "terminal") == ["hello there", "what next?"]  # no made-up reply


def test_reindex_rebuilds_the_recall_index_and_checks_its_arguments(tmp_path: Path) -> None:
    config = tmp_path / "agents.yaml"
    config.write_text(
        f"storage:\n  sqlite_path: {tmp_path / 'cli.db'}\n"
        f"vectors:\n  url: qdrant-edge:{tmp_path / 'vectors'}\n",
        encoding="utf-8",
    )
    path = write_jsonl(tmp_path / "talk.jsonl", 6)
    ingested = invoke("ingest", path, "--config", config, "--chat", "talk", "--no-summarize")
    assert ingested.exit_code == 0, ingested.output
    result = invoke("reindex", "--chat", "talk", "--config", config)
    assert result.exit_code == 0, result.output
    assert "indexed 6 messages of 1 chats" in result.stdout
    everything = invoke("reindex", "--all", "--config", config)
    assert everything.exit_code == 0 and "indexed 6 messages" in everything.stdout
    assert invoke("reindex", "--config", config).exit_code == 2
    assert invoke("reindex", "--chat", "talk", "--all", "--config", config).exit_code == 2
    assert invoke("reindex", "--chat", "nope", "--config", config).exit_code == 4


def test_serve_on_an_unusable_storage_path_is_a_one_line_error(tmp_path: Path) -> None:
    config = tmp_path / "agents.yaml"
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("a file where the database directory should be")
    config.write_text(f"storage:\n  sqlite_path: {blocked / 'db' / 'longtalk.db'}\n")
    result = invoke("serve", "--config", config, "--port", "0")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "storage.sqlite_path" in result.output  # says what to change


def test_the_budget_help_and_check_name_the_real_minimum(config: Path) -> None:
    help_text = " ".join(invoke("context", "--help").stdout.split())
    assert "x>=32" in help_text and "x>=1]" not in help_text
    small = invoke("context", "ghost", "--config", config, "--budget", "20")
    assert small.exit_code == 2 and "32" in small.output
