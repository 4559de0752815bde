"""Smoke test of bench/durable_facts.py on a tiny synthetic LoCoMo-format conversation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench_loader import load_bench
from locomo_sample import locomo_sample

TOPICS = ("the weather", "a new book", "the weekend", "a long walk", "a film", "work")


def conversation(turns: int, extra: str = "") -> list[dict[str, Any]]:
    """One sample of two friends chatting over two dated sessions."""
    lines = [
        {
            "speaker": "Ana" if i % 2 == 0 else "Ben",
            "dia_id": f"D{1 + i * 2 // turns}:{i + 1}",
            "text": f"Let me tell you about {TOPICS[i % len(TOPICS)]}, it was nice. {extra}",
        }
        for i in range(turns)
    ]
    half = turns // 2
    return locomo_sample([lines[:half], lines[half:]])


@pytest.mark.timeout(240)
def test_durable_facts_bench_smoke(tmp_path: Path) -> None:
    bench = load_bench("durable_facts")
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(conversation(40)), encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["--data", str(data), "--budgets", "300,3000", "--min-turns", "0"]
    assert bench.main([*argv, "--json", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert [c["messages"] for c in results["conversations"]] == [40 + 2 * 11]
    assert len(results["facts"]) == 10
    extraction = results["extraction"]["tiny"]
    keys = {f["key"] for f in results["facts"]}
    # "Please never ring me before 10 am" asks the listener: a request, not a stated fact;
    # "we named him Biscuit" and "I went vegetarian" the model does not find durable.
    assert set(extraction["planted"]) <= keys and len(extraction["planted"]) >= 7
    assert extraction["stale"] == []
    for budget in ("300", "3000"):
        row = results["results"][budget]
        assert row["n"] == 10
        assert round(1 - len(row["missed"]["context"]) / 10, 4) == row["in_context"]
        assert round(1 - len(row["missed"]["memory"]) / 10, 4) == row["in_memory"]
        assert 0 < row["tokens_mean"] <= int(budget)
    assert results["results"]["3000"]["in_context"] == 1.0  # the whole chat fits
    assert results["results"]["300"]["in_context"] < 1.0
    for half in ("tune", "report"):
        for budget in ("300", "3000"):
            row = results["varied"][half][budget]
            assert set(row) >= {
                "in_context",
                "in_memory",
                "supersession_current",
                "stale_shown",
                "retraction_ok",
                "other_speaker_ok",
                "false_facts",
            }
            assert round(1 - len(row["missed"]["memory"]) / row["n"], 4) == row["in_memory"]


def test_questions_never_repeat_their_statements() -> None:
    bench = load_bench("durable_facts")
    for fact in bench.FACTS:
        assert bench.shared_words(fact, "Ana") == set(), fact.key


def test_a_key_phrase_already_in_the_conversation_stops_the_run(tmp_path: Path) -> None:
    bench = load_bench("durable_facts")
    data = tmp_path / "tainted.json"
    data.write_text(json.dumps(conversation(20, extra="I ate shellfish.")), encoding="utf-8")
    with pytest.raises(ValueError, match="'shellfish' \\(allergy\\) is already in it"):
        bench.main(["--data", str(data), "--min-turns", "0"])


def test_a_retraction_told_is_not_the_claim_still_standing() -> None:
    varied = load_bench("durable_varied")
    smoking = next(item for item in varied.load_set() if item.id == "smoking")
    assert varied.tells_the_retraction("Audrey quit smoking cigarettes in March.", smoking)
    assert not varied.tells_the_retraction("Audrey smokes five cigarettes a day.", smoking)
    assert not varied.tells_the_retraction(f'Audrey said: "{smoking.say}"', smoking)
