"""Forget fixtures: each test on SQLite and on a fresh database of the real PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tests.scaleout.conftest import admin, with_database


@pytest.fixture(params=["sqlite", "postgres"])
async def database_url(
    request: pytest.FixtureRequest, postgres_server: str, tmp_path: Path
) -> AsyncIterator[str]:
    """A storage URL of an empty database: SQLite in a file, or PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'chats.db'}"
        return
    database = f"longtalk_forget_{uuid.uuid4().hex[:12]}"
    await admin(postgres_server, f'CREATE DATABASE "{database}"')
    try:
        yield with_database(postgres_server, database)
    finally:
        await admin(postgres_server, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
