"""Names a package loads on first use, so importing it does not import what they need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_dir", "lazy_loader"]


def lazy_loader(
    package: str, where: Mapping[str, str], keep: MutableMapping[str, Any] | None = None
) -> Callable[[str], Any]:
    """A module ``__getattr__``: ``name`` imported from the module ``where[name]`` names.

    ``keep`` (the package's ``globals()``) keeps a loaded name, so later lookups find it
    directly; a name ``where`` does not hold is an ``AttributeError``, as for any module.
    """

    def load(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        if keep is not None:
            keep[name] = value
        return value

    return load


def lazy_dir(keep: Mapping[str, Any]) -> Callable[[], list[str]]:
    """A module ``__dir__``: what ``keep`` (its ``globals()``) holds and its ``__all__`` names.

    A lazily loaded name is listed before its first use, as ``dir()`` and completion expect.
    """

    def listing() -> list[str]:
        return sorted(set(keep) | set(keep.get("__all__", ())))

    return listing
