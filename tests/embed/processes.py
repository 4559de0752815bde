"""Watching processes from the embedding child's tests."""

from __future__ import annotations

import time


def gone(pid: int, seconds: float) -> bool:
    """Whether ``pid`` exits (or is a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False
