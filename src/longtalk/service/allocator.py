"""Give freed memory back: the C allocator's arenas bounded and trimmed in a long-lived server.

The service's native work (embedding batches, the vector store's segments, SQLite) runs on
many threads, and glibc's ``malloc`` gives each its own arena, keeping what was freed there
for later. Under a steady load the process then grows by what each arena once held at its
peak, a little more with every burst, although nothing leaks. The server caps the arenas
(``M_ARENA_MAX``) and, every ``TRIM_SECONDS``, returns the free pages at the top of each to
the system (``malloc_trim``). Elsewhere than glibc both are no-ops.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import sys
from functools import cache
from typing import Any

log = logging.getLogger(__name__)

ARENAS = 2
"""Arenas glibc may use (its default is eight per CPU)."""
TRIM_SECONDS = 30.0
"""How often the free top of each arena goes back to the system."""
M_ARENA_MAX = -8


@cache
def _libc() -> Any:
    """glibc, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018 - only glibc has both
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap the arenas threads created from now on use; True when the allocator took it."""
    libc = _libc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def trim() -> bool:
    """Return free memory at the top of the arenas to the system; True if any went back."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


async def trim_periodically(seconds: float = TRIM_SECONDS) -> None:
    """Trim every ``seconds`` until cancelled (in a worker thread: it walks the heap)."""
    if _libc() is None:
        return
    while True:
        await asyncio.sleep(seconds)
        await asyncio.to_thread(trim)
