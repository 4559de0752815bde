"""Fit the take-back model: does a message take back what its speaker has just said.

    python bench/fit_take_backs.py [--data LOCOMO] [--write src/longtalk/data/take_backs.json]

Training data, split before fitting (the other parts are reported on, never fitted):

* ``tests/language/labelled_take_backs.jsonl``: messages labelled ``take_back`` true or
  false. Most are the later messages of the ``retracts`` pairs in
  ``tests/facts/labelled_pairs*.jsonl`` (written by people who read none of longtalk's
  code, tests or data; ``from`` names the line): a correction or a take-back of what was
  just said (``ok confession, I'm not a black belt``, ``*fiancée, not wife``) is one, an
  end of what held (``sold the motorbike``) or a finding that it never held (``turns out
  I'm not allergic after all``) is not, since said months later it must not undo the words
  just before it. Pairs that could be read either way are left out, and so are
  corrections that only state the right value (``17!``, ``Belgian actually``): they
  correct only beside what they correct, which the message alone does not show. The rest
  are written: take-backs in words the pairs do not use, and messages that look like them
  and take nothing back (``I'm not kidding``, ``you're wrong about that film``). The even lines
  train, the odd lines are held out.
* The later messages of the ``keeps`` pairs in the same files: nothing taken back; the
  even lines of each file train.
* ``tests/facts/labelled_statements*.jsonl``, the statements labelled with a kind of fact
  (``I'm 34.``, ``my sister's a nurse``): plain claims, short as many take-backs are, that
  take nothing back; the even lines of each file train.
* LoCoMo dev messages: a real conversation, with no take-back in it (conversations 0-2
  train, 3-5 are held out).

Two logistic heads over :mod:`longtalk.language.take_backs`' features, fitted as the
statement-kind model's durable head is (``fit_statement_kinds.fit_durable``). The gate's
threshold is the highest of :data:`GATE_GRID` that lets through :data:`GATE_RECALL` of
the training take-backs, each scored by a gate fitted on the other half of the training
data; the full head's is the middle of the top of the F-beta curve
(``fit_statement_kinds.threshold_for``), precision weighing sixteen times recall
(:data:`BETA`: a take-back that is none undoes a true fact, and a real chat's ordinary
messages outnumber its take-backs by hundreds to one), out of fold the same way.
Deterministic: full-batch gradient descent from zeros.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fit_statement_kinds import fit_durable, threshold_for  # noqa: E402
from longtalk.language.nlp import parse_many  # noqa: E402
from longtalk.language.take_backs import (  # noqa: E402
    DIMENSION,
    GATE_DIMENSION,
    features,
    gate_features,
)
from longtalk.tools.datasets.locomo import load_locomo  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LABELLED = ROOT / "tests" / "language" / "labelled_take_backs.jsonl"
PAIRS = tuple(sorted((ROOT / "tests" / "facts").glob("labelled_pairs*.jsonl")))
STATEMENTS = tuple(sorted((ROOT / "tests" / "facts").glob("labelled_statements*.jsonl")))
_TAKING_BACK = re.compile(r"kidding|\bjk\b|joking|typo|\bI meant\b|made that up|\bI lied\b", re.I)
"""A labelled fact said with a take-back beside it (``kidding. mostly.``): no negative."""
DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
TRAIN_CONVERSATIONS = 3
TAKE_BACK_WEIGHT = 3.0
"""A take-back's weight beside one message that takes nothing back: they are few."""
LOCOMO_WEIGHT = 2.0
"""A LoCoMo message's: a real conversation's ordinary turns must not read as take-backs."""
GATE_GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
GATE_RECALL = 0.97
BETA = 0.25


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    take_back: bool
    held_out: bool
    source: str  # "labelled", "keeps", "statements" or "locomo"


def examples(data: Path) -> list[Example]:
    """Every message of the three sources, with its split."""
    rows = [json.loads(line) for line in LABELLED.read_text("utf-8").splitlines() if line]
    found = [
        Example(row["text"], bool(row["take_back"]), at % 2 == 1, "labelled")
        for at, row in enumerate(rows)
    ]
    for path in PAIRS:
        for at, line in enumerate(path.read_text("utf-8").splitlines()):
            row = json.loads(line)
            if row["label"] == "keeps":
                found.append(Example(row["later"], False, at % 2 == 1, "keeps"))
    for path in STATEMENTS:
        for at, line in enumerate(path.read_text("utf-8").splitlines()):
            row = json.loads(line)
            if row.get("kind") and not _TAKING_BACK.search(row["text"]):
                found.append(Example(row["text"], False, at % 2 == 1, "statements"))
    for index, conversation in enumerate(load_locomo(data)):
        held = index >= TRAIN_CONVERSATIONS
        found += [Example(m.content, False, held, "locomo") for m in conversation.messages]
    return found


def matrices(
    rows: Sequence[Example],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The gate's and the full head's feature matrices."""
    gates, fulls = [], []
    for doc in parse_many(row.text for row in rows):
        gate = gate_features(doc)
        gates.append(gate)
        fulls.append(features(doc, gate))
    return np.stack(gates), np.stack(fulls)


def weights(rows: Sequence[Example]) -> npt.NDArray[np.float64]:
    return np.array(
        [
            TAKE_BACK_WEIGHT if row.take_back else LOCOMO_WEIGHT if row.source == "locomo" else 1.0
            for row in rows
        ]
    )


def out_of_fold(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], w: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Each half of the training rows scored by a head fitted on the other half."""
    scores = np.zeros(len(y))
    fold = np.arange(len(y)) % 2
    for held in (0, 1):
        fitted = fit_durable(x[fold != held], y[fold != held], w[fold != held])
        scores[fold == held] = _probability(x[fold == held] @ fitted)
    return scores


def _probability(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return 1.0 / (1.0 + np.exp(-scores))


def gate_threshold(scores: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    """The highest of :data:`GATE_GRID` that lets :data:`GATE_RECALL` of the take-backs by."""
    positives = scores[y == 1]
    passing = [t for t in GATE_GRID if (positives >= t).mean() >= GATE_RECALL]
    return max(passing) if passing else GATE_GRID[0]


def fit(data: Path = DEFAULT_DATA) -> dict[str, Any]:
    """The model's weights as the shipped JSON holds them."""
    rows = [row for row in examples(data) if not row.held_out]
    gates, fulls = matrices(rows)
    y = np.array([1.0 if row.take_back else 0.0 for row in rows])
    w = weights(rows)
    gated = out_of_fold(gates, y, w)
    gate = gate_threshold(gated, y)
    full_scores = np.where(gated >= gate, out_of_fold(fulls, y, w), 0.0)
    return {
        "dimension": DIMENSION,
        "gate_dimension": GATE_DIMENSION,
        "gate_threshold": gate,
        "threshold": threshold_for(full_scores, y, BETA),
        "gate": [round(float(v), 6) for v in fit_durable(gates, y, w)],
        "full": [round(float(v), 6) for v in fit_durable(fulls, y, w)],
    }


def report(model: dict[str, Any], rows: Sequence[Example]) -> dict[str, Any]:
    """Per source: take-backs found of all, and messages taken for take-backs of the rest."""
    gates, fulls = matrices(rows)
    gate = _probability(gates @ np.asarray(model["gate"]))
    full = _probability(fulls @ np.asarray(model["full"]))
    fired = (gate >= model["gate_threshold"]) & (full >= model["threshold"])
    out: dict[str, Any] = {}
    for source in ("labelled", "keeps", "statements", "locomo"):
        mine = [i for i, row in enumerate(rows) if row.source == source]
        positive = [i for i in mine if rows[i].take_back]
        negative = [i for i in mine if not rows[i].take_back]
        out[source] = {
            "take_backs_found": f"{int(fired[positive].sum())}/{len(positive)}",
            "false_take_backs": f"{int(fired[negative].sum())}/{len(negative)}",
            "gated_through": round(float((gate[mine] >= model["gate_threshold"]).mean()), 3),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--write", type=Path, default=None, help="where to write the weights")
    args = parser.parse_args(argv)
    model = fit(args.data)
    rows = examples(args.data)
    print(f"gate threshold {model['gate_threshold']}, threshold {model['threshold']}")
    for name, held in (("train", False), ("held out", True)):
        print(name, json.dumps(report(model, [r for r in rows if r.held_out == held])))
    if args.write:
        args.write.write_text(json.dumps(model) + "\n", encoding="utf-8")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
