"""Choose a chat-storage backend from an instance, a URL or a ``StorageConfig``."""

from __future__ import annotations

import difflib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError

from longtalk.core.redact import redact
from longtalk.errors import ConfigError, UnknownBackendError
from longtalk.storage.base import ChatStorage
from longtalk.storage.config import StorageConfig
from longtalk.storage.in_memory import InMemoryStorage

log = logging.getLogger(__name__)

_SCHEMES = {
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "memory": "memory",
    "none": "memory",
}

StorageSpec = ChatStorage | StorageConfig | str | None


def resolve_storage(spec: StorageSpec) -> ChatStorage:
    """The storage for ``spec``; nothing is connected until first use (or ``setup()``).

    ``None`` means no storage is configured: chats then live in memory only (Orchid's
    graceful degradation), with a warning. A string is a URL (see ``StorageConfig``); an
    unknown scheme raises ``UnknownBackendError`` naming the nearest known one.
    """
    if spec is None:
        log.warning("no chat storage configured: chats are kept in memory only")
        return InMemoryStorage()
    if isinstance(spec, str):
        return resolve_storage(StorageConfig(url=spec))
    if isinstance(spec, StorageConfig):
        return _from_config(spec)
    if isinstance(spec, ChatStorage):
        return spec
    raise UnknownBackendError(f"cannot use {type(spec).__name__} as chat storage")


@asynccontextmanager
async def from_url(spec: StorageSpec) -> AsyncIterator[ChatStorage]:
    """The storage for ``spec``, set up, and closed on exit.

    ``async with from_url("sqlite:///chats.db") as storage: ...``
    """
    storage = resolve_storage(spec)
    try:
        await storage.setup()
        yield storage
    finally:
        await storage.close()


def backend_of(url: str) -> str:
    """``sqlite``, ``postgres`` or ``memory`` for a storage URL."""
    scheme = url.split(":", 1)[0].split("+", 1)[0].strip().lower()
    if ":" in url and scheme in _SCHEMES:
        return _SCHEMES[scheme]
    nearest = difflib.get_close_matches(scheme, _SCHEMES, n=1)
    hint = f"; did you mean {nearest[0]!r}?" if nearest else ""
    raise UnknownBackendError(
        f"unknown storage {redact(url)!r}{hint} Use sqlite:///path, postgresql://... or memory:"
    )


def _from_config(config: StorageConfig) -> ChatStorage:
    backend = "sqlite" if config.url is None else backend_of(config.url)
    if backend == "memory":
        return InMemoryStorage(smart_load_tail=config.smart_load_tail)
    if backend == "postgres":
        from longtalk.storage.postgres import PostgresStorage

        assert config.url is not None
        return PostgresStorage(
            config.url,
            pool_size=config.pool_size,
            connect_timeout=config.connect_timeout_seconds,
            smart_load_tail=config.smart_load_tail,
        )
    from longtalk.storage.sqlite import SqliteStorage

    return SqliteStorage(
        _sqlite_path(config),
        busy_timeout=config.busy_timeout_seconds,
        pool_size=config.pool_size,
        smart_load_tail=config.smart_load_tail,
    )


def _sqlite_path(config: StorageConfig) -> Path | None:
    """``sqlite_path`` wins; then the URL's path; None means the default file."""
    if config.sqlite_path is not None or config.url is None:
        return config.sqlite_path
    try:
        database = make_url(config.url).database
    except ArgumentError as exc:
        raise ConfigError(f"not a SQLite URL: {exc}", path="storage.url") from exc
    return Path(database) if database else None
