"""Lexical side of recall: tokenization and BM25 term weights as sparse vectors.

A turn's sparse vector holds BM25's term-frequency part
(``tf·(k1+1) / (tf + k1·(1-b+b·dl/avgdl))``) for its hashed terms; the query's vector holds
weight 1 per term. The vector store multiplies in each term's IDF (Qdrant's IDF modifier; the
pgvector store counts it within the chat), so the score it returns is the turn's BM25 score.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass

from longtalk.vectors.base import SparseVector

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
INDEX_SPACE = 2**31 - 1

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't
    doing don't down during each few for from further had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm
    i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not
    of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through
    to too under until up very was wasn't we we'd we'll we're we've were weren't what what's
    when when's where where's which while who who's whom why why's with won't would wouldn't
    you you'd you'll you're you've your yours yourself yourselves also just really yeah yes
    oh hey hi wow so much many will get got go going went like lot one thing things know think
    s t d ll re ve m did does kind sort type
    """.split()
)

SUFFIXES = ("ingly", "ings", "ing", "edly", "ies", "ied", "ers", "er", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A light suffix stripper: plurals, -ing, -ed, -ly (enough to match 'paint'/'painting')."""
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            root = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return root + "y"
            if len(root) > 3 and root[-1] == root[-2] and root[-1] not in "aeiouls":
                root = root[:-1]  # running -> run, stopped -> stop
            return root
    return word


def tokenize(text: str) -> list[str]:
    """Lowercased, stopword-free, stemmed terms."""
    terms: list[str] = []
    for raw in TOKEN.findall(text.lower()):
        word = raw.split("'")[0] if raw.endswith("'s") else raw
        if word in STOPWORDS:
            continue
        terms.append(stem(word))
    return terms


def term_index(term: str) -> int:
    """A stable index for a term (CRC-32, so it is the same in every process)."""
    return zlib.crc32(term.encode("utf-8")) % INDEX_SPACE


@dataclass(frozen=True, slots=True)
class BM25Params:
    """BM25 parameters; ``avgdl`` is the assumed mean turn length in terms."""

    k1: float = 1.2
    b: float = 0.5
    avgdl: float = 12.0


def document_vector(text: str, params: BM25Params = BM25Params()) -> SparseVector:
    """The BM25 term-frequency weights of a stored turn."""
    counts = Counter(term_index(term) for term in tokenize(text))
    length = sum(counts.values())
    norm = params.k1 * (1.0 - params.b + params.b * length / params.avgdl)
    items = sorted((index, tf * (params.k1 + 1.0) / (tf + norm)) for index, tf in counts.items())
    return SparseVector(tuple(i for i, _ in items), tuple(w for _, w in items))


def query_vector(text: str) -> SparseVector:
    """The query's terms, weight 1 each: the vector store multiplies in each term's IDF."""
    indices = sorted({term_index(term) for term in tokenize(text)})
    return SparseVector(tuple(indices), tuple(1.0 for _ in indices))


SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str, *, min_chars: int = 25) -> list[str]:
    """Sentences of a turn; fragments shorter than ``min_chars`` join their neighbour."""
    pieces: list[str] = []
    for raw in SENTENCE_END.split(text.strip()):
        piece = raw.strip()
        if not piece:
            continue
        if pieces and (len(piece) < min_chars or len(pieces[-1]) < min_chars):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces
