"""Smoke test of bench/fact_order.py on a tiny LoCoMo-format conversation with questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench_loader import load_bench
from locomo_sample import locomo_sample

LINES = (
    ("Ana", "I'm allergic to peanuts, so no satay for me."),
    ("Ben", "My sister Lena lives in Oslo these days."),
    ("Ana", "I work as a nurse at the city hospital."),
    ("Ben", "I play the cello in a small orchestra."),
    ("Ana", "How was your weekend?"),
)
QUESTIONS = (
    ("What can Ana not eat?", "D1:1"),
    ("What instrument does Ben play?", "D1:4"),
    ("What did Ana ask?", "D1:5"),  # its evidence turn states no fact: not counted
)


def sample() -> list[dict[str, Any]]:
    turns = [
        {"speaker": who, "dia_id": f"D1:{n}", "text": text}
        for n, (who, text) in enumerate(LINES, start=1)
    ]
    questions = [
        {"question": q, "answer": "", "evidence": [e], "category": 4} for q, e in QUESTIONS
    ]
    return locomo_sample([turns], questions)


@pytest.mark.timeout(240)
def test_fact_order_bench_smoke(tmp_path: Path) -> None:
    bench = load_bench("fact_order")
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(sample()), encoding="utf-8")
    out = tmp_path / "out.json"
    assert bench.main(["--data", str(data), "--keep", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    first = result["halves"]["first"]
    assert first["questions"] == 2
    assert first["default"]["hit"] == 1.0, first  # each question's own fact comes first
    assert 0 < first["cosine"]["mrr"] <= 1
    assert result["halves"]["second"]["questions"] == 0


def test_keep_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        load_bench("fact_order").main(["--data", str(tmp_path / "x.json"), "--keep", "0"])
