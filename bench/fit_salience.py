"""Fit the offline summary's salience model on LoCoMo dev (the train half only).

    python bench/fit_salience.py [--data PATH] [--write src/longtalk/data/salience.json]

Every turn of conversations 0-2 is cut into sentences (the summarizer's own splitter), each
labelled salient when a human-written line of its session was drawn from it:

* an ``event_summary`` event of a speaker: the sentence of that speaker in that session with
  the highest MiniLM cosine to it (if at least ``EVENT_MIN_COSINE``);
* an ``observation`` with its evidence turn: the sentence of that turn closest to it.

The model (:mod:`longtalk.language.salience`) is a logistic regression over the sentence's
embedding and its surface features, fitted by Newton steps with an L2 penalty on
standardised inputs and written back as raw weights. Conversations 3-5 are never read for
fitting: the script prints the ranking quality (ROC AUC, and the share of a session's
events whose source sentence is among its top 10 %) on both halves, beside two baselines
computed in the same run: the sentence's length in content words and its cosine to the
conversation's centroid (what the offline summary ranked by before).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.language.salience import SURFACE, design
from longtalk.summary.offline_text import content_words, is_filler, split_sentences
from longtalk.tools.datasets.locomo import load_locomo

DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
DEFAULT_WRITE = Path(__file__).resolve().parents[1] / "src/longtalk/data/salience.json"
TRAIN = (0, 1, 2)
REPORT = (3, 4, 5)
EVENT_MIN_COSINE = 0.35
L2 = 1000.0  # chosen by leave-one-conversation-out within the train half (10..3000)
NEWTON_STEPS = 25
DIGITS = 6


@dataclass(slots=True)
class Labelled:
    """The sentences of some conversations with their labels and groups."""

    texts: list[str] = field(default_factory=list)
    labels: list[float] = field(default_factory=list)
    event: list[bool] = field(default_factory=list)  # the source of an event (for reports)
    session: list[tuple[int, int]] = field(default_factory=list)
    vectors: list[npt.NDArray[np.float32]] = field(default_factory=list)


Row = tuple[str, str, int, str]  # text, speaker, session, dia id


def labelled(path: Path, conversations: Sequence[int], embedder: MiniLMEmbedder) -> Labelled:
    raw = json.loads(path.read_text(encoding="utf-8"))
    loaded = load_locomo(path, captions=False)
    out = Labelled()
    for index in conversations:
        rows = [
            (text, turn.message.speaker(), int(turn.dia_id.split(":")[0].lstrip("D")), turn.dia_id)
            for turn in loaded[index].turns
            for text in split_sentences(turn.message.content)
            if not is_filler(text)
        ]
        if not rows:
            continue
        vectors = embedder.embed([r[0] for r in rows])
        event = event_sources(raw[index], rows, vectors, embedder)
        positive = event | observation_sources(raw[index], rows, vectors, embedder)
        for i, row in enumerate(rows):
            out.texts.append(row[0])
            out.labels.append(float(positive[i]))
            out.event.append(bool(event[i]))
            out.session.append((index, row[2]))
            out.vectors.append(vectors[i])
    return out


def event_sources(
    sample: dict[str, Any],
    rows: Sequence[Row],
    vectors: npt.NDArray[np.float32],
    embedder: MiniLMEmbedder,
) -> npt.NDArray[np.bool_]:
    """Per sentence: the closest of its speaker's sentences in the session to an event."""
    found = np.zeros(len(rows), dtype=bool)
    for key, per in sample["event_summary"].items():
        session = int(key.rsplit("_", 1)[-1])
        for speaker, items in per.items():
            mine = [i for i, r in enumerate(rows) if r[2] == session and r[1] == speaker]
            if speaker == "date" or not items or not mine:
                continue
            for line in embedder.embed(list(items)) @ vectors[mine].T:
                best = int(np.argmax(line))
                if line[best] >= EVENT_MIN_COSINE:
                    found[mine[best]] = True
    return found


def observation_sources(
    sample: dict[str, Any],
    rows: Sequence[Row],
    vectors: npt.NDArray[np.float32],
    embedder: MiniLMEmbedder,
) -> npt.NDArray[np.bool_]:
    """Per sentence: the closest sentence of an observation's evidence turn to it."""
    found = np.zeros(len(rows), dtype=bool)
    for per in sample["observation"].values():
        for items in per.values():
            for text, evidence in items:
                ids = [evidence] if isinstance(evidence, str) else list(evidence)
                mine = [i for i, r in enumerate(rows) if r[3] in ids]
                if mine:
                    line = embedder.embed([text])[0] @ vectors[mine].T
                    found[mine[int(np.argmax(line))]] = True
    return found


def fit(data: Labelled) -> tuple[npt.NDArray[np.float64], float]:
    """L2-penalised logistic regression by Newton steps on standardised inputs."""
    x = design(data.texts, np.array(data.vectors))
    y = np.array(data.labels)
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], L2)
    penalty[-1] = 0.0
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        gradient = z.T @ (p - y) + penalty * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.max(np.abs(step))) < 1e-9:
            break
    weights = w[:-1] / std
    bias = float(w[-1] - np.sum(mean * weights))
    return weights, bias


def auc(scores: npt.NDArray[np.float64], labels: npt.NDArray[np.bool_]) -> float:
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = int(labels.sum())
    neg = len(labels) - pos
    if not pos or not neg:
        return float("nan")
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


def top_share(scores: npt.NDArray[np.float64], data: Labelled, fraction: float = 0.1) -> float:
    """The share of event sources ranked in their session's top ``fraction`` of sentences."""
    hits = total = 0
    for group in sorted(set(data.session)):
        idx = [i for i, g in enumerate(data.session) if g == group]
        keep = max(1, round(fraction * len(idx)))
        top = set(sorted(idx, key=lambda i: -scores[i])[:keep])
        events = [i for i in idx if data.event[i]]
        hits += sum(i in top for i in events)
        total += len(events)
    return hits / total if total else float("nan")


def evaluate(
    data: Labelled, weights: npt.NDArray[np.float64], bias: float
) -> dict[str, dict[str, float]]:
    x = design(data.texts, np.array(data.vectors))
    vectors = np.array(data.vectors, dtype=np.float64)
    centroid = vectors.mean(axis=0)
    systems = {
        "model": x @ weights + bias,
        "length": np.array([len(content_words(t)) for t in data.texts], dtype=np.float64),
        "centrality": vectors @ (centroid / np.linalg.norm(centroid)),
    }
    labels = np.array(data.labels, dtype=bool)
    events = np.array(data.event, dtype=bool)
    return {
        name: {
            "auc_salient": round(auc(s, labels), 3),
            "auc_event": round(auc(s, events), 3),
            "event_top10": round(top_share(s, data), 3),
        }
        for name, s in systems.items()
    }


def weights_document(weights: npt.NDArray[np.float64], bias: float, model_id: str) -> str:
    document: dict[str, Any] = {
        "about": "Salience of a sentence for the offline summary; written by "
        "bench/fit_salience.py from LoCoMo dev conversations 0-2.",
        "embedding_model": model_id,
        "surface": list(SURFACE),
        "bias": round(bias, DIGITS),
        "weights": [round(float(w), DIGITS) for w in weights],
    }
    return json.dumps(document, indent=1) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--write", type=Path, default=None, help="where to write the weights")
    parser.add_argument("--no-report", action="store_true", help="skip the held-out report")
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder()
    train = labelled(args.data, TRAIN, embedder)
    weights, bias = fit(train)
    print(f"train: {len(train.texts)} sentences, {int(sum(train.labels))} salient")
    print("train", json.dumps(evaluate(train, weights, bias)))
    if not args.no_report:
        report = labelled(args.data, REPORT, embedder)
        print("report", json.dumps(evaluate(report, weights, bias)))
    if args.write:
        args.write.write_text(weights_document(weights, bias, embedder.model_id), "utf-8")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
