"""Smoke test of bench/blind_facts.py on three scenarios of its format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_loader import load_bench

SCENARIOS = [
    {"turns": [["Maya", "I'm allergic to shellfish."]], "want": "shellfish", "holder": "Maya",
     "type": "plain", "half": "tune"},
    {"turns": [["Maya", "If I ever got a dog I'd name it Pickles."]], "want": "", "bad": "Pickles",
     "type": "distractor", "half": "tune"},
    {"turns": [["Jordan", "I'm a nurse in the ER."]], "want": "nurse", "holder": "Jordan",
     "type": "other", "half": "report"},
]  # fmt: skip


@pytest.mark.timeout(240)
def test_blind_facts_bench_smoke(tmp_path: Path) -> None:
    bench = load_bench("blind_facts")
    data = tmp_path / "set.json"
    data.write_text(json.dumps(SCENARIOS), encoding="utf-8")
    out = tmp_path / "out.json"
    assert bench.main(["--set", str(data), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    tune = report["tune"]
    assert tune["n"] == 2 and tune["longtalk"] == 1.0  # the allergy kept, the dog supposed
    assert tune["keep_everything"] == 0.5  # keeping every turn keeps "Pickles" too
    assert tune["by_type"] == {"distractor": [1, 1], "plain": [1, 1]} and tune["missed"] == []
    assert "missed" not in report["report"]  # the report half's misses are never printed
    assert report["report"]["by_type"] == {"other": [1, 1]}


@pytest.mark.parametrize(("name", "size"), [("blind_facts.json", 64), ("blind_facts_2.json", 210)])
def test_the_shipped_sets_are_split_in_two_halves_of_every_type(name: str, size: int) -> None:
    bench = load_bench("blind_facts")
    scenarios = bench.load(bench.SET.with_name(name))
    assert len(scenarios) == size
    for kind in {s.type for s in scenarios}:
        halves = [s.half for s in scenarios if s.type == kind]
        assert set(halves) == {"tune", "report"}, kind
        assert abs(halves.count("tune") - halves.count("report")) <= 1, kind
