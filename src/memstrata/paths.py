"""Where memstrata keeps its files by default: the data directory.

``MEMSTRATA_DATA_DIR`` when set, else the user's data directory
(``~/.local/share/memstrata`` on Linux). The SQLite file and the embedded vector store live
there unless configured elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "MEMSTRATA_DATA_DIR"


def data_dir() -> Path:
    """The data directory: ``MEMSTRATA_DATA_DIR``, else the user's data directory."""
    if configured := os.environ.get(DATA_DIR_ENV, "").strip():
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("memstrata", appauthor=False))
