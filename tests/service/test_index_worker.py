"""The background indexer's loop: a backlog runs batch after batch, with no pause between."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import pytest

from longtalk.engine import MemoryEngine
from longtalk.recall.outbox import IndexRun
from longtalk.service import index_worker
from longtalk.service.index_worker import IndexWorker
from longtalk.service.metrics import ServiceMetrics


class BacklogEngine:
    """An engine whose outbox holds ``batches`` runs of work; appends arrive during each run."""

    indexes = True

    def __init__(self, batches: int) -> None:
        self.left = batches
        self.runs = 0
        self.worker: IndexWorker | None = None

    async def index_pending(self, *, chat_ids: Sequence[str] | None = None) -> IndexRun:
        self.runs += 1
        if self.left == 0:
            return IndexRun()
        self.left -= 1
        assert self.worker is not None
        self.worker.notify()  # a client appended while this batch was embedded
        return IndexRun(turns=8, chats=2)


async def test_a_backlog_is_indexed_run_after_run_without_gathering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index_worker, "GATHER_SECONDS", 3600.0)  # a pause would never end here
    engine = BacklogEngine(batches=5)
    worker = IndexWorker(cast(MemoryEngine, engine), ServiceMetrics())
    engine.worker = worker
    worker.start()
    try:
        await asyncio.wait_for(worker.drain(), timeout=30)
    finally:
        await worker.stop()
    assert engine.left == 0
    assert engine.runs == 6  # five batches, then one run that found nothing


async def test_an_idle_worker_woken_by_an_append_lets_appends_gather(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index_worker, "GATHER_SECONDS", 0.05)
    monkeypatch.setattr(index_worker, "IDLE_SECONDS", 3600.0)
    engine = BacklogEngine(batches=0)
    worker = IndexWorker(cast(MemoryEngine, engine), ServiceMetrics())
    engine.worker = worker
    slept: list[Any] = []
    sleep = asyncio.sleep

    async def recording_sleep(seconds: float) -> None:
        slept.append(seconds)
        await sleep(seconds)

    monkeypatch.setattr(index_worker.asyncio, "sleep", recording_sleep)
    worker.start()
    try:
        await asyncio.wait_for(worker.drain(), timeout=30)  # the start-up run: nothing to do
        engine.left = 1
        worker.notify()
        await asyncio.wait_for(worker.drain(), timeout=30)
    finally:
        await worker.stop()
    assert slept == [0.05]  # one gathering pause: after the idle worker was woken
    assert engine.left == 0
