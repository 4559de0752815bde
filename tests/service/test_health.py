"""/healthz tells the truth part by part: a full disk, a vector store that failed to open."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from longtalk.config import Settings
from longtalk.service import create_app
from longtalk.vectors.qdrant_edge import QdrantEdgeStore


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs of its own (the tests run as root)."""
    mount = tmp_path / "small"
    mount.mkdir()
    command = ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)]
    subprocess.run(command, check=True, capture_output=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(directory: Path) -> Path:
    """A file that takes every free byte of ``directory``'s file system."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as out:
        for size in (65536, 4096, 512, 1):
            try:
                while out.write(b"\0" * size):
                    pass
            except OSError:  # no space left for this size: try smaller
                continue
    return filler


async def healthz(settings: Settings, *between: Any) -> list[httpx.Response]:
    """``/healthz`` once, then once after each action in ``between`` (given the client)."""
    app = create_app(settings)
    answers = []
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            answers.append(await client.get("/healthz"))
            for action in between:
                await action(client)
                answers.append(await client.get("/healthz"))
    return answers


async def test_a_full_sqlite_disk_is_degraded_and_recovers(small_disk: Path) -> None:
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(small_disk / "longtalk.db")},
            "supervisor": {"memory": {"strategy": "running_summary"}},
        }
    )
    filler: list[Path] = []

    async def fill_the_disk(client: httpx.AsyncClient) -> None:
        chat = (await client.post("/chats", json={"id": "kept"})).json()["id"]
        filler.append(fill(small_disk))
        body = {"messages": [{"role": "user", "content": "x" * 4000}] * 20}
        while (await client.post(f"/chats/{chat}/messages", json=body)).status_code == 201:
            pass  # the database fills what the filler left

    async def free_the_disk(client: httpx.AsyncClient) -> None:
        filler[0].unlink()

    before, full, after = await healthz(settings, fill_the_disk, free_the_disk)
    assert before.json()["status"] == "ok" and before.json()["checks"]["storage"]["writable"]
    assert full.status_code == 200 and full.json()["status"] == "degraded"
    storage = full.json()["checks"]["storage"]
    assert storage["status"] == "degraded"
    assert storage["readable"] is True and storage["writable"] is False
    assert "full" in storage["error"]
    assert after.json()["status"] == "ok", after.json()


async def test_a_vector_store_that_failed_to_open_is_degraded(tmp_path: Path) -> None:
    in_the_way = tmp_path / "vectors"
    in_the_way.write_text("not a directory")
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "vectors": {"url": f"qdrant-edge:{in_the_way}"},
        }
    )
    (answer,) = await healthz(settings)
    assert answer.status_code == 200 and answer.json()["status"] == "degraded"
    vectors = answer.json()["checks"]["vectors"]
    assert vectors["status"] == "down" and str(in_the_way) in vectors["error"]
    assert answer.json()["checks"]["storage"]["status"] == "ok"


async def test_a_vector_store_without_disk_space_is_degraded(tmp_path: Path) -> None:
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}"},
        }
    )
    free = shutil.disk_usage(tmp_path).free

    async def ask_for_more_than_the_disk_has(client: httpx.AsyncClient) -> None:
        store = client._transport.app.state.service.engine.recall.store  # type: ignore[attr-defined]
        assert isinstance(store, QdrantEdgeStore)
        store.min_free_bytes = free * 2

    ok, short = await healthz(settings, ask_for_more_than_the_disk_has)
    assert ok.json()["checks"]["vectors"]["status"] == "ok"
    assert short.json()["status"] == "degraded"
    vectors = short.json()["checks"]["vectors"]
    assert vectors["status"] == "down" and "free disk space" in vectors["error"]


async def test_storage_unreachable_is_down(tmp_path: Path) -> None:
    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "supervisor": {"memory": {"strategy": "running_summary"}},
        }
    )

    async def remove_the_directory(client: httpx.AsyncClient) -> None:
        storage = client._transport.app.state.service.engine.storage  # type: ignore[attr-defined]
        await storage.close()  # every connection gone; the file with it
        shutil.rmtree(tmp_path)
        tmp_path.write_text("the database's directory is now a file")

    _, gone = await healthz(settings, remove_the_directory)
    assert gone.status_code == 503 and gone.json()["status"] == "down"
    assert gone.json()["checks"]["storage"]["status"] == "down"
