"""Score the offline summarizer on DialogSum-format data against Lead-3 and LexRank.

    python bench/dialogsum.py --data ../shared/data/dialogsum/dialogsum.dev.jsonl --json out.json
    python bench/dialogsum.py --data ... --skip 250    # the held-out half of the dev file

Each JSONL row has ``dialogue`` (``#Person1#: ...`` lines) and either ``summary`` or
``summary1``, ``summary2``, ... ROUGE-1/2/L F1 come from the ``rouge-score`` package (Porter
stemmer), taking for each metric the best score over a dialogue's references, averaged over
dialogues. ROUGE-L is the longest common subsequence of the whole texts; ROUGE-Lsum (JSON key
``rougeLsum``) the summary-level one over sentences (one per line), which summarization
papers usually report as ROUGE-L. Both baselines are computed in the same run over the same
dialogues. The score is reported, not a target: the offline summary quotes the speakers
(``#Person1# said: "..."``) where DialogSum's references are observer-style paraphrases
("#Person1# asks #Person2# ..."), so ROUGE measures wording more than what was kept. The
first 250 dev dialogues and the other 250 (``--skip 250``) are kept apart as before:

- Lead-3: the first three utterances, speaker tags kept.
- LexRank: the three most central utterances (TF-IDF cosine graph, edges above 0.1,
  PageRank with damping 0.85; IDF over every utterance of the file), in dialogue order.

longtalk's narrative comes from ``OfflineSummaryWriter`` exactly as the engine uses it, fed
the dialogue as messages whose names are the speaker tags; references are never seen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rouge_score import rouge_scorer

from longtalk.core.messages import Message, Role
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.summary.offline_text import split_sentences

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from former_keys import with_former_keys  # noqa: E402

METRICS = ("rouge1", "rouge2", "rougeL", "rougeLsum")
_TURN = re.compile(r"^\s*(#?[^:#\n]{1,30}#?)\s*:\s*(.*)$")


def load_rows(path: Path, limit: int | None, skip: int = 0) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()][skip:]
    return rows[:limit] if limit else rows


def references(row: dict[str, Any]) -> list[str]:
    """``summary`` and/or ``summary1``, ``summary2``, ... (non-empty ones, in order)."""
    found = [row["summary"]] if isinstance(row.get("summary"), str) else []
    numbered = sorted(
        (int(k[len("summary") :]), v)
        for k, v in row.items()
        if re.fullmatch(r"summary\d+", k) and isinstance(v, str)
    )
    found += [v for _, v in numbered]
    return [r for r in found if r.strip()]


def utterances(dialogue: str) -> list[tuple[str, str]]:
    """(speaker, text) per line; a line without a speaker continues the previous one."""
    turns: list[tuple[str, str]] = []
    for line in dialogue.splitlines():
        match = _TURN.match(line)
        if match:
            turns.append((match.group(1).strip(), match.group(2).strip()))
        elif turns and line.strip():
            speaker, text = turns[-1]
            turns[-1] = (speaker, f"{text} {line.strip()}")
    return turns


def to_messages(turns: Sequence[tuple[str, str]]) -> list[Message]:
    first = turns[0][0] if turns else ""
    return [
        Message(role=Role.USER if s == first else Role.ASSISTANT, content=t, name=s)
        for s, t in turns
        if t
    ]


def lead3(turns: Sequence[tuple[str, str]]) -> str:
    return "\n".join(f"{s}: {t}" for s, t in turns[:3])


class LexRank:
    """Classic LexRank (Erkan & Radev 2004) over utterances, IDF from the whole file."""

    def __init__(self, documents: Sequence[Sequence[str]], threshold: float = 0.1) -> None:
        frequency: Counter[str] = Counter()
        count = 0
        for sentences in documents:
            for sentence in sentences:
                frequency.update(set(_tokens(sentence)))
                count += 1
        self.idf = {w: math.log(count / n) for w, n in frequency.items()}
        self.threshold = threshold

    def _vector(self, sentence: str) -> dict[str, float]:
        tf = Counter(_tokens(sentence))
        return {w: n * self.idf.get(w, 0.0) for w, n in tf.items()}

    def summarize(self, sentences: Sequence[str], size: int = 3) -> list[int]:
        vectors = [self._vector(s) for s in sentences]
        n = len(vectors)
        matrix = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                matrix[i, j] = 1.0 if _cosine(vectors[i], vectors[j]) > self.threshold else 0.0
        rows = matrix.sum(axis=1, keepdims=True)
        matrix = np.divide(matrix, rows, out=np.full_like(matrix, 1.0 / max(n, 1)), where=rows > 0)
        scores = np.full(n, 1.0 / max(n, 1))
        for _ in range(100):
            updated = 0.15 / n + 0.85 * matrix.T @ scores
            if np.abs(updated - scores).sum() < 1e-8:
                break
            scores = updated
        top = sorted(range(n), key=lambda i: (-scores[i], i))[:size]
        return sorted(top)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def one_per_line(text: str) -> str:
    """Sentences on lines of their own: ROUGE-Lsum's units (the other metrics ignore lines)."""
    return "\n".join(s for line in text.splitlines() for s in split_sentences(line))


def score_all(
    rows: Sequence[dict[str, Any]], systems: dict[str, Callable[[int], str]]
) -> dict[str, dict[str, float]]:
    scorer = rouge_scorer.RougeScorer(list(METRICS), use_stemmer=True)
    totals = {name: dict.fromkeys(METRICS, 0.0) for name in systems}
    for index, row in enumerate(rows):
        refs = [one_per_line(ref) for ref in references(row)]
        for name, system in systems.items():
            prediction = one_per_line(system(index))
            scores = [scorer.score(ref, prediction) for ref in refs]
            for metric in METRICS:
                totals[name][metric] += max(s[metric].fmeasure for s in scores)
    return {
        name: {m: round(100 * v / max(len(rows), 1), 2) for m, v in metric.items()}
        for name, metric in totals.items()
    }


def longtalk_outputs(rows: Sequence[dict[str, Any]], writer: OfflineSummaryWriter) -> list[str]:
    async def run() -> list[str]:
        outputs = []
        for row in rows:
            messages = to_messages(utterances(row["dialogue"]))
            draft = await writer.extend(None, messages, structured=False)
            outputs.append(draft.summary.narrative)
        return outputs

    return asyncio.run(run())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="DialogSum-format JSONL")
    parser.add_argument("--json", type=Path, help="write the scores here")
    parser.add_argument("--limit", type=int, default=None, help="first N dialogues only")
    parser.add_argument(
        "--skip", type=int, default=0, help="leave out the first N (250: the held-out half)"
    )
    parser.add_argument("--show", type=int, default=0, help="print N example summaries")
    args = parser.parse_args(argv)

    rows = load_rows(args.data, args.limit, args.skip)
    rows = [r for r in rows if references(r) and r.get("dialogue")]
    turns = [utterances(r["dialogue"]) for r in rows]
    lines = [[f"{s}: {t}" for s, t in ts] for ts in turns]
    lexrank = LexRank(lines)
    started = time.perf_counter()
    ours = longtalk_outputs(rows, OfflineSummaryWriter())
    elapsed = time.perf_counter() - started
    systems: dict[str, Callable[[int], str]] = {
        "longtalk": lambda i: ours[i],
        "lead3": lambda i: lead3(turns[i]),
        "lexrank": lambda i: "\n".join(lines[i][j] for j in lexrank.summarize(lines[i])),
    }
    results = score_all(rows, systems)
    for index in range(min(args.show, len(rows))):
        print(f"--- {rows[index].get('fname', index)}\nours: {ours[index]}")
        print(f"ref:  {references(rows[index])[0]}")
    print(f"DialogSum: {len(rows)} dialogues from {args.data}")
    print(f"{'system':<10} {'ROUGE-1':>8} {'ROUGE-2':>8} {'ROUGE-L':>8} {'ROUGE-Lsum':>10}")
    for name, scores in results.items():
        print(f"{name:<10} " + " ".join(f"{scores[m]:>8.2f}" for m in METRICS[:3]), end="")
        print(f" {scores['rougeLsum']:>10.2f}")
    best = max(results["lead3"]["rougeL"], results["lexrank"]["rougeL"])
    print(f"ROUGE-L ratio vs best baseline: {results['longtalk']['rougeL'] / best:.3f}")
    print(f"longtalk: {elapsed:.1f} s, {1000 * elapsed / max(len(rows), 1):.0f} ms per dialogue")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(with_former_keys(results), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
