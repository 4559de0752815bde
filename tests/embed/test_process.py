"""Background embeddings run in a child process, which falls back, restarts and exits cleanly."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.embed.processes import gone

from longtalk.embed import minilm, priority, process
from longtalk.embed.minilm import MiniLMEmbedder, model_dir
from longtalk.errors import EmbeddingError, UnknownBackendError

TEXTS = [f"sentence number {i} about the trip to Lisbon in May, and the budget" for i in range(60)]


def child() -> process.BackgroundProcess:
    return process.process_for(model_dir(), "auto")


def in_background(embedder: MiniLMEmbedder, texts: list[str], *, behind: bool = False) -> object:
    async def call() -> object:
        with priority.catching_up(behind):
            return await asyncio.wait_for(priority.in_background(embedder.embed, texts), 120)

    return asyncio.run(call())


@pytest.fixture
def calls_here() -> Iterator[list[int]]:
    """How many texts each forward pass in this process embedded."""
    seen: list[int] = []
    real = minilm._unit

    def recording(pooled: np.ndarray) -> np.ndarray:
        seen.append(len(pooled))
        return real(pooled)

    minilm._unit = recording  # type: ignore[assignment]
    try:
        yield seen
    finally:
        minilm._unit = real  # type: ignore[assignment]


def task_nice_values(pid: int) -> set[int]:
    """The nice value of every thread of ``pid``."""
    values = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with open(task / "stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        values.add(int(fields[16]))  # field 19 of stat; the first two precede the ")"
    return values


def test_a_background_call_embeds_in_a_child_process(calls_here: list[int]) -> None:
    embedder = MiniLMEmbedder()
    background = in_background(embedder, TEXTS)
    assert calls_here == []  # nothing was embedded in this process
    pid = child().pid
    assert pid is not None and pid != os.getpid()
    foreground = embedder.embed(TEXTS)
    assert calls_here  # a foreground call embeds here
    np.testing.assert_allclose(background, foreground, atol=1e-5)


def test_the_thread_mode_embeds_in_this_process(calls_here: list[int]) -> None:
    in_background(MiniLMEmbedder(background="thread"), TEXTS)
    assert sum(calls_here) == len(TEXTS)


def test_the_child_serves_each_caller_at_that_callers_priority() -> None:
    embedder = MiniLMEmbedder()
    in_background(embedder, TEXTS)
    in_background(embedder, TEXTS, behind=True)
    pid = child().pid
    assert pid is not None
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert {base, min(19, base + priority.BACKGROUND_NICE)} <= task_nice_values(pid)


def test_a_child_that_dies_mid_call_falls_back_to_this_process_and_is_replaced(
    calls_here: list[int], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMEmbedder()
    expected = embedder.embed(TEXTS)
    in_background(embedder, TEXTS)
    running = child()
    first = running.pid
    assert first is not None and running._child is not None
    monkeypatch.setattr(running._child, "poll", lambda: None)  # not yet seen to be dead
    os.kill(first, signal.SIGKILL)
    assert gone(first, 10)
    calls_here.clear()
    with caplog.at_level(logging.WARNING, logger="longtalk.embed.process"):
        vectors = in_background(embedder, TEXTS)  # meets the dead socket
    np.testing.assert_allclose(vectors, expected, atol=1e-5)  # nothing lost
    assert sum(calls_here) == len(TEXTS)  # embedded here instead
    assert "embedding process failed" in caplog.text
    monkeypatch.setattr(process, "RETRY_SECONDS", 0.0)
    calls_here.clear()
    vectors = in_background(embedder, TEXTS)
    second = child().pid
    assert second is not None and second != first
    assert calls_here == []
    np.testing.assert_allclose(vectors, expected, atol=1e-5)


def test_a_child_that_cannot_start_leaves_the_embedding_here(
    calls_here: list[int],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    embedder = MiniLMEmbedder()
    expected = embedder.embed(TEXTS)
    child().close()
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    calls_here.clear()
    with caplog.at_level(logging.WARNING, logger="longtalk.embed.process"):
        vectors = in_background(embedder, TEXTS)
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    assert sum(calls_here) == len(TEXTS)
    assert "cannot start the embedding process" in caplog.text
    monkeypatch.undo()
    monkeypatch.setattr(process, "RETRY_SECONDS", 0.0)
    calls_here.clear()
    in_background(embedder, TEXTS)
    assert calls_here == [] and child().pid is not None


def test_an_error_in_the_child_is_an_embedding_error_and_the_child_lives_on() -> None:
    embedder = MiniLMEmbedder()
    in_background(embedder, TEXTS)
    pid = child().pid
    with pytest.raises(EmbeddingError, match="tokenization failed"):
        in_background(embedder, [None])  # type: ignore[list-item]
    assert child().pid == pid


def test_the_child_exits_with_its_parent(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, os
        from longtalk.embed import priority, process
        from longtalk.embed.minilm import MiniLMEmbedder, model_dir
        asyncio.run(priority.in_background(MiniLMEmbedder().embed, ["hello"]))
        print(process.process_for(model_dir(), "auto").pid, flush=True)
        os._exit(0)  # no clean-up: as if killed
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert gone(int(done.stdout.strip()), 10)


def test_an_unknown_mode_is_named() -> None:
    with pytest.raises(UnknownBackendError, match="process, thread"):
        MiniLMEmbedder(background="elsewhere")


def test_concurrent_background_callers_each_get_their_own_vectors() -> None:
    embedder = MiniLMEmbedder()
    batches = [[f"{n}: {text}" for text in TEXTS[:10]] for n in range(4)]
    results: dict[int, object] = {}

    def call(n: int) -> None:
        priority.lower_priority()
        results[n] = embedder.embed(batches[n])

    threads = [threading.Thread(target=call, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for n, batch in enumerate(batches):
        np.testing.assert_allclose(results[n], embedder.embed(batch), atol=1e-5)


@pytest.mark.parametrize(("setting", "here"), [("thread", True), ("process", False)])
def test_the_configuration_chooses_where_background_embeddings_run(
    setting: str, here: bool, calls_here: list[int]
) -> None:
    from longtalk.config import load_settings
    from longtalk.factory import embedder_for

    settings = load_settings(environ={"LONGTALK_VECTORS__BACKGROUND_EMBEDDING": setting})
    embedder = embedder_for(settings)
    assert isinstance(embedder, MiniLMEmbedder)
    in_background(embedder, TEXTS)
    assert (sum(calls_here) == len(TEXTS)) is here


def test_a_client_without_the_key_is_turned_away_and_the_child_serves_on() -> None:
    from multiprocessing import AuthenticationError
    from multiprocessing.connection import Client

    embedder = MiniLMEmbedder()
    expected = in_background(embedder, TEXTS[:5])
    pid = child().pid
    with pytest.raises((AuthenticationError, EOFError, OSError)):
        Client(child()._address, authkey=b"not the key")
    seen: list[object] = []

    def new_caller() -> None:  # a thread of its own: a new connection, accepted after that
        priority.lower_priority()
        seen.append(embedder.embed(TEXTS[:5]))

    thread = threading.Thread(target=new_caller)
    thread.start()
    thread.join(60)
    np.testing.assert_allclose(seen[0], expected, atol=1e-6)
    assert child().pid == pid


def test_the_socket_lives_where_only_this_user_can_enter() -> None:
    in_background(MiniLMEmbedder(), TEXTS[:2])
    folder = Path(child()._address).parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert folder.stat().st_uid == os.getuid()
