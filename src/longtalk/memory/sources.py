"""What a memory opens from: ``Settings``, a mapping, a ``MemoryConfig``, a path or a URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from longtalk.config import MemoryConfig, Settings, load_settings, parse_settings, with_environment
from longtalk.errors import UsageError

Source = Settings | MemoryConfig | Mapping[str, Any] | str | Path | None
SummarizeMode = Literal["inline", "background", "off"]
"""When the running summary is extended after an append: ``background`` (the default: a
queue of the memory's own runs the job, one per chat at a time; ``settle()`` and ``aclose``
wait for it), ``inline`` (before ``append`` returns, when the trigger holds), ``off`` (only
``chat.summarize()``)."""
URL_PREFIXES = ("sqlite:", "postgresql:", "postgresql+", "postgres:", "memory:", "none:")


def resolve_settings(source: Source = None) -> Settings:
    """``Settings`` from any accepted source; ``LONGTALK_*`` environment overrides apply.

    ``None``: the embedded defaults. A ``str`` that starts with a storage scheme
    (``sqlite:``, ``postgresql:``, ``memory:``) is a storage URL, any other ``str`` or
    ``Path`` an ``agents.yaml`` file. A ``MemoryConfig`` is the ``supervisor.memory`` block.
    """
    if source is None or isinstance(source, Path):
        return load_settings(source)
    if isinstance(source, Settings):
        return source
    if isinstance(source, MemoryConfig):
        return Settings.model_validate({"supervisor": {"memory": source}})
    if isinstance(source, str):
        if source.strip().lower().startswith(URL_PREFIXES):
            return _from_mapping({"storage": {"url": source.strip()}})
        return load_settings(source)
    if isinstance(source, Mapping):
        return _from_mapping(source)
    raise UsageError(
        f"cannot open memory from a {type(source).__name__}: give Settings, a MemoryConfig, "
        "a mapping, an agents.yaml path or a storage URL"
    )


def _from_mapping(data: Mapping[str, Any]) -> Settings:
    import os

    return parse_settings(with_environment(data, os.environ))
