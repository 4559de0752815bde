"""``longtalk migrate``: migrations run once, replicas refuse a database that needs them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from typer.testing import CliRunner

from longtalk.cli import app
from longtalk.storage.migrations import LATEST_VERSION, MIGRATIONS

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path, database: str) -> Path:
    path = tmp_path / "agents.yaml"
    path.write_text(f"storage:\n  url: {database}\n", encoding="utf-8")
    return path


async def applied(dsn: str) -> list[int]:
    connection = await asyncpg.connect(dsn)
    try:
        rows = await connection.fetch("SELECT version FROM longtalk_schema ORDER BY version")
    finally:
        await connection.close()
    return [row["version"] for row in rows]


def test_migrate_applies_once_and_check_reports(config: Path, database: str) -> None:
    pending = runner.invoke(app, ["migrate", "--check", "-c", str(config)])
    assert pending.exit_code == 3, pending.output
    assert "schema version 0" in pending.output
    assert ", ".join(str(m.version) for m in MIGRATIONS) in pending.output

    refused = runner.invoke(app, ["serve", "--no-migrate", "-c", str(config), "--port", "1"])
    assert refused.exit_code == 1, refused.output
    assert "run `longtalk migrate` once" in refused.output

    first = runner.invoke(app, ["migrate", "-c", str(config)])
    assert first.exit_code == 0, first.output
    assert f"schema version {LATEST_VERSION}" in first.output and "applied" in first.output
    again = runner.invoke(app, ["migrate", "-c", str(config)])
    assert again.exit_code == 0 and "is current; nothing to do" in again.output
    current = runner.invoke(app, ["migrate", "--check", "-c", str(config)])
    assert current.exit_code == 0 and "pending: none" in current.output
    assert asyncio.run(applied(database)) == [m.version for m in MIGRATIONS]


async def test_replicas_migrating_together_apply_each_migration_once(
    config: Path, database: str
) -> None:
    command = [sys.executable, "-m", "longtalk.cli", "migrate", "-c", str(config)]
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [await asyncio.to_thread(p.communicate, timeout=120) for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0], outputs
    assert sum("applied migrations" in stdout for stdout, _ in outputs) >= 1
    assert await applied(database) == [m.version for m in MIGRATIONS]


def test_memory_storage_has_no_schema(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text("storage:\n  url: 'memory:'\n", encoding="utf-8")
    result = runner.invoke(app, ["migrate", "-c", str(path)])
    assert result.exit_code == 2 and "keeps no schema" in result.output
