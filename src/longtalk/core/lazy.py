"""Names a package loads on first use, so importing it does not import what they need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_loader"]


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
