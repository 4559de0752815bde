"""Fact order benchmark: when facts must be left out, are the ones a question needs kept?

    python bench/fact_order.py --data PATH [--keep 8] [--json OUT]

For each LoCoMo-format conversation of ``--data``, the durable facts the offline reader
finds in all its messages (``longtalk.facts.extract_facts``, current facts only) are put in
the order the context's facts part keeps them for each question (categories 1-4) whose
evidence turns said at least one of them: the default configuration's
``DurablePart`` ordering, MiniLM embeddings. A question is a hit when a fact from one of its
evidence turns is among the first ``--keep`` (about what a 1,000-token context's facts part
shows). ``mrr`` is the mean of 1 / the rank of the first such fact.

The baseline, in the same run: the same facts ordered by the question's cosine alone (names
put as "they", as the default compares them). Conversations are reported in two halves (the
first three, the rest). The bonuses for whom the question names were chosen looking at
both halves (no half is held out from that choice).

JSON: ``{"keep", "halves": {half: {"questions", "default": {"hit", "mrr"}, "cosine": {...}}},
"seconds"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from longtalk.config import MemoryConfig
from longtalk.core.tokens import resolve_counter
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine.durable import DurablePart, names_pattern, without_names
from longtalk.facts import extract_facts
from longtalk.facts.durable_fact import DurableFact
from longtalk.tools.datasets.locomo import Conversation, load_locomo, normalise_dia_id

CATEGORIES = (1, 2, 3, 4)
HALF_SIZE = 3


def evidence_facts(
    conv: Conversation, question: dict[str, Any], facts: Sequence[DurableFact]
) -> set[int]:
    """Indexes of the facts said in the question's evidence turns (0-based sequences)."""
    said = {
        conv.by_dia[dia].sequence - 1
        for raw in question.get("evidence", [])
        for dia in normalise_dia_id(str(raw))
        if dia in conv.by_dia
    }
    return {index for index, fact in enumerate(facts) if said & set(fact.sequences)}


def first_hit(order: Sequence[int], wanted: set[int]) -> int:
    """The 0-based rank of the first wanted fact in ``order``."""
    return next(rank for rank, index in enumerate(order) if index in wanted)


async def conversation_ranks(
    conv: Conversation, part: DurablePart, embedder: MiniLMEmbedder
) -> list[tuple[int, int]]:
    """(default rank, cosine rank) of the first evidence fact, per answerable question."""
    facts = [f for f in extract_facts(list(enumerate(conv.messages))) if not f.retracts]
    names = names_pattern({f.holder for f in facts if f.holder})
    vectors = np.asarray(
        embedder.embed([without_names(f.text, names) for f in facts]), dtype=np.float32
    )
    position = {id(fact): index for index, fact in enumerate(facts)}
    ranks = []
    for question in conv.qa:
        if question.get("category") not in CATEGORIES:
            continue
        wanted = evidence_facts(conv, question, facts)
        if not wanted:
            continue
        text = str(question["question"])
        kept_last = await part.least_needed_first(text, facts)
        default = [position[id(fact)] for fact in reversed(kept_last)]
        asked = np.asarray(embedder.embed([without_names(text, names)])[0], dtype=np.float32)
        cosine = [int(i) for i in np.argsort(-(vectors @ asked), kind="stable")]
        ranks.append((first_hit(default, wanted), first_hit(cosine, wanted)))
    return ranks


def summary(ranks: Sequence[int], keep: int) -> dict[str, float]:
    """Hit share within ``keep`` and the mean reciprocal rank."""
    n = max(1, len(ranks))
    return {
        "hit": round(sum(r < keep for r in ranks) / n, 4),
        "mrr": round(sum(1 / (1 + r) for r in ranks) / n, 4),
    }


async def evaluate(data: Path, keep: int) -> dict[str, Any]:
    embedder = MiniLMEmbedder()
    part = DurablePart(MemoryConfig(), resolve_counter(), embedder)
    conversations = load_locomo(data, captions=False)
    halves = {"first": conversations[:HALF_SIZE], "second": conversations[HALF_SIZE:]}
    report: dict[str, Any] = {}
    for half, convs in halves.items():
        pairs = [pair for conv in convs for pair in await conversation_ranks(conv, part, embedder)]
        report[half] = {
            "questions": len(pairs),
            "default": summary([d for d, _ in pairs], keep),
            "cosine": summary([c for _, c in pairs], keep),
        }
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--keep", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.keep < 1:
        parser.error("--keep: at least 1")
    started = time.perf_counter()
    halves = asyncio.run(evaluate(args.data, args.keep))
    result = {"keep": args.keep, "halves": halves, "seconds": round(time.perf_counter() - started)}
    for half, row in halves.items():
        d, c = row["default"], row["cosine"]
        ratio = d["hit"] / c["hit"] if c["hit"] else float("nan")
        print(
            f"{half}: {row['questions']} questions; kept within {args.keep}: "
            f"default {d['hit']:.3f} (mrr {d['mrr']:.3f}), cosine alone {c['hit']:.3f} "
            f"(mrr {c['mrr']:.3f}), x{ratio:.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
