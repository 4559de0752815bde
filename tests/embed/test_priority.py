"""Background embedding threads run below the request path's CPU priority."""

from __future__ import annotations

import asyncio
import os
import threading

import numpy as np
import pytest

from longtalk.embed import minilm, priority
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.embed.priority import (
    BACKGROUND_NICE,
    in_background,
    is_background,
    lower_priority,
)


def niceness() -> int:
    """The calling thread's nice value."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def lowered(base: int) -> int:
    return min(19, base + BACKGROUND_NICE)


def lowered_in_a_new_thread() -> tuple[int, bool]:
    """``lower_priority()`` in a new thread: that thread's nice value and background mark."""
    seen: list[tuple[int, bool]] = []

    def background() -> None:
        lower_priority()
        seen.append((niceness(), is_background()))

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    return seen[0]


def test_lower_priority_changes_only_the_calling_thread() -> None:
    base = niceness()
    seen = [lowered_in_a_new_thread()]
    assert BACKGROUND_NICE > 0
    assert seen == [(lowered(base), True)]
    assert (niceness(), is_background()) == (base, False)  # this thread is unchanged


def test_in_background_runs_in_a_niced_thread() -> None:
    base = niceness()

    async def run() -> tuple[int, int]:
        return await in_background(niceness), niceness()

    assert asyncio.run(run()) == (lowered(base), base)


def test_a_bulk_call_runs_at_its_callers_priority() -> None:
    """The chunks of a big call run niced only when a background thread made the call."""
    base = niceness()
    seen: dict[str, set[int]] = {"background": set(), "foreground": set()}
    real = minilm._unit

    def recording_unit(pooled: np.ndarray) -> np.ndarray:
        caller = (
            "background"
            if threading.current_thread().name.startswith("minilm-background")
            else "foreground"
        )
        seen[caller].add(niceness())
        return real(pooled)

    embedder = MiniLMEmbedder(threads=2, background="thread")  # the child runs the same code
    texts = [f"sentence number {i} about the trip to Lisbon in May" for i in range(200)]
    minilm._unit = recording_unit  # type: ignore[assignment]
    try:
        foreground = embedder.embed(texts)

        async def in_the_background() -> np.ndarray:
            return await in_background(embedder.embed, texts)

        background = asyncio.run(in_the_background())
    finally:
        minilm._unit = real  # type: ignore[assignment]
    assert seen == {"background": {lowered(base)}, "foreground": {base}}
    np.testing.assert_allclose(background, foreground, atol=1e-6)  # the same vectors


def test_background_nice_zero_keeps_the_process_priority(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(priority, "BACKGROUND_NICE", 0)
    base = niceness()
    seen = [lowered_in_a_new_thread()]
    assert seen == [(base, True)]


def test_summaries_run_niced_in_their_own_pool_beside_a_busy_indexer() -> None:
    """A summary never queues behind an indexing run (each kind has its own niced threads)."""
    base = niceness()
    release = threading.Event()

    def long_indexing_run() -> str:
        release.wait(10)
        return threading.current_thread().name

    def summary_work() -> tuple[str, int]:
        return threading.current_thread().name, niceness()

    async def run() -> tuple[tuple[str, int], str]:
        indexing = asyncio.ensure_future(in_background(long_indexing_run))
        await asyncio.sleep(0.05)  # the indexing thread is busy
        summary = await asyncio.wait_for(in_background(summary_work, pool=priority.SUMMARIES), 5)
        release.set()
        return summary, await indexing

    (summary_thread, summary_nice), indexing_thread = asyncio.run(run())
    assert summary_nice == lowered(base)
    assert summary_thread.startswith("longtalk-summaries")
    assert indexing_thread.startswith("longtalk-indexing")


async def test_the_offline_summarizer_works_at_background_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from longtalk.core.messages import assistant, user
    from longtalk.summary.offline import OfflineSummaryWriter

    seen: list[int] = []
    summarizer = OfflineSummaryWriter()
    real = summarizer.summarize

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(niceness())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(summarizer, "summarize", recording)
    base = niceness()
    messages = [user("Maya booked a flight to Lisbon for May."), assistant("Lovely, Alfama!")]
    draft = await summarizer.extend(None, messages, structured=True)
    assert seen == [lowered(base)] and "Lisbon" in draft.summary.model_dump_json()


def chunk_nice_values(embedder: MiniLMEmbedder, texts: list[str]) -> tuple[set[int], np.ndarray]:
    """Embed ``texts`` from a thread that is catching up: each chunk's nice value, the vectors."""
    seen: set[int] = set()
    real = minilm._unit

    def recording_unit(pooled: np.ndarray) -> np.ndarray:
        seen.add(niceness())
        return real(pooled)

    async def catching_up_call() -> np.ndarray:
        with priority.catching_up():
            return await asyncio.wait_for(in_background(embedder.embed, texts), 30)

    minilm._unit = recording_unit  # type: ignore[assignment]
    try:
        vectors = asyncio.run(catching_up_call())
    finally:
        minilm._unit = real  # type: ignore[assignment]
    return seen, vectors


TEXTS = [f"sentence number {i} about the trip to Lisbon in May, and the budget" for i in range(400)]


def test_a_call_that_is_catching_up_works_at_its_priority_with_niced_helpers() -> None:
    """One thread's fair share at the process's priority; the other chunks go to niced helpers."""
    base = niceness()
    embedder = MiniLMEmbedder(threads=2, batch_tokens=512, background="thread")
    seen, vectors = chunk_nice_values(embedder, TEXTS)
    assert seen == {base, lowered(base)}
    np.testing.assert_allclose(vectors, embedder.embed(TEXTS), atol=1e-6)


def test_a_busy_helper_pool_cannot_hold_up_a_call_that_is_catching_up() -> None:
    """With every niced helper busy, the calling thread embeds every chunk itself."""
    base = niceness()
    embedder = MiniLMEmbedder(threads=2, batch_tokens=512, background="thread")
    release = threading.Event()
    busy = minilm._executor(1, background=True).submit(release.wait, 30)
    try:
        seen, vectors = chunk_nice_values(embedder, TEXTS)
    finally:
        release.set()
        busy.result()
    assert seen == {base}
    np.testing.assert_allclose(vectors, embedder.embed(TEXTS), atol=1e-6)
