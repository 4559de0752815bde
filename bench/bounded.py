"""Bounded-context benchmark: does a very long chat keep its context and summary flat?

    python bench/bounded.py --turns 5000 --json OUT [--data PATH] [--every 250]
                            [--modes llm,offline]

The LoCoMo dev conversations (``--data``, default ``/work/shared/data/locomo/locomo_dev.json``)
are put back to back, repeated as needed and cut to ``--turns`` messages (a LoCoMo turn is
one message), with every copy's dates shifted so time only moves forward. The chat is fed
message by message through longtalk's DEFAULT ``running_summary`` engine (no overrides of
the budget split, the window or the summary settings) over in-memory storage: after every
``append`` comes ``summarize`` (what the background job does). It runs twice:

* ``llm``: ``LLMSummaryWriter`` over an LLM double that answers valid structured-summary
  JSON of about 300 tokens (facts echoed from the prompt's transcript). Every call the LLM
  receives is counted, whatever it is for (extension or consolidation): input tokens of all
  request messages, output tokens of every reply.
* ``offline``: the engine's default ``OfflineSummaryWriter`` (MiniLM). Its input is counted
  as the tokens of the messages plus the existing summary (as JSON) it is given; any other
  writer method the engine calls (e.g. a consolidation) is counted from its arguments.

Every ``--every`` turns (and at the end) a point is recorded: the context tokens
(``get_context(chat, query=None).tokens_used`` under the default budget), the summary
tokens shown (``context.part("summary").tokens``), the stored chain's tokens (sum of the
``token_count`` of the rows ``storage.list_summaries`` returns: the active chain, and all
rows with archived ones), the cumulative summarizer input/output tokens and the seconds.

JSON: ``turns``, ``data``, ``budget`` (the default ``context_max_tokens``),
``summary_max_tokens`` (the default, null while ``MemoryConfig`` lacks it),
``transcript_tokens``, ``targets``, ``seconds`` (whole run), and per mode (``llm``,
``offline``):

* ``over_budget``: recorded points whose context tokens exceed the budget (target 0).
* ``summary_shown_max``: the largest summary part shown at any point.
* ``summary_shown_growth``: summary shown at the last point (5,000 turns) / at 1,000 turns
  (target <= 1.1; null when the run is shorter than 1,000 turns or nothing was shown).
* ``llm_input_ratio``: summarizer input tokens / transcript tokens, consolidation included
  (target <= 1.3; for ``offline`` the writer's counted input).
* ``llm_input_tokens``, ``llm_output_tokens``, ``llm_calls``: the totals behind it.
* ``lost_messages``: messages that neither reached a summarizer input (the LLM's prompts;
  the offline writer's arguments) nor are still unsummarized (verbatim) at the end (target 0).
  ``read_twice``: messages that reached summarizer inputs more often than they occur.
* ``chain_rows_final``, ``chain_tokens_final``: the active chain at the end;
  ``chain_tokens_growth``: its tokens at the last point / at 1,000 turns (what the summary
  shown may hide when the budget cuts it).
* ``window_intact_points``: points whose context held the whole recent window.
* ``entity_survival``: the share of entity names in any stored summary row (archived rows
  hold what consolidations folded) that the shown chain still holds; ``item_survival`` the
  same over entities, preferences, decisions and open questions; ``entities_seen``.
* ``seconds``: wall time of the mode.
* ``targets_met``: each target's verdict.
* ``points``: the recorded series (``turns``, ``context_tokens``, ``summary_shown``,
  ``chain_tokens`` and ``chain_rows`` (the active chain: rows not archived by a
  consolidation), ``stored_summary_tokens`` (every row stored, archived ones included),
  ``window_intact``, ``transcript_tokens``,
  ``llm_input_tokens``, ``llm_output_tokens``, ``seconds``).
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core box, OpenBLAS threads spinning against each other made
# the numpy MiniLM forward much slower (see bench/locomo_recall.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import asyncio
import inspect
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, format_line, format_transcript
from longtalk.core.quoting import quoted_line
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.chain import row_summary
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.testing import FunctionLLM
from longtalk.tools.datasets.locomo import load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmarks
from token_cost import occurrences  # noqa: E402

COUNTER = HeuristicTokenCounter(4.0)  # the default config's counter (heuristic, 4 chars)
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/locomo/locomo_dev.json"
ANSWER_TOKENS = 300
MODES = ("llm", "offline")
TARGETS = {
    "over_budget": ("==", 0),
    "summary_shown_growth": ("<=", 1.1),
    "llm_input_ratio": ("<=", 1.3),
    "lost_messages": ("==", 0),
}
TRANSCRIPT_LINE = re.compile(r"^([A-Z][\w .'-]{0,40}): (\S.*)$")
WORD = re.compile(r"[A-Za-z]{4,}")


# -- the chat --------------------------------------------------------------------------------


def long_chat(path: Path, turns: int) -> list[Message]:
    """LoCoMo conversations back to back, repeated and cut to ``turns`` messages.

    Each conversation copy is shifted to start a day after the previous one ended, and
    timestamps never go backwards; ids are made unique per copy.
    """
    conversations = [c for c in load_locomo(path) if c.turns]
    if not conversations:
        raise ValueError(f"{path}: no conversations")
    chat: list[Message] = []
    last = None
    copy = 0
    while len(chat) < turns:
        for conv in conversations:
            first = next((t.message.timestamp for t in conv.turns if t.message.timestamp), None)
            shift = (last + timedelta(days=1) - first) if last and first else timedelta(0)
            for turn in conv.turns:
                stamp = turn.message.timestamp
                stamp = stamp + shift if stamp is not None else last
                if last is not None and stamp is not None and stamp < last:
                    stamp = last
                last = stamp or last
                update = {"timestamp": stamp, "id": f"c{copy}-{conv.sample_id}-{turn.dia_id}"}
                chat.append(turn.message.model_copy(update=update))
                if len(chat) == turns:
                    return chat
        copy += 1
    return chat


def transcript_tokens(messages: Sequence[Message]) -> int:
    """Tokens of the transcript as the summarizer is shown it (with date lines)."""
    return COUNTER.count(format_transcript(messages))


# -- the LLM double and the meters --------------------------------------------------------


def summary_answer(request: LLMRequest) -> str:
    """Valid structured-summary JSON of about ``ANSWER_TOKENS`` tokens, echoing the prompt."""
    prompt = request.messages[-1].content if request.messages else ""
    facts = [m.groups() for line in prompt.splitlines() if (m := TRANSCRIPT_LINE.match(line))]
    speakers = list(dict.fromkeys(name for name, _ in facts))[:4]
    if facts:  # spread over the batch first, then the rest until the answer is long enough
        step = max(1, len(facts) // 12)
        spread = [*facts[::step], *(f for i, f in enumerate(facts) if i % step)]
        sentences = [f"{name} said that {text.rstrip('.!?')}." for name, text in spread]
    else:  # e.g. a consolidation prompt holding summaries only: 12 words of every 100
        found = WORD.findall(prompt)
        sentences = [" ".join(found[i : i + 12]) + "." for i in range(0, len(found), 100)]
    topics = list(dict.fromkeys(w.lower() for _, text in facts for w in WORD.findall(text)))
    summary: dict[str, Any] = {
        "topics": topics[:3],
        "entities": [{"name": n, "type": "person", "details": "a participant"} for n in speakers],
        "actions_taken": [],
        "decisions": [],
        "open_questions": [],
        "user_preferences": [],
        "narrative": "",
        "covered_turns": 0,
    }
    for sentence in sentences or ["Nothing new was said."]:
        summary["narrative"] = f"{summary['narrative']} {sentence}".strip()
        if COUNTER.count(json.dumps(summary)) >= ANSWER_TOKENS:
            break
    return json.dumps(summary)


@dataclass
class Meter:
    """Summarizer traffic: tokens in and out, calls, and the texts/messages it was given."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    prompts: list[str] = field(default_factory=list)  # LLM mode: whole prompts
    lines: Counter[str] = field(default_factory=Counter)  # offline mode: messages given


class MeteredLLM:
    """Wraps an LLM: every call is counted, whatever it is for."""

    def __init__(self, inner: Any, meter: Meter) -> None:
        self.inner, self.meter = inner, meter

    async def complete(self, request: LLMRequest) -> LLMResponse:
        text = "\n".join(message.content for message in request.messages)
        self.meter.calls += 1
        self.meter.input_tokens += sum(COUNTER.count(m.content) for m in request.messages)
        self.meter.prompts.append(text)
        response: LLMResponse = await self.inner.complete(request)
        self.meter.output_tokens += COUNTER.count(response.text)
        return response


def _given(value: Any, meter: Meter) -> str:
    """The text of a writer argument, recording any messages in it."""
    if isinstance(value, str):
        return value
    if isinstance(value, Message):
        meter.lines[format_line(value)] += 1
        return ""
    if isinstance(value, ConversationSummary):
        return value.to_json()
    if hasattr(value, "summary_text"):  # a stored summary row
        return str(value.summary_text)
    if isinstance(value, list | tuple):
        messages = [v for v in value if isinstance(v, Message)]
        texts = [text for v in value if (text := _given(v, meter))]
        return "\n".join([format_transcript(messages), *texts] if messages else texts)
    return ""


class MeteredWriter:
    """Wraps a summary writer: counts the messages and summaries every method is given."""

    def __init__(self, inner: Any, meter: Meter) -> None:
        self.inner, self.meter = inner, meter

    def _count(self, args: Sequence[Any], kwargs: dict[str, Any], result: Any) -> None:
        given = "\n".join(_given(v, self.meter) for v in (*args, *kwargs.values()))
        self.meter.calls += 1
        self.meter.input_tokens += COUNTER.count(given)
        summary = getattr(result, "summary", result)
        if isinstance(summary, ConversationSummary):
            self.meter.output_tokens += COUNTER.count(summary.to_json())

    async def extend(
        self, existing: ConversationSummary | None, new_messages: Sequence[Message], **kw: Any
    ) -> Any:
        result = await self.inner.extend(existing, new_messages, **kw)
        self._count([existing, list(new_messages)], {}, result)
        return result

    def __getattr__(self, name: str) -> Any:
        """Any other method (e.g. a consolidation) is delegated and counted."""
        target = getattr(self.inner, name)
        if not callable(target):
            return target
        if inspect.iscoroutinefunction(target):

            async def counted_async(*args: Any, **kwargs: Any) -> Any:
                result = await target(*args, **kwargs)
                self._count(args, kwargs, result)
                return result

            return counted_async

        def counted(*args: Any, **kwargs: Any) -> Any:
            result = target(*args, **kwargs)
            self._count(args, kwargs, result)
            return result

        return counted


def llm_keywords(llm: Any) -> dict[str, Any]:
    """Pass the metered LLM to any consolidation-LLM parameter the engine may grow."""
    names = inspect.signature(MemoryEngine.__init__).parameters
    return {name: llm for name in names if "consolidat" in name and name.endswith("llm")}


# -- one run ---------------------------------------------------------------------------------


@dataclass
class Point:
    turns: int
    context_tokens: int
    summary_shown: int
    chain_tokens: int
    chain_rows: int
    stored_summary_tokens: int
    window_intact: bool
    transcript_tokens: int
    llm_input_tokens: int
    llm_output_tokens: int
    seconds: float


def make_engine(mode: str, meter: Meter) -> tuple[MemoryEngine, InMemoryStorage]:
    """The default running-summary engine with the mode's metered summarizer."""
    storage = InMemoryStorage()
    config = MemoryConfig(strategy="running_summary")
    if mode == "llm":
        llm = MeteredLLM(FunctionLLM(summary_answer), meter)
        writer: Any = LLMSummaryWriter(llm)
        engine = MemoryEngine(storage, config=config, writer=writer, **llm_keywords(llm))
    else:
        writer = MeteredWriter(OfflineSummaryWriter(), meter)
        engine = MemoryEngine(storage, config=config, writer=writer)
    return engine, storage


async def record(
    engine: MemoryEngine,
    storage: InMemoryStorage,
    chat_id: str,
    fed: Sequence[Message],
    meter: Meter,
    started: float,
) -> Point:
    context = await engine.get_context(chat_id, query=None)
    summary = context.part("summary")
    stored = await storage.list_summaries(chat_id)
    chain = [row for row in stored if getattr(row, "kind", "row") != "archived"]
    return Point(
        turns=len(fed),
        context_tokens=context.tokens_used,
        summary_shown=summary.tokens if summary else 0,
        chain_tokens=sum(row.token_count for row in chain),
        chain_rows=len(chain),
        stored_summary_tokens=sum(row.token_count for row in stored),
        window_intact=bool(getattr(context, "window_intact", context.dropped_verbatim == 0)),
        transcript_tokens=transcript_tokens(fed),
        llm_input_tokens=meter.input_tokens,
        llm_output_tokens=meter.output_tokens,
        seconds=round(time.perf_counter() - started, 1),
    )


def loss(messages: Sequence[Message], meter: Meter, verbatim: Sequence[Message]) -> tuple[int, int]:
    """(lost, read twice): every message must reach a summarizer input or still be verbatim.

    A prompt holds a message as the summary prompt quotes it (a multi-line message's
    continuation lines indented); the offline writer's arguments and the verbatim rest hold
    it as it is.
    """
    expected = Counter((format_line(m), quoted_line(m)) for m in messages)
    seen = Counter(format_line(m) for m in verbatim) + meter.lines
    for line, quoted in expected:
        seen[line] += sum(occurrences(prompt, quoted) for prompt in meter.prompts)
    lost = sum(max(0, n - seen[line]) for (line, _), n in expected.items())
    twice = sum(max(0, seen[line] - n) for (line, _), n in expected.items())
    return lost, twice


async def run_mode(mode: str, messages: Sequence[Message], every: int) -> dict[str, Any]:
    """Feed the chat turn by turn, summarizing after each, recording a point every ``every``."""
    meter = Meter()
    engine, storage = make_engine(mode, meter)
    await storage.setup()
    chat = await engine.create_chat(f"bounded-{mode}")
    started = time.perf_counter()
    points: list[Point] = []
    for index, message in enumerate(messages, start=1):
        await engine.append(chat.id, [message])
        await engine.summarize(chat.id)
        if index % every == 0 or index == len(messages):
            points.append(await record(engine, storage, chat.id, messages[:index], meter, started))
    final = await storage.get_chat(chat.id)
    assert final is not None
    verbatim = await storage.list_messages(chat.id, after_sequence=final.last_summarized_sequence)
    lost, twice = loss(messages, meter, [item.message for item in verbatim])
    survival = await entity_survival(storage, chat.id)
    await storage.close()
    report = summarize_mode(engine, points, meter, lost, twice, time.perf_counter() - started)
    report.update(survival)
    return report


def kept_items(summary: ConversationSummary) -> set[str]:
    """What consolidation keeps: entities (by name), preferences, decisions, open questions."""
    names = {f"entity:{e.name.casefold()}" for e in summary.entities}
    for kind in ("user_preferences", "decisions", "open_questions"):
        names |= {f"{kind}:{item.casefold()}" for item in getattr(summary, kind)}
    return names


async def entity_survival(storage: InMemoryStorage, chat_id: str) -> dict[str, Any]:
    """The share of entities (and kept items) of every stored row that the shown chain holds.

    Archived rows hold what consolidations folded; the shown chain is the digest and the rows
    after it. 1.0 means no consolidation lost anything it promises to keep.
    """
    stored = await storage.list_summaries(chat_id)
    live = [row for row in stored if row.kind != "archived"]
    ever = set().union(*(kept_items(row_summary(row)) for row in stored)) if stored else set()
    now = set().union(*(kept_items(row_summary(row)) for row in live)) if live else set()
    entities = {item for item in ever if item.startswith("entity:")}
    return {
        "entity_survival": round(len(entities & now) / len(entities), 4) if entities else None,
        "item_survival": round(len(ever & now) / len(ever), 4) if ever else None,
        "entities_seen": len(entities),
    }


def summarize_mode(
    engine: MemoryEngine,
    points: Sequence[Point],
    meter: Meter,
    lost: int,
    twice: int,
    seconds: float,
) -> dict[str, Any]:
    budget = engine.config.context_max_tokens
    last = points[-1]
    growth = ratio_to_1000(points, "summary_shown")
    chain_growth = ratio_to_1000(points, "chain_tokens")
    report: dict[str, Any] = {
        "over_budget": sum(p.context_tokens > budget for p in points),
        "summary_shown_max": max(p.summary_shown for p in points),
        "summary_shown_growth": round(growth, 3) if growth is not None else None,
        "llm_input_ratio": round(meter.input_tokens / max(1, last.transcript_tokens), 4),
        "llm_input_tokens": meter.input_tokens,
        "llm_output_tokens": meter.output_tokens,
        "llm_calls": meter.calls,
        "lost_messages": lost,
        "read_twice": twice,
        "chain_rows_final": last.chain_rows,
        "chain_tokens_final": last.chain_tokens,
        "chain_tokens_growth": round(chain_growth, 3) if chain_growth is not None else None,
        "window_intact_points": sum(p.window_intact for p in points),
        "seconds": round(seconds, 1),
    }
    report["targets_met"] = {key: met(report[key], key) for key in TARGETS}
    report["points"] = [asdict(p) for p in points]
    return report


def ratio_to_1000(points: Sequence[Point], key: str) -> float | None:
    """``key`` at the last point / at 1,000 turns (None if shorter or nothing at 1,000)."""
    at = {p.turns: getattr(p, key) for p in points}
    last = points[-1]
    return getattr(last, key) / at[1000] if last.turns > 1000 and at.get(1000) else None


def met(value: Any, key: str) -> bool | None:
    """The target's verdict (None when the value could not be measured)."""
    op, target = TARGETS[key]
    if value is None:
        return None
    return bool(value == target if op == "==" else value <= target)


# -- output ----------------------------------------------------------------------------------


def print_report(results: dict[str, Any], out: Any = sys.stdout) -> None:
    for mode in MODES:
        if mode not in results:
            continue
        report = results[mode]
        print(f"\n== {mode} ({report['seconds']:.1f} s, {report['llm_calls']} calls)", file=out)
        head = (
            f"{'turns':>6} {'context':>8} {'summary':>8} {'chain':>7} {'rows':>5} "
            f"{'stored':>7} {'in/tr':>6}"
        )
        print(head, file=out)
        for p in report["points"]:
            ratio = p["llm_input_tokens"] / max(1, p["transcript_tokens"])
            print(
                f"{p['turns']:>6} {p['context_tokens']:>8} {p['summary_shown']:>8} "
                f"{p['chain_tokens']:>7} {p['chain_rows']:>5} {p['stored_summary_tokens']:>7} "
                f"{ratio:>6.3f}",
                file=out,
            )
        for key, (op, target) in TARGETS.items():
            verdict = {True: "met", False: "NOT met", None: "n/a"}[report["targets_met"][key]]
            print(f"  {key:<22} {report[key]!s:>8}   target {op} {target}: {verdict}", file=out)
        bound = results.get("summary_max_tokens")
        print(
            f"  {'summary_shown_max':<22} {report['summary_shown_max']:>8}   "
            f"(summary_max_tokens: {bound if bound is not None else 'not in MemoryConfig yet'})",
            file=out,
        )
        for key in (
            "chain_tokens_final",
            "chain_tokens_growth",
            "read_twice",
            "entity_survival",
            "item_survival",
            "entities_seen",
        ):
            print(f"  {key:<22} {report[key]!s:>8}", file=out)


async def evaluate(
    data: Path, turns: int, every: int, modes: Sequence[str], log: Callable[[str], None]
) -> dict[str, Any]:
    messages = long_chat(data, turns)
    results: dict[str, Any] = {
        "turns": len(messages),
        "data": str(data),
        "budget": MemoryConfig().context_max_tokens,
        "summary_max_tokens": getattr(MemoryConfig(), "summary_max_tokens", None),
        "transcript_tokens": transcript_tokens(messages),
        "targets": {key: f"{op} {target}" for key, (op, target) in TARGETS.items()},
    }
    for mode in modes:
        log(f"running {mode} over {len(messages)} turns ...")
        results[mode] = await run_mode(mode, messages, every)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--every", type=int, default=250, help="record a point every N turns")
    parser.add_argument("--modes", default=",".join(MODES), help="llm, offline or both")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes: {sorted(unknown)}")
    started = time.perf_counter()
    results = asyncio.run(
        evaluate(args.data, args.turns, args.every, modes, lambda s: print(s, file=sys.stderr))
    )
    results["seconds"] = round(time.perf_counter() - started, 1)
    print_report(results)
    print(
        f"\n{results['turns']} turns, {results['transcript_tokens']} transcript tokens, "
        f"{results['seconds']:.1f} s"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
