"""A bounded, thread-safe cache of the most recently used entries.

Parses and the statements read from them are kept by what was read, so text read twice
(an append, then the summary's fold) is worked out once; the bound keeps memory flat.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from typing import Generic, TypeVar

__all__ = ["RecentCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class RecentCache(Generic[K, V]):
    """At most ``size`` entries; storing past it drops the least recently stored or used."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size: at least 1, got {size}")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def known(self, keys: Iterable[K]) -> dict[K, V]:
        """The entries of ``keys`` that are kept."""
        with self._lock:
            return {key: self._entries[key] for key in keys if key in self._entries}

    def keep(self, entries: Mapping[K, V]) -> None:
        """Store ``entries`` as the most recent, dropping the oldest past the bound."""
        with self._lock:
            for key, value in entries.items():
                self._entries[key] = value
                self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def discard(self, key: K) -> None:
        """Forget ``key`` if it is kept."""
        with self._lock:
            self._entries.pop(key, None)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
