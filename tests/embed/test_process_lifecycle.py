"""The embedding child: a silent peer blocks no one, and no socket directory outlives its use."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from tests.embed.processes import gone

from longtalk.embed import priority, process
from longtalk.embed.minilm import MiniLMEmbedder, model_dir

TEXTS = [f"sentence number {i} about the trip to Lisbon in May" for i in range(8)]


def child() -> process.BackgroundProcess:
    return process.process_for(model_dir(), "auto")


def in_background(embedder: MiniLMEmbedder, texts: list[str]) -> object:
    async def call() -> object:
        return await asyncio.wait_for(priority.in_background(embedder.embed, texts), 120)

    return asyncio.run(call())


def test_a_silent_connection_does_not_delay_another_caller() -> None:
    embedder = MiniLMEmbedder()
    expected = in_background(embedder, TEXTS)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(child()._address)  # connects, never proves the key
    try:
        seen: list[object] = []

        def new_caller() -> None:  # a thread of its own: a new connection
            priority.lower_priority()
            seen.append(embedder.embed(TEXTS))

        started = time.monotonic()
        thread = threading.Thread(target=new_caller)
        thread.start()
        thread.join(60)
        took = time.monotonic() - started
        np.testing.assert_allclose(seen[0], expected, atol=1e-6)
        assert took < process.HANDSHAKE_SECONDS, took
        silent.settimeout(process.HANDSHAKE_SECONDS + 5)
        while silent.recv(4096):  # the child's challenge, then the end: it dropped the peer
            pass
    finally:
        silent.close()


def test_the_client_gives_up_on_a_peer_that_never_answers(tmp_path: Path) -> None:
    address = str(tmp_path / "mute")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen()
    try:
        started = time.monotonic()
        with pytest.raises(OSError):
            process.connect(address, b"k" * 32, timeout=0.5)
        assert time.monotonic() - started < 3
    finally:
        server.close()


def test_a_child_killed_between_calls_is_replaced_with_the_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMEmbedder()
    expected = in_background(embedder, TEXTS)
    first = child().pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert gone(first, 10)
    running = child()._child
    assert running is not None and running.wait(10) == -signal.SIGKILL  # seen dead before a call
    with caplog.at_level(logging.WARNING, logger="longtalk.embed.process"):
        vectors = in_background(embedder, TEXTS)  # embedded here, with the warning
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    assert "embedding process failed" in caplog.text and "exited" in caplog.text
    monkeypatch.setattr(process, "RETRY_SECONDS", 0.0)
    in_background(embedder, TEXTS)
    assert child().pid not in (None, first)


PARENT = textwrap.dedent(
    """
    import asyncio, sys, time
    from longtalk.embed import priority, process
    from longtalk.embed.minilm import MiniLMEmbedder, model_dir
    asyncio.run(priority.in_background(MiniLMEmbedder().embed, ["hello"]))
    print(process.process_for(model_dir(), "auto").pid, flush=True)
    time.sleep(600)
    """
)


def test_no_socket_directory_outlives_ten_parents_terminated_or_killed(tmp_path: Path) -> None:
    folder = tmp_path / "tmp"
    folder.mkdir()
    env = os.environ | {"TMPDIR": str(folder)}
    for cycle in range(10):
        command = [sys.executable, "-c", PARENT]
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as parent:
            assert parent.stdout is not None
            child_pid = int(parent.stdout.readline())
            assert list(folder.glob("longtalk-embed-*"))  # in use while the parent runs
            parent.send_signal(signal.SIGTERM if cycle % 2 == 0 else signal.SIGKILL)
            parent.wait(30)
        assert gone(child_pid, 10)
    assert list(folder.glob("longtalk-embed-*")) == []


def test_directories_of_parents_that_are_gone_are_removed_at_start(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f"longtalk-embed-{int(dead.stdout)}-abc"
    stale.mkdir()
    (stale / "socket").write_text("")
    alive = tmp_path / f"longtalk-embed-{os.getpid()}-def"
    alive.mkdir()
    foreign = tmp_path / "longtalk-embed-unknown"
    foreign.mkdir()
    assert process.remove_stale_directories(tmp_path) == [stale]
    assert not stale.exists() and alive.exists() and foreign.exists()
