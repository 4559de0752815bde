"""Word stems, so a claim is found by what it is about however it was inflected.

One word in its forms: ``smoke``, ``smoking``, ``smokes``; ``accountant``, ``accounting``.

The Snowball (Porter 2) English stemmer, a library rather than suffix rules of our own. A
stemmer keeps the word it works on as state, so each thread has its own. A stem takes tens
of microseconds and a merge compares the same claims' words again for every change, so
stems are remembered by word.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import snowballstemmer  # type: ignore[import-untyped,unused-ignore]

__all__ = ["stem", "stems"]

REMEMBERED = 16384
"""Words whose stems are kept (the most recently used)."""

_local = threading.local()


def _stemmer() -> Any:
    found = getattr(_local, "stemmer", None)
    if found is None:
        found = _local.stemmer = snowballstemmer.stemmer("english")
    return found


@lru_cache(maxsize=REMEMBERED)
def stem(word: str) -> str:
    """``word``'s stem, case-folded."""
    return str(_stemmer().stemWord(word.casefold()))


def stems(words: Iterable[str]) -> set[str]:
    """The stems of ``words``."""
    return {stem(word) for word in words}
