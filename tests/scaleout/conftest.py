"""Scale-out fixtures: a fresh database on the run's real PostgreSQL server per test."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import make_url

# The service tests' harness (real uvicorn on a free port) is shared with these tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))


def with_database(dsn: str, database: str) -> str:
    return make_url(dsn).set(database=database).render_as_string(hide_password=False)


async def admin(dsn: str, statement: str) -> None:
    connection = await asyncpg.connect(with_database(dsn, "postgres"))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@pytest.fixture
async def database(postgres_server: str) -> AsyncIterator[str]:
    """The DSN of a new, empty database (dropped after the test)."""
    name = f"longtalk_scale_{uuid.uuid4().hex[:12]}"
    await admin(postgres_server, f'CREATE DATABASE "{name}"')
    yield with_database(postgres_server, name)
    await admin(postgres_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
