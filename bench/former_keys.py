"""The benchmarks' JSON also under the project's former name, for harnesses that read it.

Every key that starts with ``longtalk`` is written a second time starting with ``memstrata``
(``longtalk_ratio`` and ``memstrata_ratio``), for one more release.
"""

from __future__ import annotations

from typing import Any

CURRENT, FORMER = "longtalk", "memstrata"


def with_former_keys(value: Any) -> Any:
    """``value`` with each ``longtalk…`` key of every mapping in it also as ``memstrata…``."""
    if isinstance(value, list):
        return [with_former_keys(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[Any, Any] = {}
    for key, item in value.items():
        out[key] = with_former_keys(item)
        if isinstance(key, str) and key.startswith(CURRENT):
            out.setdefault(FORMER + key[len(CURRENT) :], out[key])
    return out
