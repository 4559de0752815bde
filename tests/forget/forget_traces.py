"""Where forgotten text could hide: every table of the database, every file of a directory."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
from sqlalchemy import make_url


async def every_table(url: str) -> str:
    """Every row of every table of the database at ``url``, as one text."""
    if url.startswith("sqlite"):
        path = make_url(url).database
        assert path is not None
        connection = sqlite3.connect(path)
        try:
            names = [
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            assert "messages" in names and "forget_requests" in names
            return "\n".join(
                repr(connection.execute(f'SELECT * FROM "{name}"').fetchall()) for name in names
            )
        finally:
            connection.close()
    connection = await asyncpg.connect(url)
    try:
        names = [
            row["table_name"]
            for row in await connection.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        ]
        assert "messages" in names and "forget_requests" in names
        dumps = [repr(await connection.fetch(f'SELECT * FROM "{name}"')) for name in names]
        return "\n".join(dumps)
    finally:
        await connection.close()


def every_file(directory: Path) -> str:
    """The bytes of every file under ``directory``, as text."""
    return "\n".join(
        path.read_bytes().decode("latin-1") for path in directory.rglob("*") if path.is_file()
    )
