"""The embedded Qdrant store serves one process: a second one is refused, by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from longtalk.errors import ConfigError
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

HOLDER = """
import asyncio, sys
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

async def main():
    store = QdrantEdgeStore(sys.argv[1])
    await store.setup(dimension=4, model_id="test-model")
    print("open", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    await store.close()

asyncio.run(main())
"""


async def test_a_second_process_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        second = QdrantEdgeStore(path)
        with pytest.raises(
            ConfigError, match=rf"already open \(lock held by pid {holder.pid}\).*pgvector"
        ):
            await second.setup(dimension=4, model_id="test-model")
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()
    assert holder.returncode == 0
    after = QdrantEdgeStore(path)  # the lock went with the process
    await after.setup(dimension=4, model_id="test-model")
    assert await after.count() == 0
    await after.close()
    again = QdrantEdgeStore(path)  # and close() released it within a process too
    await again.setup(dimension=4, model_id="test-model")
    await again.close()
