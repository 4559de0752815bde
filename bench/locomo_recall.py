"""LoCoMo recall benchmark: evidence and answer-token recall of the assembled context.

    python bench/locomo_recall.py --data PATH --budgets 500,1000,2000,4000 --json OUT

Each conversation of a LoCoMo-format file is ingested (all sessions, with their dates) into a
fresh memory; for every QA item the context for the question is assembled under each budget
with longtalk's default ``rag_augmented`` configuration, and two baselines are computed in
the same run with the same budgets and counting: recency (the newest turns that fit) and BM25
over turns (greedy fill by score). Budgets are counted as ceil(chars / 4).

The engine runs longtalk's DEFAULT configuration: ``MemoryConfig(context_max_tokens=max(budgets))``
with no budget-split, window or summary overrides (``--set`` exists for ablations only).

Metrics: evidence recall (the fraction of the item's evidence turns whose text is in the
context) and answer-token recall (the fraction of the gold answer's content words in it), per
LoCoMo category "1".."5" and "cat1_4" (micro-average over categories 1-4).

JSON: ``{budget: {system: report}}``; every report has ``evidence_recall`` and
``answer_recall`` (per category and ``cat1_4``), ``tokens_used_mean`` and ``n`` (items per
category). The ``longtalk`` report adds the context contract's measures:

* ``window_intact``: the fraction of questions whose context holds the whole recent window
  (``context.window_intact`` when the engine has it, else ``dropped_verbatim == 0``).
* ``summary_tokens_max``: the largest summary part shown (0 when none is).
* ``summary_only_answer_recall``: answer-token recall (cat1_4) of the shown summary part's
  text alone.
* ``summary_only_baseline``: the same for a naive extract of the same token count as that
  question's shown summary: the whole transcript's sentences scored by cosine to their TF-IDF
  centroid, the best that fit chosen, printed in transcript order.
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core box, OpenBLAS threads spinning against each other made
# the numpy MiniLM forward ~5x slower (measured: 5.5 vs 27 turns/s).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import asyncio
import functools
import json
import math
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from longtalk.config import MemoryConfig
from longtalk.core.context import AssembledContext, ContextBudget, assemble_context
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.recall.lexical import STOPWORDS, tokenize
from longtalk.recall.ranking import RankingConfig
from longtalk.recall.retriever import HybridRetriever
from longtalk.tools.datasets.locomo import Conversation, Turn, load_locomo, normalise_dia_id
from longtalk.vectors.base import RecalledTurn, RecallScope

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from former_keys import with_former_keys  # noqa: E402

COUNTER = HeuristicTokenCounter(4.0)
CATEGORIES = ("1", "2", "3", "4", "5")
SYSTEMS = ("longtalk", "bm25", "recency")
WORD = re.compile(r"[a-z0-9]+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_SENTENCE_WORDS = 4  # content words a sentence needs to enter the TF-IDF extract
MAX_SUMMARY_RUNS = 200
CAPTIONS = False  # LoCoMo photos as "[shares <caption>]" after the text: measured no better


# -- data -----------------------------------------------------------------------------------------


def load(path: Path, captions: bool) -> list[Conversation]:
    return load_locomo(path, captions=captions)


# -- metrics --------------------------------------------------------------------------------------


def squash(text: str) -> str:
    return " ".join(text.split())


def content_words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def evidence_ids(item: dict[str, Any], conv: Conversation) -> list[str]:
    ids: list[str] = []
    evidence = item.get("evidence") or []
    for raw in [evidence] if isinstance(evidence, str) else evidence:
        ids.extend(i for i in normalise_dia_id(raw) if i in conv.by_dia and i not in ids)
    return ids


def evidence_recall(ids: Sequence[str], conv: Conversation, context: str) -> float | None:
    if not ids:
        return None
    flat = squash(context)
    found = sum(squash(conv.by_dia[i].text) in flat for i in ids)
    return found / len(ids)


def answer_recall(item: dict[str, Any], context: str) -> float | None:
    answer = item.get("answer", item.get("adversarial_answer"))
    words = content_words(str(answer)) if answer is not None else set()
    if not words:
        return None
    present = set(WORD.findall(context.lower()))
    return len(words & present) / len(words)


@dataclass(slots=True)
class Tally:
    sums: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, category: str, value: float | None) -> None:
        if value is None:
            return
        for key in (category, "cat1_4") if category in "1234" else (category,):
            self.sums[key] += value
            self.counts[key] += 1

    def report(self) -> dict[str, float]:
        keys = (*CATEGORIES, "cat1_4")
        return {k: round(self.sums[k] / self.counts[k], 4) if self.counts[k] else 0.0 for k in keys}


@dataclass(slots=True)
class Score:
    evidence: Tally = field(default_factory=Tally)
    answer: Tally = field(default_factory=Tally)
    tokens: list[int] = field(default_factory=list)
    contract: Contract | None = None

    def add(self, item: dict[str, Any], ids: Sequence[str], conv: Conversation, text: str) -> None:
        category = str(item.get("category"))
        self.evidence.add(category, evidence_recall(ids, conv, text))
        self.answer.add(category, answer_recall(item, text))
        self.tokens.append(COUNTER.count(text))

    def report(self) -> dict[str, Any]:
        report = {
            "evidence_recall": self.evidence.report(),
            "answer_recall": self.answer.report(),
            "tokens_used_mean": round(sum(self.tokens) / max(1, len(self.tokens)), 1),
            "n": dict(self.evidence.counts),
        }
        return {**report, **self.contract.report()} if self.contract else report


@dataclass(slots=True)
class Contract:
    """The context contract's measures: an intact window and what the summary alone holds."""

    intact: list[bool] = field(default_factory=list)
    summary_tokens: list[int] = field(default_factory=list)
    summary_only: Tally = field(default_factory=Tally)
    baseline: Tally = field(default_factory=Tally)

    def add(
        self, item: dict[str, Any], context: AssembledContext, extract: CentroidExtract
    ) -> None:
        category = str(item.get("category"))
        self.intact.append(bool(getattr(context, "window_intact", context.dropped_verbatim == 0)))
        summary = context.part("summary")
        tokens = summary.tokens if summary else 0
        self.summary_tokens.append(tokens)
        self.summary_only.add(category, answer_recall(item, summary.text if summary else ""))
        self.baseline.add(category, answer_recall(item, extract.text(tokens)))

    def report(self) -> dict[str, Any]:
        return {
            "window_intact": round(sum(self.intact) / max(1, len(self.intact)), 4),
            "summary_tokens_max": max(self.summary_tokens, default=0),
            "summary_only_answer_recall": self.summary_only.report()["cat1_4"],
            "summary_only_baseline": self.baseline.report()["cat1_4"],
        }


# -- baselines ------------------------------------------------------------------------------------


def turns_context(turns: Sequence[Turn], ranked: Sequence[int], budget: int) -> str:
    """Greedy fill in ranked order, rendered like longtalk's recalled turns."""
    by_seq = {t.sequence: t for t in turns}
    recalled = [RecalledTurn(by_seq[s].message, 1.0 / (i + 1), s) for i, s in enumerate(ranked)]
    rules = ContextBudget(headers=False, length_penalty=0.0)
    return assemble_context(
        recalled=recalled, budget_tokens=budget, counter=COUNTER, rules=rules
    ).render()


class BM25Baseline:
    def __init__(self, turns: Sequence[Turn]) -> None:
        from rank_bm25 import BM25Okapi

        self.turns = turns
        self.docs = [tokenize(t.message.content) or ["_"] for t in turns]
        self.index = BM25Okapi(self.docs)

    def ranked(self, question: str) -> list[int]:
        scores = self.index.get_scores(tokenize(question))
        order = sorted(range(len(self.turns)), key=lambda i: -scores[i])
        return [self.turns[i].sequence for i in order]


class CentroidExtract:
    """A naive extractive summary: the transcript's most central sentences by TF-IDF.

    Every sentence of every turn is a TF-IDF vector (sublinear tf, smoothed idf, content
    words, L2-normalised); sentences are ranked by cosine to the centroid of all of them. For
    a token count the best sentences that fit are chosen and printed in transcript order as
    ``Speaker: sentence`` lines (counted with COUNTER). Repeated sentences and those with
    fewer than ``MIN_SENTENCE_WORDS`` content words are left out: otherwise the top of the
    ranking is twenty copies of "Thanks, Caroline!" (short, and made of the commonest word).
    """

    def __init__(self, turns: Sequence[Turn]) -> None:
        import numpy as np

        pairs, seen = [], set()
        for turn in turns:
            for sentence in SENTENCE_END.split(turn.message.content.strip()):
                words = [w for w in WORD.findall(sentence.lower()) if w not in STOPWORDS]
                if len(words) >= MIN_SENTENCE_WORDS and sentence.lower() not in seen:
                    seen.add(sentence.lower())
                    pairs.append((f"{turn.message.speaker()}: {sentence}", words))
        self.lines = [line for line, _ in pairs]
        docs = [words for _, words in pairs]
        vocab = {w: i for i, w in enumerate(sorted({w for doc in docs for w in doc}))}
        matrix = np.zeros((len(docs), max(1, len(vocab))))
        for row, doc in enumerate(docs):
            for word in doc:
                matrix[row, vocab[word]] += 1.0
        matrix = np.where(matrix > 0, 1.0 + np.log(np.maximum(matrix, 1.0)), 0.0)
        df = (matrix > 0).sum(axis=0)
        matrix *= np.log((1 + len(docs)) / (1 + df)) + 1.0
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        centroid = matrix.mean(axis=0)
        scores = matrix @ centroid / max(float(np.linalg.norm(centroid)), 1e-12)
        self.order = [int(i) for i in np.argsort(-scores, kind="stable")]
        self._cache: dict[int, str] = {}

    def text(self, tokens: int) -> str:
        """The extract of at most ``tokens`` tokens (greedy by score, shown in order)."""
        if tokens not in self._cache:
            chosen, used = [], 0
            for index in self.order:
                cost = COUNTER.count(self.lines[index]) + (1 if chosen else 0)  # the newline
                if used + cost <= tokens:
                    chosen.append(index)
                    used += cost
            self._cache[tokens] = "\n".join(self.lines[i] for i in sorted(chosen))
        return self._cache[tokens]


# -- a brute-force store (the VectorStore protocol in numpy) and an embedding cache ------------


class NumpyStore:
    """Exact search in numpy; the same results as an unindexed Qdrant, for quick experiments."""

    def __init__(self) -> None:
        self.points: dict[str, Any] = {}

    async def setup(self, *, dimension: int, model_id: str) -> None:
        self.dimension = dimension

    async def upsert(self, points: Sequence[Any]) -> None:
        for point in points:
            self.points[point.id] = point

    def _scoped(self, scope: RecallScope) -> list[Any]:
        return [
            p
            for p in self.points.values()
            if p.payload["chat_id"] == scope.chat_id and p.payload["tenant"] == scope.tenant
        ]

    async def search(
        self, scope: RecallScope, *, dense: Any = None, sparse: Any = None, limit: int = 10
    ) -> list[Any]:
        import numpy as np

        from longtalk.vectors.base import ScoredPoint

        points = self._scoped(scope)
        if dense is not None:
            matrix = np.asarray([p.vector for p in points], dtype=np.float32)
            scores = matrix @ np.asarray(dense, dtype=np.float32)
        else:
            points = [p for p in points if p.sparse is not None]
            weights = self._idf(points, sparse)
            scores = np.asarray(
                [
                    sum(
                        weights.get(i, 0.0) * v
                        for i, v in zip(p.sparse.indices, p.sparse.values, strict=True)
                    )
                    for p in points
                ]
            )
        order = np.argsort(-scores, kind="stable")[:limit]
        hits = [ScoredPoint(points[i].id, float(scores[i]), points[i].payload) for i in order]
        return hits if dense is not None else [h for h in hits if h.score > 0]

    @staticmethod
    def _idf(points: list[Any], sparse: Any) -> dict[int, float]:
        """Query weight times BM25 IDF within the chat (what the real stores apply)."""
        n = len(points)
        weights = {}
        for index, value in zip(sparse.indices, sparse.values, strict=True):
            df = sum(index in p.sparse.indices for p in points)
            weights[index] = value * math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return weights

    async def fetch(self, scope: RecallScope, sequences: Sequence[int]) -> list[Any]:
        from longtalk.vectors.base import ScoredPoint

        wanted = set(sequences)
        return [
            ScoredPoint(p.id, 0.0, p.payload)
            for p in self._scoped(scope)
            if p.payload["sequence"] in wanted
        ]

    async def delete(self, scope: RecallScope) -> None:
        for point in self._scoped(scope):
            del self.points[point.id]

    async def close(self) -> None:
        pass


class CachedEmbedder:
    """Wraps the real embedder with an on-disk cache (``--embed-cache``: for repeated runs)."""

    def __init__(self, inner: Any, path: Path) -> None:
        import numpy as np

        self.inner, self.path = inner, path
        self.model_id, self.dimension = inner.model_id, inner.dimension
        self.cache: dict[str, Any] = {}
        if path.exists():
            data = np.load(path)
            self.cache = dict(zip(data["keys"].tolist(), data["vecs"], strict=True))
        self.dirty = False

    def embed(self, texts: Sequence[str]) -> Any:
        import hashlib

        import numpy as np

        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [i for i, key in enumerate(keys) if key not in self.cache]
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing])
            for i, vector in zip(missing, fresh, strict=True):
                self.cache[keys[i]] = vector
            self.dirty = True
        return np.stack([self.cache[key] for key in keys])

    def save(self) -> None:
        import numpy as np

        if self.dirty:
            vecs = np.stack(list(self.cache.values()))
            np.savez(self.path, keys=np.array(list(self.cache)), vecs=vecs)


# -- longtalk -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """longtalk's configuration under test (defaults = longtalk's defaults)."""

    ranking: RankingConfig = field(default_factory=RankingConfig)
    rules: ContextBudget | None = None  # None: the engine's own; a ContextBudget for ablations
    config: dict[str, Any] = field(default_factory=dict)  # MemoryConfig overrides (ablations)
    store: str = "qdrant-edge"


def make_store(kind: str, directory: Path) -> Any:
    if kind == "qdrant-edge":
        from longtalk.vectors.qdrant_edge import QdrantEdgeStore

        return QdrantEdgeStore(directory)
    return NumpyStore()  # brute force: for ranking experiments before a real store exists


async def run_longtalk(
    conv: Conversation,
    embedder: Any,
    setup: Setup,
    budgets: Sequence[int],
    on_item: Callable[[dict[str, Any], dict[int, AssembledContext]], None],
) -> None:
    """longtalk end to end: the engine over in-memory chat storage and the retriever.

    The default configuration: only ``context_max_tokens`` is set (to the largest budget);
    ``setup.config`` and ``setup.rules`` are empty/None unless an ablation sets them.
    """
    from longtalk.engine import MemoryEngine
    from longtalk.storage.in_memory import InMemoryStorage
    from longtalk.summary.offline import OfflineSummaryWriter

    with tempfile.TemporaryDirectory() as tmp:
        store = make_store(setup.store, Path(tmp))
        retriever = HybridRetriever(store, embedder, ranking=setup.ranking)
        storage = InMemoryStorage()
        await storage.setup()
        config = MemoryConfig(context_max_tokens=max(budgets), **setup.config)
        rules = {"budget": setup.rules} if setup.rules is not None else {}
        writer = OfflineSummaryWriter(embedder)  # the default writer, sharing the one MiniLM
        engine = MemoryEngine(  # as open_memory builds it: the one MiniLM everywhere
            storage,
            config=config,
            writer=writer,
            recall=retriever,
            counter=COUNTER,
            embedder=embedder,
            **rules,
        )
        chat = await engine.create_chat(conv.sample_id)
        said = [t.message for t in conv.turns]
        step = engine.limits.max_batch_size  # the input gate's batch limit, as a door would
        for start in range(0, len(said), step):
            await engine.append(chat.id, said[start : start + step])
        for _ in range(MAX_SUMMARY_RUNS):  # as the background job would, turn after turn
            if not (await engine.summarize(chat.id, force=True)).changed:
                break
        for item in conv.qa:
            question = str(item.get("question", ""))
            contexts = {
                budget: await engine.get_context(chat.id, question, budget_tokens=budget)
                for budget in budgets
            }
            on_item(item, contexts)
        await storage.close()
        await retriever.close()


def score_item(
    scores: dict[tuple[str, int], Score],
    conv: Conversation,
    budgets: Sequence[int],
    bm25: BM25Baseline | None,
    newest: list[int],
    extract: CentroidExtract,
    item: dict[str, Any],
    contexts: dict[int, AssembledContext],
) -> None:
    ids = evidence_ids(item, conv)
    ranked = bm25.ranked(str(item.get("question", ""))) if bm25 else []
    for budget in budgets:
        longtalk = scores["longtalk", budget]
        longtalk.add(item, ids, conv, contexts[budget].render())
        longtalk.contract = longtalk.contract or Contract()
        longtalk.contract.add(item, contexts[budget], extract)
        if bm25:
            scores["bm25", budget].add(item, ids, conv, turns_context(conv.turns, ranked, budget))
            recency = turns_context(conv.turns, newest, budget)
            scores["recency", budget].add(item, ids, conv, recency)


async def evaluate(
    conversations: Sequence[Conversation],
    budgets: Sequence[int],
    setup: Setup,
    baselines: bool,
    cache: Path | None = None,
    folds: Path | None = None,
) -> dict[str, dict[str, Any]]:
    from longtalk.embed.minilm import MiniLMEmbedder

    embedder: Any = MiniLMEmbedder()
    if cache is not None:
        embedder = CachedEmbedder(embedder, cache)
    scores = {(s, b): Score() for s in SYSTEMS for b in budgets}
    for index, conv in enumerate(conversations):
        bm25 = BM25Baseline(conv.turns) if baselines else None
        newest = [t.sequence for t in reversed(conv.turns)]
        extract = CentroidExtract(conv.turns)
        on_item = functools.partial(score_item, scores, conv, budgets, bm25, newest, extract)
        held_out = with_fold(setup, folds / f"fold_{index}.json") if folds else setup
        await run_longtalk(conv, embedder, held_out, budgets, on_item)
    if isinstance(embedder, CachedEmbedder):
        embedder.save()
    systems = SYSTEMS if baselines else ("longtalk",)
    return {str(b): {s: scores[s, b].report() for s in systems} for b in budgets}


def with_fold(setup: Setup, path: Path) -> Setup:
    """The setup with the ranker fitted without this conversation (``--ranker-folds``)."""
    from longtalk.recall.learned_ranker import LinearRanker

    fold = json.loads(path.read_text(encoding="utf-8"))
    ranker = LinearRanker(fold["weights"])
    return replace(setup, ranking=replace(setup.ranking, ranker=ranker))


def print_table(results: dict[str, dict[str, Any]], out: Any = sys.stdout) -> None:
    head = (
        f"{'budget':>6} {'system':<10} {'metric':<9} "
        + " ".join(f"{c:>6}" for c in (*CATEGORIES, "cat1_4"))
        + f" {'tokens':>7}"
    )
    print(head, file=out)
    print("-" * len(head), file=out)
    for budget, systems in results.items():
        for system, report in systems.items():
            for metric, key in (("evidence", "evidence_recall"), ("answer", "answer_recall")):
                values = " ".join(f"{report[key][c]:>6.3f}" for c in (*CATEGORIES, "cat1_4"))
                tokens = report["tokens_used_mean"]
                print(f"{budget:>6} {system:<10} {metric:<9} {values} {tokens:>7.1f}", file=out)
    print_contract(results, out)


def print_contract(results: dict[str, dict[str, Any]], out: Any = sys.stdout) -> None:
    """The longtalk context-contract measures per budget."""
    head = (
        f"\n{'budget':>6} {'window_intact':>13} {'summary_max':>11} "
        f"{'summary_only':>12} {'tfidf_extract':>13}"
    )
    print(head, file=out)
    for budget, systems in results.items():
        report = systems.get("longtalk", {})
        if "window_intact" not in report:
            continue
        print(
            f"{budget:>6} {report['window_intact']:>13.3f} {report['summary_tokens_max']:>11} "
            f"{report['summary_only_answer_recall']:>12.3f} "
            f"{report['summary_only_baseline']:>13.3f}",
            file=out,
        )
    print(
        "(summary_only / tfidf_extract: answer-token recall cat1_4 of the shown summary alone "
        "and of a TF-IDF centroid extract of the same tokens)",
        file=out,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--budgets", default="500,1000,2000,4000")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--store", default="qdrant-edge", choices=["qdrant-edge", "numpy"])
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--embed-cache", type=Path, default=None, help="reuse embeddings (dev)")
    parser.add_argument(
        "--ranker-folds",
        type=Path,
        default=None,
        help="score conversation i with DIR/fold_<i>.json (bench/fit_ranker.py --folds)",
    )
    parser.add_argument(
        "--set", action="append", default=[], help="ablation: ranking.X=V or rules.X=V"
    )
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    setup = apply_overrides(Setup(store=args.store), args.set)
    conversations = load(args.data, captions=_captions(args.set))
    if args.limit:
        conversations = conversations[: args.limit]
    started = time.perf_counter()
    results = asyncio.run(
        evaluate(
            conversations,
            budgets,
            setup,
            not args.no_baselines,
            args.embed_cache,
            args.ranker_folds,
        )
    )
    print_table(results)
    print(
        f"\n{sum(len(c.qa) for c in conversations)} questions, {len(conversations)} conversations, "
        f"{time.perf_counter() - started:.1f} s"
    )
    if args.json:
        args.json.write_text(json.dumps(with_former_keys(results), indent=2), encoding="utf-8")
    return 0


def _captions(overrides: Sequence[str]) -> bool:
    if "captions=1" in overrides:
        return True
    return CAPTIONS and "captions=0" not in overrides


def apply_overrides(setup: Setup, overrides: Sequence[str]) -> Setup:
    for override in overrides:
        key, _, raw = override.partition("=")
        value: Any = json.loads(raw) if raw[:1] in "0123456789-[{tf" and raw not in ("",) else raw
        if isinstance(value, list):
            value = tuple(value)
        if key.startswith("ranking."):
            setup = replace(setup, ranking=replace(setup.ranking, **{key[8:]: value}))
        elif key.startswith("rules."):
            rules = setup.rules or ContextBudget()
            setup = replace(setup, rules=replace(rules, **{key[6:]: value}))
        elif key.startswith("config."):
            setup = replace(setup, config={**setup.config, key[7:]: value})
    return setup


if __name__ == "__main__":
    sys.exit(main())
