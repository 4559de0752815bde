"""Token cost of the running summary vs naive re-summarization, per model behaviour.

    python bench/token_cost.py --data PATH [--behaviour json|prose|broken|mixed|all]
                               [--conversations N] [--json OUT]

Every conversation of a LoCoMo-format file is replayed message by message through the
running-summary engine in its default configuration (structured output on), with an LLM
double that counts every input token (instructions included) and answers every call with a
300-token reply of one behaviour:

- ``json``: a valid JSON summary;
- ``prose``: plain text, as small local models answer (a narrative-only extension);
- ``broken``: JSON that does not parse, every time (a failed extension, retried);
- ``mixed``: a reply of each kind in turn (JSON, prose, fenced JSON, broken): one in four
  broken.

Each message is its own turn through the engine's ``run_turn``, one arriving every 30
seconds of a simulated clock: the job path every door shares applies its failure policy,
so a failing chat waits out its backoff (and, failing again, for the chat to grow by what
the failed call read) while its messages are stored as usual.

In the same run a naive baseline re-summarizes everything older than the verbatim window,
from scratch, at the same moments. Printed: summarization input tokens / transcript tokens
(1.0 = every message read exactly once) and a check that no message was lost: each message
must have been in the input of a call the model answered usably, or still be verbatim at
the end. The top-level keys (``longtalk_ratio``...) are the ``json`` behaviour's run
through the engine (the first behaviour run when ``json`` is not among them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, format_transcript
from longtalk.core.quoting import quoted_line
from longtalk.core.tokens import HeuristicTokenCounter, TokenUsage
from longtalk.engine import MemoryEngine
from longtalk.llm.base import LLMRequest, LLMResponse
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.planner import SummaryPlanner
from longtalk.testing import CountingLLM
from longtalk.tools.datasets.locomo import Conversation, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from former_keys import with_former_keys  # noqa: E402

COUNTER = HeuristicTokenCounter(4.0)
ANSWER_TOKENS = 300
BEHAVIOURS = ("json", "prose", "broken", "mixed")
MIXED = ("json", "prose", "fenced", "broken")
SECONDS_PER_MESSAGE = 30.0


@dataclass
class ConversationCost:
    sample_id: str
    messages: int
    transcript_tokens: int
    longtalk_input_tokens: int
    longtalk_calls: int
    longtalk_ratio: float
    naive_input_tokens: int
    naive_calls: int
    naive_ratio: float
    lost_messages: int
    read_twice: int
    failed_calls: int = 0


@dataclass
class Call:
    """One request the double answered, and whether its answer was usable."""

    request: LLMRequest
    usable: bool


@dataclass
class BehaviourLLM:
    """Counts every input token and answers ``ANSWER_TOKENS`` tokens in one behaviour."""

    behaviour: str
    input_tokens: int = 0
    calls: list[Call] = field(default_factory=list)

    def kind(self) -> str:
        if self.behaviour == "mixed":
            return MIXED[len(self.calls) % len(MIXED)]
        return self.behaviour

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Count the request's tokens and answer in this call's kind."""
        kind = self.kind()
        tokens = sum(COUNTER.count(m.content) for m in request.messages)
        self.input_tokens += tokens
        self.calls.append(Call(request, usable=kind != "broken"))
        text = ANSWERS[kind](len(self.calls))
        return LLMResponse(text=text, usage=TokenUsage(tokens, COUNTER.count(text)))


def _words(tag: str, tokens: int) -> str:
    words: list[str] = []
    while COUNTER.count(" ".join(words)) < tokens:
        words.append(f"{tag}-{len(words)}")
    return " ".join(words)


def json_answer(number: int) -> str:
    summary = {
        "topics": [f"topic {number}"],
        "entities": [{"name": f"Person{number}", "type": "person", "details": "a friend"}],
        "actions_taken": [],
        "decisions": [f"decision {number}"],
        "open_questions": [],
        "user_preferences": [],
        "narrative": "",
        "covered_turns": 0,
    }
    summary["narrative"] = _words(
        f"fact{number}", ANSWER_TOKENS - COUNTER.count(json.dumps(summary))
    )
    return json.dumps(summary)


def broken_answer(number: int) -> str:
    whole = json_answer(number)
    return whole.replace('], "', '] "')  # the commas between fields left out: no JSON


ANSWERS: dict[str, Callable[[int], str]] = {
    "json": json_answer,
    "prose": lambda number: _words(f"fact{number}", ANSWER_TOKENS),
    "fenced": lambda number: f"Here is the summary:\n```json\n{json_answer(number)}\n```",
    "broken": broken_answer,
}


async def replay_longtalk(
    conversation: Conversation, config: MemoryConfig, behaviour: str
) -> tuple[BehaviourLLM, list[Message]]:
    """Feed every message as its own turn; return the LLM double and the final verbatim."""
    llm = BehaviourLLM(behaviour)
    storage = InMemoryStorage()
    engine = MemoryEngine(storage, config=config, writer=LLMSummaryWriter(llm), counter=COUNTER)
    clock = SimulatedClock()
    engine.job.clock = clock
    chat = await engine.create_chat(conversation.sample_id)
    for message in conversation.messages:
        clock.now += timedelta(seconds=SECONDS_PER_MESSAGE)
        await engine.run_turn(chat.id, [message])
    state = await storage.load_state(chat.id)
    verbatim = [
        item.message
        for item in state.messages
        if item.sequence > state.chat.last_summarized_sequence
    ]
    return llm, verbatim


@dataclass
class SimulatedClock:
    """The engine's clock, moved on by the replay (one message every 30 seconds)."""

    now: datetime = field(default_factory=lambda: datetime(2023, 5, 8, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now


async def replay_naive(conversation: Conversation, config: MemoryConfig) -> tuple[int, int]:
    """Same trigger moments, but every call re-reads everything older than the window."""
    writer = LLMSummaryWriter(CountingLLM())
    planner = SummaryPlanner(config, writer, COUNTER)
    numbered: list[tuple[int, Message]] = []
    last, tokens, calls = 0, 0, 0
    for sequence, message in enumerate(conversation.messages, start=1):
        numbered.append((sequence, message))
        split = planner.split(numbered, last)
        if not planner.decide(split).triggered:
            continue
        last = split.pending[-1][0]
        older = [m for s, m in numbered if s <= last]
        request = writer.build_request(None, older, structured=config.structured_output)
        tokens += sum(COUNTER.count(m.content) for m in request.messages)
        calls += 1
    return tokens, calls


def occurrences(text: str, line: str) -> int:
    """How often ``line`` stands as whole lines in ``text`` (overlaps counted)."""
    haystack, needle = f"\n{text}\n", f"\n{line}\n"
    count, start = 0, haystack.find(needle)
    while start != -1:
        count += 1
        start = haystack.find(needle, start + 1)
    return count


def check_loss(
    conversation: Conversation, llm: BehaviourLLM, verbatim: list[Message]
) -> tuple[int, int]:
    """(lost, read twice): each message in exactly one usable input, or still verbatim.

    A message is looked for as the summary prompt quotes it (a multi-line message's
    continuation lines indented), so it is found however many lines it has.
    """
    expected = Counter(quoted_line(m) for m in conversation.messages)
    inputs = [call.request.messages[-1].content for call in llm.calls if call.usable]
    seen = Counter(quoted_line(m) for m in verbatim)
    for line in expected:
        seen[line] += sum(occurrences(text, line) for text in inputs)
    lost = sum(max(0, n - seen[line]) for line, n in expected.items())
    twice = sum(max(0, seen[line] - n) for line, n in expected.items())
    return lost, twice


async def measure(
    conversation: Conversation, config: MemoryConfig, behaviour: str
) -> ConversationCost:
    transcript_tokens = COUNTER.count(format_transcript(conversation.messages))
    llm, verbatim = await replay_longtalk(conversation, config, behaviour)
    naive_tokens, naive_calls = await replay_naive(conversation, config)
    lost, twice = check_loss(conversation, llm, verbatim)
    return ConversationCost(
        sample_id=conversation.sample_id,
        messages=len(conversation.messages),
        transcript_tokens=transcript_tokens,
        longtalk_input_tokens=llm.input_tokens,
        longtalk_calls=len(llm.calls),
        longtalk_ratio=llm.input_tokens / transcript_tokens,
        naive_input_tokens=naive_tokens,
        naive_calls=naive_calls,
        naive_ratio=naive_tokens / transcript_tokens,
        lost_messages=lost,
        read_twice=twice,
        failed_calls=sum(not call.usable for call in llm.calls),
    )


def overall(rows: Sequence[ConversationCost]) -> dict[str, float]:
    transcript = sum(r.transcript_tokens for r in rows)
    return {
        "longtalk_ratio": sum(r.longtalk_input_tokens for r in rows) / transcript,
        "naive_ratio": sum(r.naive_input_tokens for r in rows) / transcript,
        "lost_messages": sum(r.lost_messages for r in rows),
        "read_twice": sum(r.read_twice for r in rows),
        "calls": sum(r.longtalk_calls for r in rows),
        "failed_calls": sum(r.failed_calls for r in rows),
    }


def print_table(title: str, rows: list[ConversationCost], total: dict[str, float]) -> None:
    print(f"\n{title}")
    header = f"{'conversation':<14}{'msgs':>6}{'transcript':>12}{'longtalk':>11}{'calls':>7}"
    header += f"{'failed':>8}{'naive':>9}{'calls':>7}{'lost':>6}"
    print(header)
    for r in rows:
        print(
            f"{r.sample_id:<14}{r.messages:>6}{r.transcript_tokens:>12}{r.longtalk_ratio:>11.3f}"
            f"{r.longtalk_calls:>7}{r.failed_calls:>8}{r.naive_ratio:>9.2f}{r.naive_calls:>7}"
            f"{r.lost_messages:>6}"
        )
    print(
        f"{'overall':<14}{sum(r.messages for r in rows):>6}"
        f"{sum(r.transcript_tokens for r in rows):>12}{total['longtalk_ratio']:>11.3f}"
        f"{int(total['calls']):>7}{int(total['failed_calls']):>8}{total['naive_ratio']:>9.2f}"
        f"{sum(r.naive_calls for r in rows):>7}{int(total['lost_messages']):>6}"
    )


def print_summary(results: dict[str, dict[str, float]]) -> None:
    print("\nsummarization input / transcript tokens (naive baseline in the same run):")
    print(f"{'behaviour':<10}{'ratio':>8}{'naive':>8}{'calls':>7}{'failed':>8}{'lost':>6}")
    for behaviour, total in results.items():
        print(
            f"{behaviour:<10}{total['longtalk_ratio']:>8.3f}"
            f"{total['naive_ratio']:>8.2f}{int(total['calls']):>7}"
            f"{int(total['failed_calls']):>8}{int(total['lost_messages']):>6}"
        )


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument(
        "--behaviour", choices=[*BEHAVIOURS, "all"], default="all", help="the model's replies"
    )
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    quiet = logging.getLogger("longtalk")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # failed extensions are counted, not logged one by one
    try:
        return await run(args)
    finally:
        quiet.setLevel(level)


async def run(args: argparse.Namespace) -> int:
    """Replay every behaviour, print the tables, write the JSON; 1 when a message was lost."""
    config = MemoryConfig(strategy="running_summary")
    conversations = load_locomo(args.data)[: args.conversations]
    behaviours = BEHAVIOURS if args.behaviour == "all" else (args.behaviour,)
    results: dict[str, dict[str, float]] = {}
    tables: dict[str, list[ConversationCost]] = {}
    for behaviour in behaviours:
        rows = [await measure(c, config, behaviour) for c in conversations]
        tables[behaviour] = rows
        results[behaviour] = overall(rows)
        print_table(f"{behaviour} replies", rows, results[behaviour])
    print_summary(results)
    headline = "json" if "json" in results else behaviours[0]
    payload = {
        **{k: v for k, v in results[headline].items() if k not in ("calls",)},
        "conversations": [asdict(r) for r in tables[headline]],
        "ratios": {b: results[b]["longtalk_ratio"] for b in results},
        "calls": {b: int(results[b]["calls"]) for b in results},
        "lost": {b: int(results[b]["lost_messages"]) for b in results},
        "seconds_per_message": SECONDS_PER_MESSAGE,
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(with_former_keys(payload), indent=2), encoding="utf-8")
    lost = sum(int(total["lost_messages"]) for total in results.values())
    return 0 if lost == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
