"""Fit longtalk's learned recall ranker on a LoCoMo-format file.

    python bench/fit_ranker.py --data ../shared/data/locomo/locomo_dev.json \
        --write src/longtalk/recall/learned_ranker_weights.py
    python bench/fit_ranker.py --data ... --folds DIR   # leave-one-conversation-out

Every conversation's turns are stored through the real ``HybridRetriever`` (MiniLM, Qdrant
edge); for every question with evidence the retriever gathers its candidates exactly as at
run time and :func:`longtalk.recall.features.feature_matrix` describes them. A candidate is
positive when it is one of the question's evidence turns (category 5 counts at 0.2). The
model is listwise: a softmax over each question's candidates, fitted to put its mass on the
evidence (L2-regularised, Newton steps with backtracking on standardised features), written
back as raw weights. ``--without a,b`` leaves features out (the ablations in docs/recall.md).

``--folds DIR`` writes ``fold_<i>.json`` fitted without conversation ``i``, which
``bench/locomo_recall.py --ranker-folds DIR`` uses to score every conversation with a model
that never saw it (the held-out numbers in docs/recall.md).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo_recall as bench  # noqa: E402
from longtalk.recall.features import FEATURES, feature_matrix  # noqa: E402
from longtalk.recall.learned_ranker import LinearRanker  # noqa: E402
from longtalk.recall.retriever import HybridRetriever  # noqa: E402
from longtalk.vectors.base import RecallScope  # noqa: E402

L2 = float(os.environ.get("LONGTALK_FIT_L2", "1.0"))  # on ~1,100 questions' summed losses
NEWTON_STEPS = 30
ADVERSARIAL_WEIGHT = 0.2
"""Category 5 asks about one speaker what the other did: its evidence is the other's turn.
Weighed in at 0.2 it keeps the model from burying the other speaker (adversarial recall 0.93
instead of 0.88 held out) at a cost of 0.001 on categories 1-4."""


@dataclass(slots=True)
class Question:
    """One question's candidates: features, evidence labels, and which conversation."""

    conversation: int
    rows: npt.NDArray[np.float64]
    labels: npt.NDArray[np.float64]
    weight: float = 1.0


async def collect(conversations: Sequence[bench.Conversation], embedder: Any) -> list[Question]:
    """Candidates and labels for every question with evidence (category 5 weighed down)."""
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    questions: list[Question] = []
    for index, conv in enumerate(conversations):
        with tempfile.TemporaryDirectory() as tmp:
            retriever = HybridRetriever(QdrantEdgeStore(Path(tmp)), embedder)
            scope = RecallScope(chat_id=conv.sample_id)
            await retriever.store_turns(scope, [(t.sequence, t.message) for t in conv.turns])
            for item in conv.qa:
                ids = bench.evidence_ids(item, conv)
                if not ids:
                    continue
                weight = ADVERSARIAL_WEIGHT if str(item.get("category")) == "5" else 1.0
                question = str(item.get("question", ""))
                evidence = {bench.squash(conv.by_dia[i].text) for i in ids}
                found = list((await retriever.gather(question, scope)).values())
                labels = np.array([bench.squash(c.content) in evidence for c in found], float)
                rows = feature_matrix(found, question)
                questions.append(Question(index, rows, labels, weight))
            await retriever.close()
    return questions


def fit(
    questions: Sequence[Question], l2: float = L2, without: frozenset[str] = frozenset()
) -> LinearRanker:
    """Listwise fit: Newton steps on the softmax loss over each question's candidates.

    A question with ``k`` evidence turns among its candidates adds
    ``weight × (k × logsumexp(z·w) − Σ_evidence z·w)``; features are standardised for the
    fit and the weights returned for raw features (a constant shift cancels in a softmax).
    """
    x = np.concatenate([q.rows for q in questions])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    used = [q for q in questions if q.labels.any()]
    keep = np.array([name not in without for name in FEATURES], dtype=float)
    zs = [(q.rows - mean) / scale * keep for q in used]  # a dropped feature stays at 0

    def loss(w: npt.NDArray[np.float64]) -> float:
        total = 0.5 * l2 * float(w @ w)
        for q, z in zip(used, zs, strict=True):
            logits = z @ w
            top = float(logits.max())
            spread = top + float(np.log(np.exp(logits - top).sum()))
            total += q.weight * (q.labels.sum() * spread - float(logits @ q.labels))
        return total

    w = np.zeros(len(FEATURES))
    current = loss(w)
    for _ in range(NEWTON_STEPS):
        gradient = l2 * w
        hessian = l2 * np.eye(len(w))
        for q, z in zip(used, zs, strict=True):
            logits = z @ w
            p = np.exp(logits - logits.max())
            p /= p.sum()
            k = q.weight * q.labels.sum()
            mean_z = z.T @ p
            gradient += k * mean_z - q.weight * (z.T @ q.labels)
            hessian += k * ((z * p[:, None]).T @ z - np.outer(mean_z, mean_z))
        step = np.linalg.solve(hessian, gradient)
        size = 1.0
        while (trial := loss(w - size * step)) > current and size > 1e-4:
            size /= 2  # Newton on a softmax loss can overshoot: backtrack
        if current - trial < 1e-9 * max(1.0, abs(current)):
            break
        w, current = w - size * step, trial
    raw = w / scale
    return LinearRanker({n: round(float(v), 6) for n, v in zip(FEATURES, raw, strict=True)})


def as_json(ranker: LinearRanker) -> dict[str, Any]:
    return {"weights": dict(ranker.weights)}


def write_module(ranker: LinearRanker, path: Path, source: str, count: int) -> None:
    lines = [
        '"""The shipped weights of the learned recall ranker (generated: do not edit).',
        "",
        f"Fitted by ``bench/fit_ranker.py`` on {source} ({count} questions).",
        '"""',
        "",
        "WEIGHTS: dict[str, float] = {",
        *(f'    "{name}": {value!r},' for name, value in ranker.weights.items()),
        "}",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--write", type=Path, help="the learned_ranker_weights.py module to write")
    parser.add_argument("--folds", type=Path, help="write leave-one-out fold_<i>.json here")
    parser.add_argument("--embed-cache", type=Path, default=None, help="reuse embeddings (dev)")
    parser.add_argument("--without", default="", help="ablation: features left out, a,b,...")
    args = parser.parse_args(argv)
    from longtalk.embed.minilm import MiniLMEmbedder

    conversations = bench.load(args.data, captions=False)
    embedder: Any = MiniLMEmbedder()
    if args.embed_cache:
        embedder = bench.CachedEmbedder(embedder, args.embed_cache)
    questions = asyncio.run(collect(conversations, embedder))
    if isinstance(embedder, bench.CachedEmbedder):
        embedder.save()
    without = frozenset(n for n in args.without.split(",") if n)
    unknown = without - set(FEATURES)
    if unknown:
        parser.error(f"unknown features {sorted(unknown)}")
    ranker = fit(questions, without=without)
    print(json.dumps(as_json(ranker), indent=2))
    if args.write:
        write_module(ranker, args.write, args.data.name, len(questions))
    if args.folds:
        args.folds.mkdir(parents=True, exist_ok=True)
        for index in range(len(conversations)):
            held_out = fit([q for q in questions if q.conversation != index], without=without)
            path = args.folds / f"fold_{index}.json"
            path.write_text(json.dumps(as_json(held_out), indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
