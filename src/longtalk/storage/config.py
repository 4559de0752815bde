"""Where chats are stored: the storage section of the configuration.

``url`` picks the backend: ``sqlite:///path/to.db`` (``sqlite://`` alone: the default
file), ``postgresql://user:pass@host:5432/db``, or ``memory:`` (nothing persists). Unset,
the SQLite file at ``sqlite_path`` or, by default, under the user's data directory.

It is the ``storage`` section of ``longtalk.config.Settings``, so the environment
overrides it like any other key: ``LONGTALK_STORAGE__URL=postgresql://...`` or
``LONGTALK_STORAGE__SQLITE_PATH=/data/chats.db``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from longtalk import legacy
from longtalk.paths import data_dir
from longtalk.storage.base import DEFAULT_SMART_LOAD_TAIL

DEFAULT_BUSY_TIMEOUT_SECONDS = 5.0
DEFAULT_CONNECT_TIMEOUT_SECONDS = 10.0


def default_sqlite_path() -> Path:
    """``longtalk.db`` in the data directory (``LONGTALK_DATA_DIR``, else the user's).

    A data directory of the former name holds a database of that name: it is used while no
    ``longtalk.db`` exists.
    """
    directory = data_dir()
    current, former = directory / "longtalk.db", directory / f"{legacy.FORMER_NAME}.db"
    if not current.exists() and former.is_file():
        legacy.warn_former(f"the database {former}", f"rename it {current.name}")
        return former
    return current


class StorageConfig(BaseModel):
    """Chat-storage settings; ``longtalk.storage.resolve_storage`` builds the backend."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    url: str | None = None
    sqlite_path: Path | None = None
    smart_load_tail: int = Field(DEFAULT_SMART_LOAD_TAIL, ge=0)
    busy_timeout_seconds: float = Field(DEFAULT_BUSY_TIMEOUT_SECONDS, gt=0)
    connect_timeout_seconds: float = Field(DEFAULT_CONNECT_TIMEOUT_SECONDS, gt=0)
    pool_size: int = Field(5, ge=1)
