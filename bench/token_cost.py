"""Token cost of the running summary vs naive re-summarization, and a no-loss check.

    python bench/token_cost.py --data PATH [--json OUT]

Every conversation of a LoCoMo-format file is replayed message by message through the
running-summary engine in its default configuration, with an LLM double that counts every
input token (instructions included) and answers every call with a 300-token summary. In the
same run a naive baseline re-summarizes everything older than the verbatim window, from
scratch, at the same moments. Printed: summarization input tokens / transcript tokens for
both (1.0 = every message read exactly once), and a check that no message was lost: each
message must have been in exactly one summarizer input, or still be verbatim at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, format_line, format_transcript
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.storage.memory import InMemoryStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.planner import SummaryPlanner
from longtalk.testing import CountingLLM
from longtalk.tools.datasets.locomo import Conversation, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling helpers
from former_keys import with_former_keys  # noqa: E402

COUNTER = HeuristicTokenCounter(4.0)
ANSWER_TOKENS = 300


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


async def replay_longtalk(
    conversation: Conversation, config: MemoryConfig
) -> tuple[CountingLLM, list[Message]]:
    """Feed every message as its own turn; return the LLM double and the final verbatim."""
    llm = CountingLLM(answer_tokens=ANSWER_TOKENS, counter=COUNTER)
    storage = InMemoryStorage()
    engine = MemoryEngine(storage, config=config, writer=LLMSummaryWriter(llm), counter=COUNTER)
    chat = await engine.create_chat(conversation.sample_id)
    for message in conversation.messages:
        await engine.run_turn(chat.id, [message])
    state = await storage.load_state(chat.id)
    verbatim = [
        item.message
        for item in state.messages
        if item.sequence > state.chat.last_summarized_sequence
    ]
    return llm, verbatim


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
    conversation: Conversation, llm: CountingLLM, verbatim: list[Message]
) -> tuple[int, int]:
    """(lost, read twice): each message must be in exactly one input or still verbatim."""
    expected = Counter(format_line(m) for m in conversation.messages)
    inputs = [call.request.messages[-1].content for call in llm.calls]
    seen = Counter(format_line(m) for m in verbatim)
    for line in expected:
        seen[line] += sum(occurrences(text, line) for text in inputs)
    lost = sum(max(0, n - seen[line]) for line, n in expected.items())
    twice = sum(max(0, seen[line] - n) for line, n in expected.items())
    return lost, twice


async def measure(conversation: Conversation, config: MemoryConfig) -> ConversationCost:
    transcript_tokens = COUNTER.count(format_transcript(conversation.messages))
    llm, verbatim = await replay_longtalk(conversation, config)
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
    )


def print_table(rows: list[ConversationCost], overall: dict[str, float]) -> None:
    header = f"{'conversation':<14}{'msgs':>6}{'transcript':>12}{'longtalk':>11}{'calls':>7}"
    header += f"{'naive':>9}{'calls':>7}{'lost':>6}"
    print(header)
    for r in rows:
        print(
            f"{r.sample_id:<14}{r.messages:>6}{r.transcript_tokens:>12}{r.longtalk_ratio:>11.3f}"
            f"{r.longtalk_calls:>7}{r.naive_ratio:>9.2f}{r.naive_calls:>7}{r.lost_messages:>6}"
        )
    print(
        f"{'overall':<14}{sum(r.messages for r in rows):>6}"
        f"{sum(r.transcript_tokens for r in rows):>12}{overall['longtalk_ratio']:>11.3f}"
        f"{sum(r.longtalk_calls for r in rows):>7}{overall['naive_ratio']:>9.2f}"
        f"{sum(r.naive_calls for r in rows):>7}{int(overall['lost_messages']):>6}"
    )
    print(
        f"\nsummarization input / transcript tokens: longtalk {overall['longtalk_ratio']:.3f}"
        f" vs naive {overall['naive_ratio']:.2f} "
        f"({overall['naive_ratio'] / overall['longtalk_ratio']:.1f}x cheaper); "
        f"lost messages: {int(overall['lost_messages'])}"
    )


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    config = MemoryConfig(strategy="running_summary")
    rows = [await measure(c, config) for c in load_locomo(args.data)]
    transcript = sum(r.transcript_tokens for r in rows)
    overall = {
        "longtalk_ratio": sum(r.longtalk_input_tokens for r in rows) / transcript,
        "naive_ratio": sum(r.naive_input_tokens for r in rows) / transcript,
        "lost_messages": sum(r.lost_messages for r in rows),
        "read_twice": sum(r.read_twice for r in rows),
    }
    print_table(rows, overall)
    if args.json:
        payload = {**overall, "conversations": [asdict(r) for r in rows]}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(with_former_keys(payload), indent=2), encoding="utf-8")
    return 0 if overall["lost_messages"] == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
