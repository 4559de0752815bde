"""One value's fields copied into another type that names them alike.

A response model, a record and a patch often carry the same fields under the same names:
the names are declared once, on the type being built, and only what changes on the way
is written out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

__all__ = ["field_names", "same_named"]


def field_names(kind: type) -> tuple[str, ...]:
    """The fields of a dataclass (or the keys of a pydantic model's ``model_fields``)."""
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    return tuple(getattr(kind, "model_fields", ()))


def same_named(names: Iterable[str], source: object, **given: Any) -> dict[str, Any]:
    """``source``'s attributes under ``names`` (those it has), with ``given`` in their place."""
    wanted = (name for name in names if name not in given)
    values = {name: getattr(source, name) for name in wanted if hasattr(source, name)}
    return values | given
