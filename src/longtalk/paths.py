"""Where longtalk keeps its files by default: the data directory.

``LONGTALK_DATA_DIR`` when set, else the user's data directory
(``~/.local/share/longtalk`` on Linux). The SQLite file and the embedded vector store live
there unless configured elsewhere. A user of the former name keeps their data: without a
``longtalk`` directory, an existing one of the former name is used (with a warning, see
``longtalk.legacy``).
"""

from __future__ import annotations

from pathlib import Path

from longtalk import legacy

DATA_DIR_ENV = "LONGTALK_DATA_DIR"


def data_dir() -> Path:
    """The data directory: ``LONGTALK_DATA_DIR``, else the user's data directory."""
    if configured := (legacy.getenv(DATA_DIR_ENV) or "").strip():
        return Path(configured).expanduser()
    import platformdirs

    current = Path(platformdirs.user_data_dir("longtalk", appauthor=False))
    former = Path(platformdirs.user_data_dir(legacy.FORMER_NAME, appauthor=False))
    if not current.exists() and former.is_dir():
        legacy.warn_former(f"the data directory {former}", f"move it to {current}")
        return former
    return current
