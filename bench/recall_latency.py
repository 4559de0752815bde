"""Recall latency and ingestion throughput on the embedded defaults.

    python bench/recall_latency.py [--sizes 1000,10000,100000] [--chats 1000] [--json OUT]

What is measured, all in one run on this machine:

* Ingestion: real conversation turns (LoCoMo dev, else synthetic) embedded with the bundled
  MiniLM and upserted into a Qdrant Edge store: turns/s in batches of 64 (bulk import) and
  in calls of 2 turns (one exchange, what ``store_turns`` does after each turn). Baseline:
  one turn per embed call.
* Recall with 1k / 10k / 100k stored turns spread over ``--chats`` chats: per query, embed
  the question, dense top-k in the chat, sparse (lexical) top-k in the chat, and fetch the
  neighbours of the hits: p50/p95 in ms. Baseline: the same dense top-k by an exact numpy
  scan over every stored vector, masked to the chat.
* The shipped path: ``HybridRetriever.get_relevant_history`` with the defaults (200
  candidates per search, the speaker-free searches when a question names a speaker - the
  stored turns are Caroline's and Melanie's -, neighbours, the learned ranker; ``rag_k``
  auto for a 2,000-token budget) plus the summary load. Sparse vectors are the retriever's
  own BM25 ones.
* Context assembly: the recall above plus the summary load ``get_context`` does, i.e.
  ``load_state`` of the chat (its summary chain and unsummarized/recent messages) from a
  real SQLite store and ``render_chain`` of the chain. Every chat holds 40 real turns and
  a two-row structured (JSON) summary chain covering all but the last 8. Baseline, timed
  the same way in the same loop: the same path with the dense top-k by the exact scan.

Embedding 100k turns would take minutes, so the bulk reuses the embedded pool of distinct
real turns with a small random perturbation per copy (renormalised), each copy stored with
its own chat, sequence and payload. Query embedding is real for every query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.recall.defaults import RAG_SIMILARITY_THRESHOLD, auto_k
from longtalk.recall.lexical import document_vector, query_vector
from longtalk.recall.retriever import HybridRetriever
from longtalk.storage.base import NewMessages, SummaryRow, SummaryUpdate, TurnCommit
from longtalk.storage.sqlite import SqliteStorage
from longtalk.summary.chain import render_chain
from longtalk.summary.model import ConversationSummary, SummaryEntity
from longtalk.vectors.base import RecallScope, VectorPoint
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
TOPK = 10
ENGINE_BUDGET = 1000
"""Below a 40-turn chat's size: a chat that fits is shown verbatim, with no recall to time."""
INGEST_REPEATS = 3  # the bulk rate is the median of this many runs (a shared VM is noisy)
CHAT_TURNS = 40  # per chat in SQLite; the summary chain covers all but the last VERBATIM
VERBATIM = 8


def load_texts(path: Path) -> tuple[list[str], list[str]]:
    """Turn texts and question texts from a LoCoMo file (synthetic if it is missing)."""
    if not path.exists():
        rng = random.Random(0)
        words = "we went camping lake painting kids school dog cello trip sister work".split()
        turns = [" ".join(rng.choices(words, k=rng.randint(6, 30))) for _ in range(2000)]
        return turns, turns[:200]
    data = json.loads(path.read_text())
    turns = [
        turn["text"]
        for sample in data
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    questions = [qa["question"] for sample in data for qa in sample["qa"]]
    return list(dict.fromkeys(turns)), questions


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q))


SPEAKERS = ("Caroline", "Melanie")  # named by some LoCoMo questions: the speaker-free search runs


def payload(chat: int, seq: int, text: str) -> dict[str, Any]:
    return {
        "namespace": "__memory__",
        "tenant": "default",
        "user": None,
        "chat_id": f"chat-{chat}",
        "role": "user" if seq % 2 == 0 else "assistant",
        "name": SPEAKERS[seq % 2],
        "type": "text",
        "message_id": None,
        "sequence": seq,
        "timestamp": "2026-01-01T00:00:00+00:00",
        "content": text,
        "content_hash": f"{zlib.crc32(text.encode()):08x}-{chat}-{seq}",
    }


async def ingestion(embedder: MiniLMEmbedder, turns: list[str], where: Path) -> dict[str, Any]:
    """turns/s: bulk batches of 64 (median of ``INGEST_REPEATS`` runs), per-exchange calls of 2,
    and the one-at-a-time baseline."""
    store = QdrantEdgeStore(where)
    await store.setup(dimension=embedder.dimension, model_id=embedder.model_id)
    result: dict[str, Any] = {}
    started = time.perf_counter()
    for start in range(0, len(turns), 64):
        embedder.embed(turns[start : start + 64])
    result["embed_only_64"] = len(turns) / (time.perf_counter() - started)
    runs = [("bulk_64", 64, turns, rep) for rep in range(INGEST_REPEATS)]
    for label, size, sample, rep in [*runs, ("exchange_2", 2, turns[:400], 0)]:
        started, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(sample), size):
            batch = sample[start : start + size]
            vectors = embedder.embed(batch)
            points = [
                VectorPoint(
                    f"{label}-{rep}-{start + i}", v, payload(rep, start + i, t), document_vector(t)
                )
                for i, (t, v) in enumerate(zip(batch, vectors, strict=True))
            ]
            await store.upsert(points)
        rate = len(sample) / (time.perf_counter() - started)
        per_cpu = len(sample) / (time.process_time() - cpu)
        result.setdefault(label + "_runs", []).append(rate)
        result.setdefault(label + "_per_cpu_second_runs", []).append(per_cpu)
    for label in ("bulk_64", "exchange_2"):
        result[label] = statistics.median(result[label + "_runs"])
        result[label + "_per_cpu_second"] = statistics.median(
            result[label + "_per_cpu_second_runs"]
        )
    started = time.perf_counter()
    for text in turns[:200]:
        embedder.embed([text])
    result["baseline_one_by_one"] = 200 / (time.perf_counter() - started)
    await store.close()
    return result


def perturbed(pool: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    base = pool[rng.integers(0, len(pool), size=count)]
    noisy = base + rng.normal(0.0, 0.02, size=base.shape).astype(np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


async def fill(
    store: QdrantEdgeStore, pool: np.ndarray, turns: list[str], frm: int, to: int, chats: int
) -> tuple[np.ndarray, np.ndarray]:
    """Store turns ``frm..to`` round-robin over the chats; return their vectors and chats."""
    rng = np.random.default_rng(frm)
    vectors = perturbed(pool, to - frm, rng)
    chat_of = np.arange(frm, to) % chats
    for start in range(0, to - frm, 2000):
        points = []
        for i in range(start, min(start + 2000, to - frm)):
            n = frm + i
            text = turns[n % len(turns)]
            body = payload(int(chat_of[i]), n // chats, text)
            sparse = document_vector(f"{body['name']}: {text}")  # what the retriever stores
            points.append(VectorPoint(f"p{n}", vectors[i], body, sparse))
        await store.upsert(points)
    return vectors, chat_of


async def recall_once(
    store: QdrantEdgeStore, embedder: MiniLMEmbedder, question: str, scope: RecallScope
) -> tuple[float, float, float, np.ndarray]:
    """(whole recall, store part, dense search alone) in seconds, and the query vector."""
    started = time.perf_counter()
    query = embedder.embed([question])[0]
    embedded = time.perf_counter()
    hits = await store.search(scope, dense=query, limit=TOPK)
    dense_done = time.perf_counter()
    await store.search(scope, sparse=query_vector(question), limit=TOPK)
    near = {int(h.payload["sequence"]) + d for h in hits for d in (-1, 1)}
    await store.fetch(scope, sorted(near))
    done = time.perf_counter()
    return done - started, done - embedded, dense_done - embedded, query


async def shipped_once(
    retriever: HybridRetriever, storage: SqliteStorage, question: str, scope: RecallScope
) -> float:
    """What ``get_context`` spends outside assembly with the shipped retriever, in seconds.

    ``get_relevant_history`` with the defaults (``rag_k: auto`` for a 2,000-token budget): the
    query's dense and BM25 searches over 200 candidates each, the same for the query without
    speaker names when it names one, the neighbours of the best hits, the learned ranker; then
    the summary load.
    """
    started = time.perf_counter()
    await retriever.get_relevant_history(
        question, scope, k=auto_k(2000), similarity_threshold=RAG_SIMILARITY_THRESHOLD
    )
    await summary_load(storage, scope.chat_id)
    return time.perf_counter() - started


async def engine_once(engine: MemoryEngine, question: str, chat_id: str) -> float:
    """``MemoryEngine.get_context`` for a 1,000-token budget, end to end, in seconds.

    The whole call an application makes: the chat's state from SQLite, the shipped
    retriever, the verbatim window through the filter pipeline, and the assembly.
    """
    started = time.perf_counter()
    context = await engine.get_context(chat_id, question, budget_tokens=ENGINE_BUDGET)
    assert context.part("summary") is not None  # the layered path, not the whole chat
    return time.perf_counter() - started


async def summary_load(storage: SqliteStorage, chat_id: str) -> str:
    """What ``get_context`` reads besides recall: the smart load and the rendered chain."""
    state = await storage.load_state(chat_id)
    assert state.summaries and state.messages
    return render_chain(state.summaries)


async def context_once(
    store: QdrantEdgeStore,
    storage: SqliteStorage,
    embedder: MiniLMEmbedder,
    question: str,
    scope: RecallScope,
    exact: tuple[np.ndarray, np.ndarray, int] | None = None,
) -> tuple[float, float]:
    """(query embedding + recall + summary load, the summary load alone) in seconds.

    ``exact`` (all vectors, their chats, the chat count) swaps the store's dense top-k for
    the exact numpy scan: the baseline.
    """
    started = time.perf_counter()
    query = embedder.embed([question])[0]
    if exact is None:
        found = await store.search(scope, dense=query, limit=TOPK)
        hits = [int(h.payload["sequence"]) for h in found]
    else:
        vectors, chat_of, chats = exact
        chat = int(scope.chat_id.removeprefix("chat-"))
        hits = [int(n) // chats for n in numpy_scan(vectors, chat_of, query, chat)]
    await store.search(scope, sparse=query_vector(question), limit=TOPK)
    await store.fetch(scope, sorted({h + d for h in hits for d in (-1, 1)}))
    loading = time.perf_counter()
    await summary_load(storage, scope.chat_id)
    done = time.perf_counter()
    return done - started, done - loading


def summary_rows(chat_id: str, texts: list[str], covered: int) -> list[SummaryRow]:
    """A two-row structured summary chain of ``texts[:covered]``, as the summarizer writes."""
    rows, half = [], covered // 2
    for first, last in ((0, half), (half, covered)):
        part = texts[first:last]
        names = Counter(w for t in part for w in re.findall(r"\b[A-Z][a-z]{2,}\b", t))
        words = Counter(w for t in part for w in re.findall(r"\b[a-z]{6,}\b", t.lower()))
        summary = ConversationSummary(
            topics=[w for w, _ in words.most_common(6)],
            entities=[
                SummaryEntity(name=n, type="person", details=f"mentioned {c} times")
                for n, c in names.most_common(6)
            ],
            actions_taken=[t[:120] for t in part[0:2]],
            decisions=[t[:120] for t in part[2:4]],
            open_questions=[t[:120] for t in part[4:5]],
            user_preferences=[t[:120] for t in part[5:7]],
            narrative=" ".join(t[:160] for t in part[::3]),
            covered_turns=last - first,
        )
        text = summary.model_dump_json()
        rows.append(
            SummaryRow(
                chat_id,
                text,
                format="json",
                episode_first=first // 2 + 1,
                episode_last=last // 2,
                turn_number=last // 2,
                token_count=len(text) // 4,
            )
        )
    return rows


async def fill_storage(storage: SqliteStorage, turns: list[str], chats: int) -> None:
    """Every chat: CHAT_TURNS real turns and a summary chain of all but the last VERBATIM."""
    for chat in range(chats):
        chat_id = f"chat-{chat}"
        await storage.create_chat(chat_id)
        texts = [turns[(chat * CHAT_TURNS + i) % len(turns)] for i in range(CHAT_TURNS)]
        messages: list[Message] = [
            (user if i % 2 == 0 else assistant)(text) for i, text in enumerate(texts)
        ]
        covered = CHAT_TURNS - VERBATIM
        commit = TurnCommit(
            chat_id,
            append=NewMessages(messages),
            summary=SummaryUpdate(
                rows=summary_rows(chat_id, texts, covered), last_summarized_sequence=covered
            ),
        )
        await storage.commit_turn(commit)


def numpy_scan(all_vectors: np.ndarray, all_chats: np.ndarray, query: np.ndarray, chat: int) -> Any:
    scores = all_vectors @ query
    scores[all_chats != chat] = -2.0
    top = np.argpartition(-scores, TOPK)[:TOPK]
    return top[np.argsort(-scores[top])]


async def latency(args: argparse.Namespace, embedder: MiniLMEmbedder, where: Path) -> list[dict]:
    turns, questions = load_texts(Path(args.data))
    pool_texts = turns[: args.pool]
    started = time.perf_counter()
    pool = embedder.embed(pool_texts)
    took = time.perf_counter() - started
    print(
        f"embedded a pool of {len(pool)} distinct turns in {took:.1f} s ({len(pool) / took:.0f}/s)"
    )
    store = QdrantEdgeStore(where)
    await store.setup(dimension=embedder.dimension, model_id=embedder.model_id)
    retriever = HybridRetriever(store, embedder)
    storage = SqliteStorage(where.parent / "chats.sqlite3")
    await storage.setup()
    config = MemoryConfig(strategy="rag_augmented", context_max_tokens=ENGINE_BUDGET)
    engine = MemoryEngine(storage, config=config, recall=retriever)
    started = time.perf_counter()
    await fill_storage(storage, turns, args.chats)
    print(
        f"SQLite: {args.chats} chats x {CHAT_TURNS} turns with a 2-row JSON summary chain "
        f"in {time.perf_counter() - started:.1f} s"
    )
    rng = random.Random(1)
    rows, stored = [], 0
    all_vectors = np.zeros((0, pool.shape[1]), dtype=np.float32)
    all_chats = np.zeros(0, dtype=np.int64)
    for size in (int(s) for s in args.sizes.split(",")):
        started = time.perf_counter()
        vectors, chats = await fill(store, pool, pool_texts, stored, size, args.chats)
        insert_s = time.perf_counter() - started
        all_vectors, all_chats = (
            np.vstack([all_vectors, vectors]),
            np.concatenate([all_chats, chats]),
        )
        stored = size
        total, search, dense, scan, context, loads, base = [], [], [], [], [], [], []
        shipped, whole = [], []
        exact = (all_vectors, all_chats, args.chats)
        for _ in range(args.queries):
            chat = rng.randrange(min(args.chats, size))
            scope = RecallScope(chat_id=f"chat-{chat}")
            question = rng.choice(questions)
            t_all, t_store, t_dense, query = await recall_once(store, embedder, question, scope)
            total.append(t_all)
            search.append(t_store)
            dense.append(t_dense)
            t0 = time.perf_counter()
            numpy_scan(all_vectors, all_chats, query, chat)
            scan.append(time.perf_counter() - t0)
            t_context, t_load = await context_once(store, storage, embedder, question, scope)
            context.append(t_context)
            loads.append(t_load)
            base.append((await context_once(store, storage, embedder, question, scope, exact))[0])
            shipped.append(await shipped_once(retriever, storage, question, scope))
            whole.append(await engine_once(engine, question, scope.chat_id))
        rows.append(
            {
                "stored_turns": size,
                "insert_s": insert_s,
                "recall_p50_ms": pct(total, 50),
                "recall_p95_ms": pct(total, 95),
                "store_p50_ms": pct(search, 50),
                "store_p95_ms": pct(search, 95),
                "dense_p50_ms": pct(dense, 50),
                "numpy_scan_p50_ms": pct(scan, 50),
                "scan_over_store_dense": statistics.median(scan) / statistics.median(dense),
                "context_p50_ms": pct(context, 50),
                "context_p95_ms": pct(context, 95),
                "summary_load_p50_ms": pct(loads, 50),
                "summary_load_p95_ms": pct(loads, 95),
                "baseline_context_p50_ms": pct(base, 50),
                "baseline_context_p95_ms": pct(base, 95),
                "shipped_context_p50_ms": pct(shipped, 50),
                "shipped_context_p95_ms": pct(shipped, 95),
                "engine_context_p50_ms": pct(whole, 50),
                "engine_context_p95_ms": pct(whole, 95),
            }
        )
        print_row(rows[-1])
    await store.close()
    await storage.close()
    return rows


def print_row(row: dict[str, float]) -> None:
    print(
        f"{row['stored_turns']:>7} turns | insert {row['insert_s']:6.1f} s | recall p50 "
        f"{row['recall_p50_ms']:6.2f} p95 {row['recall_p95_ms']:6.2f} ms | store part p50 "
        f"{row['store_p50_ms']:5.2f} p95 {row['store_p95_ms']:5.2f} ms | dense top-{TOPK} p50 "
        f"{row['dense_p50_ms']:5.2f} ms vs exact numpy scan {row['numpy_scan_p50_ms']:6.2f} ms "
        f"= {row['scan_over_store_dense']:.1f}x"
    )
    print(
        f"{'':>7}         | context (embed + recall + summary load) p50 "
        f"{row['context_p50_ms']:6.2f} p95 {row['context_p95_ms']:6.2f} ms, of which summary "
        f"load p50 {row['summary_load_p50_ms']:5.2f} p95 {row['summary_load_p95_ms']:5.2f} ms"
        f" | baseline (exact scan) p50 {row['baseline_context_p50_ms']:6.2f} p95 "
        f"{row['baseline_context_p95_ms']:6.2f} ms = "
        f"{row['baseline_context_p50_ms'] / row['context_p50_ms']:.2f}x / "
        f"{row['baseline_context_p95_ms'] / row['context_p95_ms']:.2f}x"
    )
    print(
        f"{'':>7}         | shipped retriever (defaults, k=auto for 2,000 tokens) + summary "
        f"load p50 {row['shipped_context_p50_ms']:6.2f} p95 {row['shipped_context_p95_ms']:6.2f} ms"
    )
    print(
        f"{'':>7}         | MemoryEngine.get_context end to end (the above + filters + assembly, "
        f"rag_augmented defaults, {ENGINE_BUDGET:,} tokens) "
        f"p50 {row['engine_context_p50_ms']:6.2f} p95 {row['engine_context_p95_ms']:6.2f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(LOCOMO))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pool", type=int, default=2000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    turns, _ = load_texts(Path(args.data))
    with tempfile.TemporaryDirectory(prefix="longtalk-bench-") as tmp:
        speed = await ingestion(embedder, turns[:1000], Path(tmp) / "ingest")
        print(
            f"ingestion (embed + upsert): bulk {speed['bulk_64']:.0f} turns/s (median of "
            f"{', '.join(f'{r:.0f}' for r in speed['bulk_64_runs'])}), per exchange "
            f"{speed['exchange_2']:.0f} turns/s; baseline one-by-one embed "
            f"{speed['baseline_one_by_one']:.0f} turns/s "
            f"-> bulk is {speed['bulk_64'] / speed['baseline_one_by_one']:.1f}x; "
            f"CPU cost: {speed['bulk_64_per_cpu_second']:.0f} turns per CPU-second (bulk), "
            f"{speed['exchange_2_per_cpu_second']:.0f} (per exchange); embedding alone "
            f"(batches of 64) {speed['embed_only_64']:.0f} turns/s"
        )
        rows = await latency(args, embedder, Path(tmp) / "latency")
    if args.json:
        Path(args.json).write_text(json.dumps({"ingestion": speed, "recall": rows}, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
