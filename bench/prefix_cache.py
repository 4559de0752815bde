"""Prompt-cache benchmark: how much of each context repeats the previous context's prefix.

    python bench/prefix_cache.py [--data LOCOMO.json] [--limit N] [--turns N] [--budget N]
        [--json OUT]

Each LoCoMo conversation is replayed turn by turn into one memory with longtalk's DEFAULT
configuration (only ``context_order`` differs between the two readers, which share the
storage, the recall index and the summary job). After each turn the summary job runs as the
background job would (when its trigger holds), and the context for the turn is read in both
orders. A provider's prompt cache bills the longest prefix a prompt shares with an earlier
one at a fraction of the price, so for each turn after the first the benchmark measures the
longest common prefix of the rendered context with the previous turn's.

Baseline, measured in the same run: re-sending the whole history every turn (its prefix is
always the whole previous prompt, but the prompt grows without bound).

Reported per system: ``context_tokens_mean``, ``prefix_tokens_mean`` (tokens of each context
that repeat the previous context's prefix), ``prefix_share_median`` (those tokens over the
previous context's tokens, on the median turn), ``unchanged_share`` (the share of turns whose
stable head - the parts before the first recalled turn or window message - repeats the
previous turn's byte for byte), ``recalled_share_median`` (the recalled turns' tokens over
the context's, on the median turn: they change with the question; ``cache_friendly`` keeps
the previous turn's recalled block before the window while it still serves, and only the
turns recalled afresh after the window change every turn) and ``turns``. Tokens are
ceil(chars / 4). ``--budget`` measures another ``context_max_tokens`` (default: the
configured one); the JSON says which.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one BLAS thread on a shared box

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longtalk.config import MemoryConfig
from longtalk.core.context import AssembledContext
from longtalk.core.messages import format_line
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.tools.datasets.locomo import Conversation, load_locomo

COUNTER = HeuristicTokenCounter(4.0)
DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
ORDERS = ("contract", "cache_friendly")
TURN_KINDS = ("recalled", "verbatim")


@dataclass(slots=True)
class Series:
    """One system's measures over the replay."""

    context_tokens: list[int] = field(default_factory=list)
    prefix_tokens: list[int] = field(default_factory=list)
    prefix_shares: list[float] = field(default_factory=list)
    unchanged: list[bool] = field(default_factory=list)
    recalled_shares: list[float] = field(default_factory=list)
    previous: str | None = None
    previous_head: str = ""

    def add(self, text: str, head: str, recalled: int = 0) -> None:
        """Record one turn's rendered context (``head``: its stable head; ``recalled``: the
        tokens of its recalled turns)."""
        self.context_tokens.append(COUNTER.count(text))
        self.recalled_shares.append(recalled / max(1, COUNTER.count(text)))
        if self.previous is not None:
            shared = COUNTER.count(text[: common_prefix(self.previous, text)])
            self.prefix_tokens.append(shared)
            self.prefix_shares.append(shared / max(1, COUNTER.count(self.previous)))
            self.unchanged.append(text.startswith(self.previous_head))
        self.previous, self.previous_head = text, head

    def reset(self) -> None:
        """A new conversation: no previous context to share a prefix with."""
        self.previous, self.previous_head = None, ""

    def report(self) -> dict[str, float | int]:
        """The system's numbers."""
        return {
            "context_tokens_mean": _mean(self.context_tokens),
            "prefix_tokens_mean": _mean(self.prefix_tokens),
            "prefix_share_median": statistics.median(self.prefix_shares or [0.0]),
            "unchanged_share": _mean([float(flag) for flag in self.unchanged]),
            "recalled_share_median": statistics.median(self.recalled_shares or [0.0]),
            "turns": len(self.prefix_tokens),
        }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    low, high = 0, limit
    while low < high:  # the first differing index, by bisection on slices
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def stable_head(context: AssembledContext) -> str:
    """The parts before the first recalled turn or window message, as they render."""
    head: list[str] = []
    for part in context.parts:
        if part.kind in TURN_KINDS:
            break
        head.append(part.text)
    return "\n\n".join(head)


async def replay(
    conv: Conversation, embedder: Any, series: dict[str, Series], turns: int, budget: int | None
) -> None:
    """One conversation, turn by turn, into memories that differ only in ``context_order``."""
    from longtalk.engine import MemoryEngine
    from longtalk.recall.retriever import HybridRetriever
    from longtalk.storage.in_memory import InMemoryStorage
    from longtalk.summary.offline import OfflineSummaryWriter
    from longtalk.vectors.qdrant_edge import QdrantEdgeStore

    with tempfile.TemporaryDirectory() as tmp:
        retriever = HybridRetriever(QdrantEdgeStore(Path(tmp)), embedder)
        storage = InMemoryStorage()
        await storage.setup()
        writer = OfflineSummaryWriter(embedder)
        engines = {
            order: MemoryEngine(
                storage,
                config=_config(order, budget),
                writer=writer,
                recall=retriever,
                counter=COUNTER,
                embedder=embedder,
            )
            for order in ORDERS
        }
        writing = engines["contract"]
        chat = await writing.create_chat(conv.sample_id)
        history: list[str] = []
        for system in series.values():
            system.reset()
        for turn in conv.turns[: turns or None]:
            await writing.append(chat.id, [turn.message])
            await writing.summarize(chat.id)  # as the background job: only when due
            history.append(format_line(turn.message))
            whole = "\n".join(history)
            series["whole_history"].add(whole, whole)
            for order, engine in engines.items():
                context = await engine.get_context(chat.id, turn.message.content)
                tokens = sum(part.tokens for part in context.parts if part.kind == "recalled")
                series[order].add(context.render(), stable_head(context), tokens)
        await storage.close()
        await retriever.close()


def _config(order: str, budget: int | None) -> MemoryConfig:
    """The default configuration in ``order`` (and ``budget``, when one is given)."""
    extra = {} if budget is None else {"context_max_tokens": budget}
    return MemoryConfig(context_order=order, **extra)  # type: ignore[arg-type]


async def evaluate(
    conversations: Sequence[Conversation], turns: int, budget: int | None = None
) -> dict[str, Any]:
    from longtalk.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    series = {name: Series() for name in ("whole_history", *ORDERS)}
    for conv in conversations:
        await replay(conv, embedder, series, turns, budget)
    results: dict[str, Any] = {name: s.report() for name, s in series.items()}
    results["budget_tokens"] = _config("contract", budget).context_max_tokens
    friendly, contract = series["cache_friendly"], series["contract"]
    results["ratios"] = {
        "cache_friendly_vs_contract_prefix_tokens": _mean(friendly.prefix_tokens)
        / max(1e-9, _mean(contract.prefix_tokens)),
        "cache_friendly_vs_whole_history_context_tokens": _mean(friendly.context_tokens)
        / max(1e-9, _mean(series["whole_history"].context_tokens)),
    }
    return results


def print_table(results: dict[str, Any], out: Any = sys.stdout) -> None:
    print(
        f"{'system':<16} {'context':>9} {'prefix':>9} {'share p50':>10} {'unchanged':>10} "
        f"{'recalled p50':>13}",
        file=out,
    )
    for name in ("whole_history", *ORDERS):
        r = results[name]
        print(
            f"{name:<16} {r['context_tokens_mean']:>9.0f} {r['prefix_tokens_mean']:>9.0f} "
            f"{r['prefix_share_median']:>10.2f} {r['unchanged_share']:>10.2f} "
            f"{r['recalled_share_median']:>13.2f}",
            file=out,
        )
    for key, value in results["ratios"].items():
        print(f"{key}: {value:.2f}x", file=out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--turns", type=int, default=0, help="only the first N turns of each")
    parser.add_argument(
        "--budget", type=int, default=None, help="context_max_tokens (default: the configured)"
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    conversations = load_locomo(args.data)
    if args.limit:
        conversations = conversations[: args.limit]
    started = time.perf_counter()
    results = asyncio.run(evaluate(conversations, args.turns, args.budget))
    print_table(results)
    turns = results["contract"]["turns"]
    took = time.perf_counter() - started
    budget = results["budget_tokens"]
    print(f"\n{turns} turns, {len(conversations)} conversations, budget {budget}, {took:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
