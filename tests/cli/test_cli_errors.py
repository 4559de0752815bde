"""Usage errors exit 2 with one line, runtime failures 1, never a traceback; secrets hidden."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from test_cli import invoke, stored, write_jsonl

from longtalk.cli import loading, main

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(f"storage:\n  sqlite_path: {tmp_path / 'cli.db'}\n", encoding="utf-8")
    return path


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str | Path
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["longtalk", *(str(a) for a in args)])
    monkeypatch.delenv("LONGTALK_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        main()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err


def one_line_error(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    assert lines[0].startswith("Error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\x80\x81\xff", "not UTF-8"),
        (b'{"role": "robot", "content": "x"}\n', "not a message"),
    ],
)
def test_unreadable_input_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: Path,
    tmp_path: Path,
    content: bytes,
    expected: str,
) -> None:
    data = tmp_path / "input.jsonl"
    data.write_bytes(content)
    code, err = run_main(monkeypatch, capsys, "ingest", data, "-c", config)
    assert code == 2
    assert expected in one_line_error(err)


def test_bad_yaml_is_one_line_with_its_position(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("storage: [\n  sqlite_path: x\n", encoding="utf-8")
    code, err = run_main(monkeypatch, capsys, "config", "check", path)
    assert code == 2
    assert "line" in one_line_error(err)


def test_a_yaml_alias_bomb_is_refused_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    started = time.monotonic()
    code, err = run_main(monkeypatch, capsys, "config", "check", path)
    assert code == 2 and "expands to over" in one_line_error(err)
    assert time.monotonic() - started < 30  # loose: the unbounded load never ends


def test_deeply_nested_yaml_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * 20_000, encoding="utf-8")
    code, err = run_main(monkeypatch, capsys, "config", "check", path)
    assert code == 2 and "nests too deep" in one_line_error(err)


def test_config_check_hides_passwords_and_keys(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text(
        "storage:\n"
        "  url: postgresql://mem:pg-s3cret@db.internal:5432/mem?sslmode=require&password=zz9\n"
        "vectors:\n"
        "  url: http://qdrant:qd-s3cret@qdrant:6333\n"
        "llm:\n"
        "  base_url: https://user:llm-s3cret@llm.internal/v1?api_key=k-s3cret\n"
        "service:\n"
        "  api_keys: {sk-tenant-s3cret: acme}\n",
        encoding="utf-8",
    )
    result = invoke("config", "check", path)
    assert result.exit_code == 0, result.output
    assert "s3cret" not in result.output and "zz9" not in result.output
    shown = json.loads(result.stdout)
    assert shown["storage"]["url"] == (
        "postgresql://mem:***@db.internal:5432/mem?sslmode=require&password=***"
    )
    assert shown["service"]["api_keys"] == {"sk-***": "acme"}


def test_usage_errors_of_typer_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    code, err = run_main(monkeypatch, capsys, "ingest", "-c", config)
    assert code == 2 and "Missing argument" in err and "Traceback" not in err
    code, _ = run_main(monkeypatch, capsys, "context", "c", "--budget", "0", "-c", config)
    assert code == 2


def test_export_to_a_missing_directory_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: Path,
    tmp_path: Path,
) -> None:
    target = tmp_path / "missing" / "out.json"
    code, err = run_main(monkeypatch, capsys, "export", "c", "-o", target, "-c", config)
    assert code == 2 and "not a directory" in one_line_error(err)


def test_an_unexpected_failure_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    config: Path,
    tmp_path: Path,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(loading, "read_chats", broken)
    data = write_jsonl(tmp_path / "a.jsonl", 2)
    code, err = run_main(monkeypatch, capsys, "ingest", data, "-c", config)
    assert code == 1
    line = one_line_error(err)
    assert "RuntimeError: disk on fire second line" in line and "LONGTALK_DEBUG" in line

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(loading, "read_chats", interrupted)
    code, err = run_main(monkeypatch, capsys, "ingest", data, "-c", config)
    assert code == 130 and "Traceback" not in err


def test_ingest_refuses_a_conversation_sharing_only_some_messages(
    config: Path, tmp_path: Path
) -> None:
    first = tmp_path / "first.jsonl"
    rows = [("user", "hello"), ("assistant", "hi, how can I help?"), ("user", "thanks")]
    first.write_text("\n".join(json.dumps({"role": r, "content": c}) for r, c in rows) + "\n")
    assert invoke("ingest", first, "--chat", "shared", "-c", config).exit_code == 0
    other = tmp_path / "other.jsonl"
    other_rows = [
        ("user", "a different question"),
        ("assistant", "a different answer"),
        ("user", "thanks"),  # the same third message as the stored chat
        ("assistant", "you are welcome"),
    ]
    other.write_text("\n".join(json.dumps({"role": r, "content": c}) for r, c in other_rows) + "\n")
    result = invoke("ingest", other, "--chat", "shared", "-c", config)
    assert result.exit_code == 2
    assert "not this file's first ones" in result.output
    assert stored(config, "shared") == [c for _, c in rows]
    longer = tmp_path / "longer.jsonl"
    longer.write_text(first.read_text() + json.dumps({"role": "assistant", "content": "bye"}))
    assert invoke("ingest", longer, "--chat", "shared", "-c", config).exit_code == 0
    assert stored(config, "shared") == [*(c for _, c in rows), "bye"]
