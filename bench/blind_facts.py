"""Blind facts benchmark: personal facts in words written by someone who never saw the code.

    python bench/blind_facts.py [--set PATH] [--half all|tune|report] [--json OUT]

The set (``data/blind_facts.json``) was written by a tester who read no line of longtalk,
its tests or its other benchmarks: short chats between Maya (the user) and Jordan (the
other participant), each of one of seven types: ``plain`` (a fact in ordinary words),
``aside`` (a fact said in passing), ``indirect`` (implied by the wording), ``change`` (a
fact, then a change of mind), ``retract`` (a fact, then taken back), ``other`` (Jordan's
own fact) and ``distractor`` (a hypothetical, a question, advice, gossip or sarcasm that
is nobody's fact). Every other scenario is in the ``tune`` half, the rest in ``report``;
the report half is for reporting only: this script prints its counts, never its misses.
A second set (``data/blind_facts_2.json``, ``--set``), 210 chats of the same seven types,
30 each, was written the same way by a second tester and split alternately within each
type.

Each scenario is appended to its own chat through the front door (``AsyncMemory``, the
default configuration) and judged on ``chat.facts()``: it passes when a current fact of the
named holder holds ``want`` and no current fact holds ``bad``.

The baseline, in the same run: every human turn kept whole as a fact of its speaker
(what a memory that keeps everything said would show). It passes what is said plainly and
fails every change, retraction and distractor.

JSON: ``{half: {"n", "longtalk", "keep_everything", "by_type": {type: [passed, n]},
"missed": [ids]}}`` (``missed`` in the tune half only), and ``seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from longtalk import AsyncMemory

SET = Path(__file__).resolve().parent / "data" / "blind_facts.json"
USER = "Maya"
T0 = datetime(2023, 5, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One short chat and what its facts must (``want``) and must not (``bad``) hold."""

    id: int
    turns: tuple[tuple[str, str], ...]
    want: str
    bad: str
    holder: str
    type: str
    half: str


def load(path: Path) -> list[Scenario]:
    """The scenarios of ``path``, numbered in order."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Scenario(
            id=n,
            turns=tuple((who, text) for who, text in item["turns"]),
            want=item.get("want", ""),
            bad=item.get("bad", ""),
            holder=item.get("holder") or "",
            type=item["type"],
            half=item["half"],
        )
        for n, item in enumerate(raw)
    ]


def passes(scenario: Scenario, facts: Sequence[tuple[str, str]]) -> bool:
    """``facts`` (holder, text) hold ``want`` for the holder and nothing holds ``bad``."""
    want, bad = scenario.want.casefold(), scenario.bad.casefold()
    holder = scenario.holder.casefold()
    wanted = not want or any(
        want in text.casefold() and (not holder or who.casefold() == holder) for who, text in facts
    )
    return wanted and not (bad and any(bad in text.casefold() for _, text in facts))


async def facts_of(memory: AsyncMemory, scenario: Scenario) -> list[tuple[str, str]]:
    """The current facts after the scenario's turns, appended one a day."""
    chat = await memory.chat(f"blind-{scenario.id}")
    for day, (who, text) in enumerate(scenario.turns):
        role = "user" if who == USER else "assistant"
        await chat.append(role, text, name=who, timestamp=T0 + timedelta(days=day))
    return [(fact.holder, fact.text) for fact in await chat.facts()]


async def run(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    """Each half's pass rates, by type, against the keep-everything baseline."""
    report: dict[str, Any] = {}
    async with AsyncMemory("memory:") as memory:
        for half in sorted({s.half for s in scenarios}):
            own = [s for s in scenarios if s.half == half]
            passed, kept, by_type, total = [], 0, Counter[str](), Counter[str]()
            for scenario in own:
                ok = passes(scenario, await facts_of(memory, scenario))
                kept += passes(scenario, list(scenario.turns))
                if ok:
                    passed.append(scenario.id)
                by_type[scenario.type] += ok
                total[scenario.type] += 1
            n = len(own)
            report[half] = {
                "n": n,
                "longtalk": round(len(passed) / n, 4),
                "keep_everything": round(kept / n, 4),
                "by_type": {t: [by_type[t], total[t]] for t in sorted(total)},
            }
            if half != "report":
                report[half]["missed"] = [s.id for s in own if s.id not in passed]
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET, help="the scenarios (JSON)")
    parser.add_argument("--half", choices=("all", "tune", "report"), default="all")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    scenarios = [s for s in load(args.set) if args.half in ("all", s.half)]
    started = time.perf_counter()
    report = asyncio.run(run(scenarios))
    report["seconds"] = round(time.perf_counter() - started, 1)
    for half, row in report.items():
        if half == "seconds":
            continue
        ratio = row["longtalk"] / row["keep_everything"] if row["keep_everything"] else None
        print(
            f"{half}: longtalk {row['longtalk']:.3f}, keep everything "
            f"{row['keep_everything']:.3f} (x{ratio:.2f})"
            if ratio
            else f"{half}: {row}",
            row["by_type"],
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
