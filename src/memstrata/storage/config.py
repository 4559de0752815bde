"""Where chats are stored: the storage section of the configuration.

``url`` picks the backend: ``sqlite:///path/to.db`` (``sqlite://`` alone: the default
file), ``postgresql://user:pass@host:5432/db``, or ``memory:`` (nothing persists). Unset,
the SQLite file at ``sqlite_path`` or, by default, under the user's data directory.

It is the ``storage`` section of ``memstrata.config.Settings``, so the environment
overrides it like any other key: ``MEMSTRATA_STORAGE__URL=postgresql://...`` or
``MEMSTRATA_STORAGE__SQLITE_PATH=/data/chats.db``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from memstrata.paths import data_dir
from memstrata.storage.base import DEFAULT_SMART_LOAD_TAIL

DEFAULT_BUSY_TIMEOUT_SECONDS = 5.0
DEFAULT_CONNECT_TIMEOUT_SECONDS = 10.0


def default_sqlite_path() -> Path:
    """``memstrata.db`` in the data directory (``MEMSTRATA_DATA_DIR``, else the user's)."""
    return data_dir() / "memstrata.db"


class StorageConfig(BaseModel):
    """Chat-storage settings; ``memstrata.storage.resolve_storage`` builds the backend."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    url: str | None = None
    sqlite_path: Path | None = None
    smart_load_tail: int = Field(DEFAULT_SMART_LOAD_TAIL, ge=0)
    busy_timeout_seconds: float = Field(DEFAULT_BUSY_TIMEOUT_SECONDS, gt=0)
    connect_timeout_seconds: float = Field(DEFAULT_CONNECT_TIMEOUT_SECONDS, gt=0)
    pool_size: int = Field(5, ge=1)
