"""Memory-events benchmark: do the parts a model sees without recall carry a chat's threads?

    python bench/memory_events.py [--data PATH] [--budgets 2000,4000] [--half all|train|report]
                                  [--limit N] [--json OUT]

Each LoCoMo-format conversation is appended message by message through the front door
(``AsyncMemory("memory:")``: the DEFAULT configuration, the offline summarizer, summaries
running as they do by default), then, once ``chat.summarize()`` has nothing left to do, the
context with NO query is read at each budget. What is measured is how many of LoCoMo's
``event_summary`` events (what happened to each speaker, per session) are found in:

* ``memory``: the parts a model sees without recall: every part but the recent window
  (``context.parts`` of kinds ``facts``, ``user`` and ``summary``; no query, so nothing is
  recalled);
* ``summary``: the summary part alone;
* ``stored``: the whole stored memory, whatever any context shows: every summary row of the
  chain rendered whole, and every durable fact rendered whole (its ``tokens`` reported).

Each share comes with three references of the same token count (the part's tokens in that
conversation), measured in the same run:

* ``recency``: the newest turns that fit (a plain chat's context);
* ``tfidf``: a TF-IDF centroid extract of the whole transcript (bench/locomo_recall.py's);
* ``ceiling``: LoCoMo's own ``session_summary`` texts, newest session first, that fit.

``stored`` also reports two bounds that are not of the same size: ``transcript``, the
whole conversation's turns (what no memory derived from it can be expected to pass under
this matcher), and ``all_summaries``, every one of LoCoMo's session summaries.

Events are also reported split into ``late`` (sessions of the last third of the
conversation) and ``early`` (the rest).

The matcher (strict). A text is cut into units: its lines, each cut at sentence ends (a
closing quote after the mark included: a summary of quotes is cut as prose is). An
event is found in the text when one unit both

1. has a MiniLM cosine to the event of at least ``T``, and
2. holds at least the share ``F`` of the event's content words, weighted by their rarity
   in the conversation (a word's first five letters, IDF over the transcript's sentences;
   stop words and the two speakers' names do not count): "pottery" weighs, "time" little.

``T`` and ``F`` are calibrated in every run on LoCoMo's session summaries of the ``train``
half (conversations 0-2): among ``T`` in 0.30..0.90 (steps of 0.02) and ``F`` in 0.2..0.5,
the pair that finds the most events in their own session's summary while at most 5 % of
(event, other session of the same conversation) pairs match. Threads recur across sessions,
so an event matching ANY of the ~20 other sessions' summaries is often right and is reported
as ``other_any``, not bounded. ``calibration`` gives, per half, ``own``, ``other`` (per
pair) and ``other_any`` at the calibrated ``T`` and ``F``.

The halves: ``train`` is conversations 0-2 (the summarizer's salience model is fitted on
them), ``report`` is 3-5 (never used for fitting or tuning). JSON: ``data``, ``threshold``,
``calibration``, ``halves`` ``{half: {budget: report}}`` plus ``{half: {"stored": report}}``;
a report has ``events``, ``memory``/``summary`` (each ``{share, tokens, recency, tfidf,
ceiling, early, late}``) and ``ratio_vs_ceiling``. ``seconds``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see bench/locomo_recall.py

import argparse
import asyncio
import json
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from longtalk import AsyncMemory
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.facts import render_facts
from longtalk.recall.lexical import STOPWORDS
from longtalk.summary.chain import render_chain
from longtalk.tools.datasets.locomo import Conversation, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from durable_facts import recency_text  # noqa: E402
from locomo_recall import CentroidExtract  # noqa: E402

DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
DEFAULT_BUDGETS = (2000, 4000)
COUNTER = HeuristicTokenCounter(4.0)  # the default configuration's counter
MEMORY_KINDS = frozenset({"facts", "user", "summary"})
HALVES = {"train": (0, 1, 2), "report": (3, 4, 5)}
OTHER_SESSION_MAX = 0.05  # the matcher may find at most this share of events elsewhere
STEM = 5
WORD = re.compile(r"[a-z0-9]+")
UNIT_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"”'])\s+|\n+")
"""A unit ends at a line, or at a sentence end: a mark, or a mark and its closing quote
(``Nate (3 June 2022): "I won." "I'm off."`` is two units, as two sentences of prose are;
uncut, quoted lines joined by spaces would be one long unit gathering every quote's words)."""
LATE_SHARE = 2 / 3  # sessions past this share of the conversation are its last third

_EMBEDDER = MiniLMEmbedder()


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """One ``event_summary`` entry: its text, session and whether it is of the last third."""

    text: str
    session: int
    late: bool


@dataclass(slots=True)
class Sample:
    """A conversation with its events, session summaries and speakers."""

    conversation: Conversation
    events: list[Event]
    session_summaries: dict[int, str]
    names: frozenset[str]
    rarity: dict[str, float] = field(default_factory=dict)
    vectors: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 1), np.float32))


def samples(path: Path) -> list[Sample]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    conversations = load_locomo(path)
    result = []
    for sample, conversation in zip(raw, conversations, strict=True):
        speakers = [sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"]]
        sessions = sorted(_number(key) for key in sample["event_summary"])
        last = max(sessions)
        events = [
            Event(text, _number(key), _number(key) > LATE_SHARE * last)
            for key, per in sample["event_summary"].items()
            for speaker in speakers
            for text in per.get(speaker, [])
        ]
        summaries = {_number(k): str(v) for k, v in sample["session_summary"].items()}
        names = frozenset(w for s in speakers for w in WORD.findall(s.lower()))
        result.append(Sample(conversation, events, summaries, names))
        result[-1].rarity = rarity(conversation, names)
        result[-1].vectors = _EMBEDDER.embed([e.text for e in events])
    return result


def _number(key: str) -> int:
    return int(re.findall(r"\d+", key)[0])


# -- the matcher ----------------------------------------------------------------------------


def stems(text: str, names: frozenset[str]) -> set[str]:
    return {w[:STEM] for w in WORD.findall(text.lower()) if w not in STOPWORDS and w not in names}


def units(text: str) -> list[str]:
    return [u.strip() for u in UNIT_END.split(text) if len(u.strip()) > 2]


def rarity(conversation: Conversation, names: frozenset[str]) -> dict[str, float]:
    """Each stem's IDF over the transcript's sentences."""
    text = "\n".join(turn.message.content for turn in conversation.turns)
    docs = [stems(unit, names) for unit in units(text)]
    df = Counter(stem for doc in docs for stem in doc)
    return {stem: math.log((len(docs) + 1) / (count + 1)) + 1 for stem, count in df.items()}


Scores = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
"""Per event and unit: the cosine, and the weighted share of the event's words held."""


def match_scores(sample: Sample, text: str) -> Scores:
    pieces = units(text)
    if not pieces or not sample.events:
        empty = np.zeros((len(sample.events), 1))
        return empty, empty
    vectors = _EMBEDDER.embed(pieces)
    cosines = np.asarray(sample.vectors @ vectors.T, dtype=np.float64)
    held = np.zeros_like(cosines)
    piece_stems = [stems(p, sample.names) for p in pieces]
    for row, event in enumerate(sample.events):
        own = stems(event.text, sample.names)
        total = sum(sample.rarity.get(w, 1.0) for w in own) or 1.0
        for col, other in enumerate(piece_stems):
            held[row, col] = sum(sample.rarity.get(w, 1.0) for w in own & other) / total
    return cosines, held


def found(scores: Scores, cosine: float, share: float) -> npt.NDArray[np.bool_]:
    """Per event, whether one unit passes both thresholds."""
    cosines, held = scores
    return np.asarray(((cosines >= cosine) & (held >= share)).any(axis=1))


@dataclass(frozen=True, slots=True)
class Matcher:
    cosine: float
    share: float

    def found(self, sample: Sample, text: str) -> npt.NDArray[np.bool_]:
        return found(match_scores(sample, text), self.cosine, self.share)


def calibrate(train: Sequence[Sample]) -> Matcher:
    """The thresholds finding the most own-session events, at most 5 % per other session."""
    sessions = [_session_scores(sample) for sample in train]
    best: tuple[float, Matcher] = (-1.0, Matcher(0.9, 0.5))
    for cosine in np.arange(0.30, 0.91, 0.02):
        for share in (0.2, 0.3, 0.4, 0.5):
            rates = session_rates(sessions, Matcher(round(cosine, 2), share))
            if rates["other"] <= OTHER_SESSION_MAX and rates["own"] > best[0]:
                best = (rates["own"], Matcher(round(cosine, 2), share))
    return best[1]


def _session_scores(sample: Sample) -> tuple[list[int], dict[int, Scores]]:
    """Each event's session, and every session summary's scores."""
    per = {s: match_scores(sample, t) for s, t in sample.session_summaries.items()}
    return [e.session for e in sample.events], per


def session_rates(
    sessions: Sequence[tuple[list[int], dict[int, Scores]]], matcher: Matcher
) -> dict[str, float]:
    """Events found in their own session's summary; (event, other session) pairs matched;
    events matching any other session's summary."""
    own: list[bool] = []
    pairs: list[bool] = []
    anywhere: list[bool] = []
    for of_event, per in sessions:
        hits = {s: found(v, matcher.cosine, matcher.share) for s, v in per.items()}
        for index, session in enumerate(of_event):
            own.append(bool(hits[session][index]))
            rest = [bool(v[index]) for s, v in hits.items() if s != session]
            pairs.extend(rest)
            anywhere.append(any(rest))
    return {
        "own": round(float(np.mean(own)), 3),
        "other": round(float(np.mean(pairs)), 4),
        "other_any": round(float(np.mean(anywhere)), 3),
    }


# -- references -----------------------------------------------------------------------------


def ceiling(sample: Sample, tokens: int) -> str:
    """LoCoMo's session summaries, newest first, sentence by sentence, while they fit."""
    kept: list[str] = []
    used = 0
    for session in sorted(sample.session_summaries, reverse=True):
        for sentence in units(sample.session_summaries[session]):
            cost = COUNTER.count(sentence) + 1
            if used + cost > tokens:
                return "\n".join(kept)
            kept.append(sentence)
            used += cost
    return "\n".join(kept)


# -- one conversation -----------------------------------------------------------------------


@dataclass(slots=True)
class Seen:
    """What one conversation showed: per budget the memory and summary parts, and all stored."""

    parts: dict[int, tuple[str, str]]
    stored: str


async def run_conversation(sample: Sample, budgets: Sequence[int]) -> Seen:
    async with AsyncMemory("memory:") as memory:
        chat = await memory.chat(f"events-{sample.conversation.sample_id}")
        for message in sample.conversation.messages:
            await chat.append(
                message.role, message.content, name=message.name, timestamp=message.timestamp
            )
        while (await chat.summarize()).changed:
            pass
        parts = {}
        for budget in budgets:
            context = await chat.context(None, budget_tokens=budget)
            shown = "\n".join(p.text for p in context.parts if p.kind in MEMORY_KINDS)
            summary = "\n".join(p.text for p in context.parts if p.kind == "summary")
            parts[budget] = (shown, summary)
        engine = await memory.open()
        rows = await engine.storage.list_summaries(chat.id)
        facts = await chat.facts()
        stored_facts = render_facts(facts, 10**9, COUNTER).text
        stored = "\n".join(t for t in (stored_facts, render_chain(rows)) if t)
    return Seen(parts, stored)


# -- reports --------------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """Found events of one system over a half, split early/late."""

    found: list[bool] = field(default_factory=list)
    late: list[bool] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, sample: Sample, text: str, matcher: Matcher) -> None:
        self.found.extend(bool(f) for f in matcher.found(sample, text))
        self.late.extend(e.late for e in sample.events)
        self.tokens.append(COUNTER.count(text) if text else 0)

    def share(self, late: bool | None = None) -> float:
        picked = [f for f, t in zip(self.found, self.late, strict=True) if late in (None, t)]
        return round(sum(picked) / len(picked), 3) if picked else 0.0


def part_report(tallies: dict[str, Tally]) -> dict[str, Any]:
    system = tallies["system"]
    return {
        "share": system.share(),
        "early": system.share(late=False),
        "late": system.share(late=True),
        "tokens": round(float(np.mean(system.tokens)), 1) if system.tokens else 0.0,
        **{
            name: {"share": t.share(), "early": t.share(False), "late": t.share(True)}
            for name, t in tallies.items()
            if name != "system"
        },
    }


def measure(
    group: Sequence[Sample], seen: Sequence[Seen], text_of: Any, matcher: Matcher
) -> dict[str, Any]:
    tallies = {name: Tally() for name in ("system", "recency", "tfidf", "ceiling")}
    for sample, shown in zip(group, seen, strict=True):
        text = text_of(shown)
        tokens = COUNTER.count(text) if text else 0
        turns = sample.conversation.turns
        tallies["system"].add(sample, text, matcher)
        tallies["recency"].add(
            sample, recency_text([turn.message for turn in turns], tokens), matcher
        )
        tallies["tfidf"].add(sample, CentroidExtract(turns).text(tokens), matcher)
        tallies["ceiling"].add(sample, ceiling(sample, tokens), matcher)
    report = part_report(tallies)
    top = report["ceiling"]["share"]
    report["ratio_vs_ceiling"] = round(report["share"] / top, 2) if top else None
    return report


def half_report(
    group: Sequence[Sample], seen: Sequence[Seen], budgets: Sequence[int], matcher: Matcher
) -> dict[str, Any]:
    result: dict[str, Any] = {"events": sum(len(s.events) for s in group)}
    for budget in budgets:
        result[str(budget)] = {
            "memory": measure(group, seen, lambda s, b=budget: s.parts[b][0], matcher),
            "summary": measure(group, seen, lambda s, b=budget: s.parts[b][1], matcher),
        }
    result["stored"] = measure(group, seen, lambda s: s.stored, matcher)
    result["stored"]["transcript"] = bound(group, matcher, transcript)
    result["stored"]["all_summaries"] = bound(group, matcher, lambda s: ceiling(s, 10**9))
    return result


def transcript(sample: Sample) -> str:
    """Every turn of the conversation, one per line, with its speaker."""
    return "\n".join(f"{t.message.name}: {t.message.content}" for t in sample.conversation.turns)


def bound(group: Sequence[Sample], matcher: Matcher, text_of: Any) -> dict[str, Any]:
    """The share of events a whole reference text holds, with its tokens."""
    tally = Tally()
    for sample in group:
        tally.add(sample, text_of(sample), matcher)
    return {
        "share": tally.share(),
        "early": tally.share(late=False),
        "late": tally.share(late=True),
        "tokens": round(float(np.mean(tally.tokens)), 1),
    }


def print_report(results: dict[str, Any], out: Any = sys.stdout) -> None:
    print(f"threshold {results['threshold']}  calibration {results['calibration']}", file=out)
    header = f"{'half':7} {'part':14} {'share':>6} {'tokens':>7} {'early':>6} {'late':>6}"
    print(f"{header} {'recency':>8} {'tfidf':>6} {'ceiling':>8} {'x ceil':>7}", file=out)
    for half, report in results["halves"].items():
        rows = [(f"{b} {p}", report[b][p]) for b in report if b.isdigit() for p in report[b]]
        for label, r in [*rows, ("stored", report["stored"])]:
            print(
                f"{half:7} {label:14} {r['share']:6.3f} {r['tokens']:7.0f} {r['early']:6.3f} "
                f"{r['late']:6.3f} {r['recency']['share']:8.3f} {r['tfidf']['share']:6.3f} "
                f"{r['ceiling']['share']:8.3f} {r['ratio_vs_ceiling'] or 0:7.2f}",
                file=out,
            )
        for name in ("transcript", "all_summaries"):
            r = report["stored"][name]
            print(
                f"{half:7} {name:14} {r['share']:6.3f} {r['tokens']:7.0f} "
                f"{r['early']:6.3f} {r['late']:6.3f}",
                file=out,
            )


async def evaluate(
    data: Path, budgets: Sequence[int], halves: Sequence[str], limit: int | None
) -> dict[str, Any]:
    started = time.perf_counter()
    every = samples(data)
    matcher = calibrate([every[i] for i in HALVES["train"]])
    results: dict[str, Any] = {
        "data": str(data),
        "budgets": list(budgets),
        "threshold": {"cosine": float(matcher.cosine), "share": float(matcher.share)},
        "calibration": {},
        "halves": {},
    }
    for half in halves:
        group = [every[i] for i in HALVES[half] if i < len(every)][:limit]
        results["calibration"][half] = session_rates([_session_scores(s) for s in group], matcher)
        seen = [await run_conversation(sample, budgets) for sample in group]
        results["halves"][half] = half_report(group, seen, budgets, matcher)
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)))
    parser.add_argument("--half", default="all", choices=["all", "train", "report"])
    parser.add_argument("--limit", type=int, default=None, help="at most N conversations a half")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",") if b]
    halves = ["train", "report"] if args.half == "all" else [args.half]
    results = asyncio.run(evaluate(args.data, budgets, halves, args.limit))
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
