"""What a complete chat deletion costs on the embedded Qdrant Edge store.

    python bench/delete_compaction.py [--sizes 2000,20000] [--turns-per-chat 40] [--repeat 3]

For a store holding N 384-dimensional turns (random unit vectors, a payload with text like
the retriever's), one chat's turns are deleted:

* baseline: ``QdrantEdgeStore.delete`` alone (the points are gone from every search, but
  their text stays in the segment files and the write-ahead log);
* complete: ``delete`` then ``compact`` (the shard rebuilt from its live points, the old
  files removed), what every chat deletion now runs.

Each is timed on a fresh copy of the same store; the ratio complete / baseline is printed,
with whether the deleted chat's text is still in the store's files after each.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from longtalk.vectors.base import RecallScope, VectorPoint
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

DIMENSION = 384
MODEL = "bench/random-384"


def points(total: int, per_chat: int, rng: np.random.Generator) -> list[VectorPoint]:
    vectors = rng.standard_normal((total, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    made = []
    for index, vector in enumerate(vectors):
        chat = f"chat-{index // per_chat}"
        payload = {
            "namespace": "__memory__",
            "tenant": "bench",
            "user": None,
            "chat_id": chat,
            "incarnation": "i",
            "sequence": index % per_chat + 1,
            "content": f"{chat} turn {index} token{uuid.uuid4().hex} and some ordinary words",
        }
        made.append(VectorPoint(f"{chat}:{index}", vector.tolist(), payload))
    return made


async def build(path: Path, made: list[VectorPoint]) -> None:
    store = QdrantEdgeStore(path)
    await store.setup(dimension=DIMENSION, model_id=MODEL)
    for start in range(0, len(made), 1000):
        await store.upsert(made[start : start + 1000])
    await store.close()


def holds(root: Path, text: str) -> bool:
    needle = text.encode()
    return any(p.is_file() and needle in p.read_bytes() for p in root.rglob("*"))


async def timed_delete(source: Path, work: Path, *, compact: bool) -> float:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work)
    store = QdrantEdgeStore(work)
    await store.setup(dimension=DIMENSION, model_id=MODEL)
    scope = RecallScope(chat_id="chat-0", tenant="bench", incarnation="i")
    started = time.perf_counter()
    await store.delete(scope)
    if compact:
        await store.compact()
    elapsed = time.perf_counter() - started
    await store.close()
    return elapsed


async def run(sizes: list[int], per_chat: int, repeat: int) -> None:
    rng = np.random.default_rng(7)
    header = f"{'points':>8} {'delete ms':>10} {'+compact ms':>12} {'ratio':>7}"
    print(f"{header}  text left (delete / +compact)")
    for total in sizes:
        made = points(total, per_chat, rng)
        victim = str(made[0].payload["content"]).split()[3]
        with tempfile.TemporaryDirectory() as tmp:
            source, work = Path(tmp) / "source", Path(tmp) / "work"
            await build(source, made)
            plain = [await timed_delete(source, work, compact=False) for _ in range(repeat)]
            left_plain = holds(work, victim)
            full = [await timed_delete(source, work, compact=True) for _ in range(repeat)]
            left_full = holds(work, victim)
        base, complete = statistics.median(plain), statistics.median(full)
        print(
            f"{total:>8} {base * 1000:>10.1f} {complete * 1000:>12.1f} {complete / base:>7.1f}x"
            f"  {left_plain} / {left_full}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--turns-per-chat", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    asyncio.run(run(sizes, args.turns_per_chat, args.repeat))


if __name__ == "__main__":
    main()
