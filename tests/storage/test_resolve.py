"""Choosing a backend, configuration, SQLite's connection settings, degradation."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from sqlalchemy import text

from longtalk.config import load_settings
from longtalk.errors import ConfigError, UnknownBackendError
from longtalk.storage import (
    InMemoryStorage,
    StorageConfig,
    default_sqlite_path,
    from_url,
    resolve_storage,
)
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.sqlite import SqliteStorage


def test_no_storage_degrades_to_memory(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="longtalk.storage.resolve"):
        storage = resolve_storage(None)
    assert isinstance(storage, InMemoryStorage)
    assert "in memory only" in caplog.text


async def test_memory_storage_works_without_setup() -> None:
    storage = resolve_storage("memory:")
    chat = await storage.create_chat()
    assert (await storage.load_state(chat.id)).chat == chat


def test_urls_pick_backends(tmp_path: Path) -> None:
    assert isinstance(resolve_storage("none:"), InMemoryStorage)
    sqlite = resolve_storage(f"sqlite:///{tmp_path}/x.db")
    assert isinstance(sqlite, SqliteStorage) and sqlite.path == tmp_path / "x.db"
    relative = resolve_storage("sqlite:///chats.db")
    assert isinstance(relative, SqliteStorage) and relative.path == Path("chats.db")
    for url in ("postgresql://u:pw@db.example:5433/chats", "postgres://u:pw@db.example/chats"):
        pg = resolve_storage(url)
        assert isinstance(pg, PostgresStorage)
        assert "pw" not in pg.location and pg.location.startswith("postgresql://u:***@db.example")
    same = InMemoryStorage()
    assert resolve_storage(same) is same


def test_default_sqlite_file_is_under_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_sqlite_path() == tmp_path / "longtalk" / "longtalk.db"
    for spec in (StorageConfig(), "sqlite://"):
        storage = resolve_storage(spec)
        assert isinstance(storage, SqliteStorage) and storage.path == default_sqlite_path()


def test_config_path_overrides_the_default(tmp_path: Path) -> None:
    storage = resolve_storage(StorageConfig(sqlite_path=tmp_path / "mine.db", pool_size=2))
    assert isinstance(storage, SqliteStorage) and storage.path == tmp_path / "mine.db"


def test_settings_and_environment_reach_storage(tmp_path: Path) -> None:
    config_file = tmp_path / "agents.yaml"
    config_file.write_text("storage:\n  sqlite_path: /srv/chats.db\n  smart_load_tail: 6\n")
    settings = load_settings(config_file, environ={})
    assert settings.storage.sqlite_path == Path("/srv/chats.db")
    assert settings.storage.smart_load_tail == 6
    env = {"LONGTALK_STORAGE__URL": "postgresql://u@h/db"}
    storage = resolve_storage(load_settings(config_file, environ=env).storage)
    assert isinstance(storage, PostgresStorage) and storage.smart_load_tail == 6


def test_typos_are_named_with_a_suggestion() -> None:
    with pytest.raises(UnknownBackendError, match="did you mean 'sqlite'"):
        resolve_storage("sqlit:///x.db")
    with pytest.raises(UnknownBackendError, match="did you mean 'postgres'"):
        resolve_storage("postgress://h/db")
    with pytest.raises(UnknownBackendError):
        resolve_storage("chats.db")
    with pytest.raises(ConfigError):
        PostgresStorage("mysql://h/db")


async def test_sqlite_connection_settings(tmp_path: Path) -> None:
    async with from_url(
        StorageConfig(sqlite_path=tmp_path / "c.db", busy_timeout_seconds=2.5)
    ) as storage:
        assert isinstance(storage, SqliteStorage)
        pragmas = await storage.transaction(
            lambda conn: {
                name: conn.scalar(text(f"PRAGMA {name}"))
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
            }
        )
    assert pragmas == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "busy_timeout": 2500,
        "synchronous": 1,
    }


async def test_from_url_sets_up_and_closes(tmp_path: Path) -> None:
    async with from_url(f"sqlite:///{tmp_path}/nested/dirs/c.db") as storage:
        chat = await storage.create_chat()
    assert (tmp_path / "nested" / "dirs" / "c.db").exists()
    async with from_url(f"sqlite:///{tmp_path}/nested/dirs/c.db") as again:
        assert await again.get_chat(chat.id) == chat
