"""A full disk under the embedded vector store fails the write cleanly; the process lives on.

The shard writes through memory maps, where running out of disk is a SIGBUS that kills the
process: the store checks free space before every write instead. The test mounts a small
tmpfs (the tests run as root); where mounting is not allowed it asks for more free space
than the disk has, which takes the same path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.errors import VectorStoreError
from longtalk.vectors.base import RecallScope, VectorPoint
from longtalk.vectors.qdrant_edge import QdrantEdgeStore

RESERVE = 24 * 1024 * 1024
SCOPE = RecallScope(chat_id="c", tenant="t")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[tuple[Path, bool]]:
    """A 96 MiB file system of its own, and whether it is a real mount."""
    mount = tmp_path / "small"
    mount.mkdir()
    mounted = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    try:
        yield mount, mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path, leave: int) -> Path:
    """Write a file that leaves ``leave`` bytes free on ``directory``'s file system."""
    filler = directory / "filler"
    size = max(0, shutil.disk_usage(directory).free - leave)
    with filler.open("wb") as out:
        chunk = b"\0" * (1024 * 1024)
        while size > 0:
            size -= out.write(chunk[: min(len(chunk), size)])
        out.flush()
        os.fsync(out.fileno())
    return filler


async def test_a_full_disk_fails_the_write_and_recovers_when_space_is_back(
    small_disk: tuple[Path, bool],
    embedder: MiniLMEmbedder,
    make_point: Callable[..., VectorPoint],
) -> None:
    mount, mounted = small_disk
    store = QdrantEdgeStore(mount / "vectors", min_free_bytes=RESERVE)
    await store.setup(dimension=embedder.dimension, model_id=embedder.model_id)
    await store.upsert([make_point(SCOPE, 1, "the first turn")])
    if mounted:
        filler = fill(mount, RESERVE // 2)
    else:  # no mount here: ask for more than the disk has
        store.min_free_bytes = shutil.disk_usage(mount).free + 1
    with pytest.raises(VectorStoreError, match="free disk space"):
        await store.upsert([make_point(SCOPE, 2, "a turn the disk has no room for")])
    assert await store.count() == 1  # the store still answers; the process is alive
    if mounted:
        filler.unlink()
    store.min_free_bytes = RESERVE
    await store.upsert([make_point(SCOPE, 2, "a turn the disk has no room for")])
    assert await store.count() == 2
    await store.close()
