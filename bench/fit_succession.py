"""Fit the succession model: after a later statement, does an earlier one still hold.

    python bench/fit_succession.py [--write src/longtalk/data/succession.json]

The pairs' facts are read through the shipped kind model: when both models are written,
write ``statement_kinds.json`` (``bench/fit_statement_kinds.py``) first, then this one.

Training data, split before fitting: ``tests/facts/labelled_pairs.jsonl`` and
``labelled_pairs_2.jsonl`` to ``labelled_pairs_6.jsonl``, pairs
of chat messages one person said some time apart, written by people who read none of
longtalk's code, tests or data (the second file with more changes said only by the new
state, and chit-chat; the third with more retractions said indirectly; the fourth with
plans and details on the same topic that change nothing; the fifth from friends catching
up over months: another of many things one has, a story of the past, the same fact retold,
an event on the topic; the sixth with short replies, passing states and past stories after a
fact, its lines ordered so that pairs of one earlier message share a half), each labelled
``replaces`` (the later changes the earlier fact), ``retracts`` (takes it back) or
``keeps`` (the earlier still holds: another fact on the same topic, the same fact again, a
visit rather than a move, a wish). The even lines train,
the odd lines (of each file) are held out and only reported on.

Each pair is read as the chat reads it: both messages through the language layer and the
claim model, and every fact of the earlier message beside every fact of the later one of
the same holder that the merge would read together, with what the claim model knows of
the pair (a plan beside a statement of no change),
weighted so that each labelled pair
counts once; the features are those :func:`longtalk.language.succession.most_replaced`
reads (only pairs within :data:`~longtalk.language.succession.RELATED` of each other in
meaning). A logistic head (``replaces`` and ``retracts`` positive), fitted as the
statement-kind model's durable head is; the threshold is the middle of the top of the
F-beta curve (``fit_statement_kinds.threshold_for``), precision weighing four times recall
(see :data:`BETA`), on the training pairs, each scored by a head fitted on the other half
of them. Deterministic: full-batch gradient descent from zeros.

The report (of the shipped weights, which ``--write`` replaces first): per label, on each
half, whether the earlier message's facts are still current after the later one (with
``--no-model``: by the claim model's rules alone); and how many claims the model ends in
each held-out LoCoMo conversation.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_statement_kinds import (  # noqa: E402
    DEFAULT_DATA,
    TRAIN_CONVERSATIONS,
    fit_durable,
    threshold_for,
)
from longtalk.core.messages import Message, Role  # noqa: E402
from longtalk.facts import merge  # noqa: E402
from longtalk.facts.claims import spoken_words  # noqa: E402
from longtalk.facts.durable_fact import DurableFact  # noqa: E402
from longtalk.facts.merge import pair_signs, read_together, speakers  # noqa: E402
from longtalk.facts.offline import facts_heard, said, statements  # noqa: E402
from longtalk.language import succession  # noqa: E402
from longtalk.language.succession import (  # noqa: E402
    DIMENSION,
    RELATED,
    design,
    meaning_of,
)
from longtalk.tools.datasets.locomo import load_locomo  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAIRS = (
    ROOT / "tests" / "facts" / "labelled_pairs.jsonl",
    ROOT / "tests" / "facts" / "labelled_pairs_2.jsonl",
    ROOT / "tests" / "facts" / "labelled_pairs_3.jsonl",
    ROOT / "tests" / "facts" / "labelled_pairs_4.jsonl",
    ROOT / "tests" / "facts" / "labelled_pairs_5.jsonl",
    ROOT / "tests" / "facts" / "labelled_pairs_6.jsonl",
)
ENDED = frozenset({"replaces", "retracts"})
BETA = 0.25
"""Precision weighs four times recall: a claim ended in error hides a true fact, said once
and maybe never again; a change missed leaves the old claim beside the new one, both shown."""
MISMATCHED_WEIGHT = 1.0
"""A pair of two topics weighs as a labelled pair does."""
LOCOMO_WEIGHT = 1000.0
LOCOMO_EVERY = 3
L2 = 3e-3
"""Chosen by the training pairs' out-of-fold log loss (1e-3 .. 1e-1)."""
T0 = datetime(2024, 3, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two messages of one speaker, and whether the earlier's fact holds after the later."""

    speaker: str
    earlier: str
    later: str
    label: str
    topic: str = ""

    def messages(self) -> list[tuple[int, Message]]:
        return [
            (1, Message(role=Role.USER, content=self.earlier, name=self.speaker, timestamp=T0)),
            (
                2,
                Message(
                    role=Role.USER,
                    content=self.later,
                    name=self.speaker,
                    timestamp=T0 + timedelta(days=3),
                ),
            ),
        ]


def pairs(held_out: bool, paths: Sequence[Path] = PAIRS) -> list[Pair]:
    """Each file's even lines (training), or its odd lines (held out)."""
    return [
        Pair(row["speaker"], row["earlier"], row["later"], row["label"], row.get("topic", ""))
        for path in paths
        for index, row in enumerate(
            json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()
        )
        if index % 2 == int(held_out)
    ]


@cache
def _facts(pair: Pair) -> tuple[DurableFact, ...]:
    return tuple(facts_heard(list(said(pair.messages()))))


@dataclass(frozen=True, slots=True)
class Example:
    """Two texts of one holder, whether the later ends the earlier, and their weight."""

    earlier: str
    later: str
    holder: str
    label: float
    weight: float
    pair: int  # which labelled pair it was read from: a fold keeps a pair's texts together
    signs: tuple[str, ...] = ()  # what the claim model knows of the pair (merge.pair_signs)


def examples(rows: Sequence[Pair]) -> list[Example]:
    """Each pair's messages as said, and the related fact pairs the chat reads in them.

    The facts are every (earlier fact, later fact) of one holder; together they weigh one.
    """
    found: list[Example] = []
    for index, pair in enumerate(rows):
        label = 1.0 if pair.label in ENDED else 0.0
        found.append(Example(pair.earlier, pair.later, pair.speaker, label, 1.0, index))
        facts = _facts(pair)
        before = [fact for fact in facts if fact.sequences == (1,) and not fact.tentative]
        after = [fact for fact in facts if fact.sequences == (2,) and not fact.denies]
        together = [(first, second) for first in before for second in after]
        related = _related(together, speakers(facts))
        found += [
            Example(*texts, label, 1.0 / len(related), index, signs) for *texts, signs in related
        ]
    return found


def mismatched(rows: Sequence[Pair]) -> list[Example]:
    """Each change or retraction beside another pair's earlier message, of another topic.

    ``sold the civic`` said after ``I work at Deloitte`` ends nothing: a later message
    that changes something changes what it speaks of. Without such pairs the
    model learns only how a change is worded (every labelled pair is of one topic), and
    ends whatever claim lies near in meaning; each weighs :data:`MISMATCHED_WEIGHT`.
    """
    found: list[Example] = []
    for index, pair in enumerate(rows):
        if pair.label not in ENDED:
            continue
        other = next(
            (
                rows[(index + step) % len(rows)]
                for step in range(1, len(rows))
                if rows[(index + step) % len(rows)].topic != pair.topic
            ),
            None,
        )
        if other is None or not pair.topic:
            continue
        holder = pair.speaker
        if float(meaning_of(other.earlier, holder) @ meaning_of(pair.later, holder)) >= RELATED:
            found.append(Example(other.earlier, pair.later, holder, 0.0, MISMATCHED_WEIGHT, index))
    return found


@cache
def locomo(data: Path, held_out: bool) -> tuple[Example, ...]:
    """Pairs of facts one speaker of a LoCoMo conversation stated in turn, as ``keeps``.

    A real conversation's later facts seldom end its earlier ones, while the chat reads
    every such pair: weak negatives, weighing :data:`LOCOMO_WEIGHT` in all per conversation,
    from every :data:`LOCOMO_EVERY`-th related pair (conversations 0-2 train, 3-5 are held
    out).
    """
    found: list[Example] = []
    for index, conversation in enumerate(load_locomo(data, captions=False)):
        if (index >= TRAIN_CONVERSATIONS) != held_out:
            continue
        messages = [(i + 1, turn.message) for i, turn in enumerate(conversation.turns)]
        facts = [fact for fact in facts_heard(list(said(messages))) if not fact.denies]
        said_after = [
            (first, second)
            for at, first in enumerate(facts)
            for second in facts[at + 1 :]
            if not first.tentative
        ]
        related = _related(said_after, speakers(facts))[::LOCOMO_EVERY]
        weight = LOCOMO_WEIGHT / max(1, len(related))
        found += [Example(*texts, 0.0, weight, -1 - index, signs) for *texts, signs in related]
    return tuple(found)


def _related(
    pairs: Sequence[tuple[DurableFact, DurableFact]], names: frozenset[str]
) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """The (earlier words, later words, holder, signs) of the pairs the merge asks about.

    Those it reads together (:func:`longtalk.facts.merge.read_together`, the chat's
    participants ``names``) within :data:`~longtalk.language.succession.RELATED` of each
    other in meaning, with what the claim model knows of each
    (:func:`longtalk.facts.merge.pair_signs`).
    """
    found = []
    for first, second in pairs:
        if not read_together(first, second, names):
            continue
        words = (spoken_words(first.text), spoken_words(second.text))
        holder = first.holder
        if float(meaning_of(words[0], holder) @ meaning_of(words[1], holder)) >= RELATED:
            found.append((*words, holder, pair_signs(first, second)))
    return found


def matrix(rows: Sequence[Example]) -> npt.NDArray[np.float64]:
    if not rows:
        return np.zeros((0, DIMENSION))
    return np.stack([design(row.earlier, row.later, row.holder, row.signs) for row in rows])


def fit(data: Path = DEFAULT_DATA, paths: Sequence[Path] = PAIRS) -> dict[str, Any]:
    """The model's weights as the shipped JSON holds them."""
    training = pairs(False, paths)
    rows = examples(training) + mismatched(training) + list(locomo(data, False))
    x = matrix(rows)
    y = np.array([row.label for row in rows])
    w = np.array([row.weight for row in rows])
    weights = fit_durable(x, y, w, L2)
    scores = np.zeros(len(y))
    fold = np.array([row.pair % 2 for row in rows])
    for held in (0, 1):
        fitted = fit_durable(x[fold != held], y[fold != held], w[fold != held], L2)
        scores[fold == held] = 1.0 / (1.0 + np.exp(-(x[fold == held] @ fitted)))
    return {
        "dimension": DIMENSION,
        "threshold": threshold_for(scores, y, BETA),
        "weights": [round(float(v), 6) for v in weights],
    }


def still_held(pair: Pair) -> bool | None:
    """Whether the earlier message's facts are all current after the later, None if it had none.

    A fact superseded or retracted is no longer current; one united with a later fact (the
    same said again) is.
    """
    facts = statements(pair.messages())
    earlier = [f for f in _facts(pair) if f.sequences == (1,) and not (f.denies or f.tentative)]
    if not earlier:
        return None
    current = [f for f in facts if not f.retracts]
    texts = {fact.text for fact in current}
    return all(fact.text in texts or _united(fact, current) for fact in earlier)


def _united(fact: DurableFact, current: Sequence[DurableFact]) -> bool:
    return any(1 in other.sequences and fact.key == other.key for other in current)


def report(rows: Sequence[Pair]) -> dict[str, Any]:
    """Per label: pairs whose earlier message stated a fact, and how many were judged right."""
    out: dict[str, Any] = {}
    for label in ("replaces", "retracts", "keeps"):
        judged = [still_held(pair) for pair in rows if pair.label == label]
        scored = [held for held in judged if held is not None]
        right = sum(held == (label == "keeps") for held in scored)
        out[label] = [right, len(scored)]
    right = sum(v[0] for v in out.values())
    out["accuracy"] = round(right / max(1, sum(v[1] for v in out.values())), 3)
    return out


class _Counted:
    """The merge's succession step, counting the claims it ends."""

    def __init__(self) -> None:
        self.original = merge.succeeded_claim
        self.ended = 0

    def __call__(
        self, kept: Sequence[DurableFact], fact: DurableFact, names: frozenset[str] = frozenset()
    ) -> int | None:
        at = self.original(kept, fact, names)
        self.ended += at is not None
        return at


def locomo_endings(data: Path) -> dict[str, int]:
    """How many claims the model ends in each held-out LoCoMo conversation, of how many.

    Fewer is better: a real conversation's changes of mind are few.
    """
    out: dict[str, int] = {}
    for index, conversation in enumerate(load_locomo(data, captions=False)):
        if index < TRAIN_CONVERSATIONS:
            continue
        counted = merge.succeeded_claim = _Counted()  # type: ignore[assignment]
        try:
            messages = [(i + 1, turn.message) for i, turn in enumerate(conversation.turns)]
            facts = statements(messages)
        finally:
            merge.succeeded_claim = counted.original
        out[conversation.sample_id] = counted.ended
        out[f"{conversation.sample_id}:facts"] = len(facts)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="the succession.json to write")
    parser.add_argument("--no-model", action="store_true", help="report the rules alone")
    parser.add_argument(
        "--pairs", type=Path, nargs="+", default=PAIRS, help="the labelled pairs (JSON lines)"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    args = parser.parse_args(argv)
    model = fit(args.data, args.pairs)
    if args.write:
        args.write.write_text(json.dumps(model) + "\n", encoding="utf-8")
        succession.reload()  # report what was just written
    if args.no_model:
        merge.succeeded_claim = lambda kept, fact: None  # type: ignore[assignment]
    out = {
        "fitted_threshold": model["threshold"],
        "train": report(pairs(False, args.pairs)),
        "held_out": report(pairs(True, args.pairs)),
        "locomo_held_out_endings": locomo_endings(args.data),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
