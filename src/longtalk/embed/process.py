"""Background embedding in a child process, so that it never holds this process's GIL.

Niced threads yield the CPU but not the interpreter lock: the Python and numpy parts of a
background embedding (tokenizer hand-offs, attention, pooling) still took turns with the
event loop, and under a saturating load appends waited behind indexing and offline
summaries. A child process is scheduled by the kernel alone, so its niceness means what
it says.

The child (:mod:`longtalk.embed.worker`) is started on the first background call, loads the
model once and serves each calling thread over its own connection (a Unix socket with a
random key), in a thread of the same kind: niced for niced callers, at the process's own
priority for work that is catching up (:mod:`longtalk.embed.priority`). If it cannot start,
dies or hangs, the call embeds in this process as before and a new child is tried after
``RETRY_SECONDS``; a child found dead is replaced the same way, with the same warning.
The child exits when this process does (its stdin closes), however it ends, and removes
the socket's directory as it goes; directories left by parents that are gone (both killed)
are removed when the next child starts.

Each connection proves the key within ``HANDSHAKE_SECONDS``, in a thread of its own in the
child: a local peer that connects and says nothing delays no one else.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from multiprocessing import AuthenticationError
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge
from pathlib import Path

import numpy as np
import numpy.typing as npt

from longtalk.errors import EmbeddingError

__all__ = ["BACKGROUND_ENV", "MODES", "RETRY_SECONDS", "BackgroundProcess", "process_for"]

BACKGROUND_ENV = "LONGTALK_EMBED_BACKGROUND"
MODES = ("process", "thread")
"""Where background embeddings run: a child process, or this process's niced threads."""
RETRY_SECONDS = 30.0
"""How long after a failed child the next one is tried (calls embed in process meanwhile)."""
START_SECONDS = 120.0
"""How long a new child may take to load the model and listen."""
CALL_SECONDS = 600.0
"""How long one call may take before the child counts as hung."""
HANDSHAKE_SECONDS = 5.0
"""How long each side of a new connection may take to prove the key before it is dropped."""
SOCKET_DIR_PREFIX = "longtalk-embed-"
"""The socket directory's name starts with this, then the parent's process id and ``-``."""
CATCHING_UP = "catching_up"
BACKGROUND = "background"

_log = logging.getLogger(__name__)


class BackgroundProcess:
    """The child process that embeds for this process's background threads."""

    def __init__(self, directory: Path, backend: str) -> None:
        self._directory = directory
        self._backend = backend
        self._lock = threading.Lock()
        self._local = threading.local()
        self._child: subprocess.Popen[bytes] | None = None
        self._address = ""
        self._authkey = b""
        self._tmp: Path | None = None
        self._generation = 0
        self._failed_at: float | None = None

    def embed(
        self, texts: Sequence[str], *, catching_up: bool, threads: int, batch_tokens: int
    ) -> npt.NDArray[np.float32] | None:
        """The vectors from the child, or None when there is no working child.

        Raises:
            EmbeddingError: the child embedded and failed (the same error in process).
        """
        held = self._connection(catching_up)
        if held is None:
            return None
        generation, connection = held
        try:
            connection.send((list(texts), threads, batch_tokens))
            if not connection.poll(CALL_SECONDS):
                raise TimeoutError(f"no answer in {CALL_SECONDS:.0f} s")
            status, value = connection.recv()
        except (OSError, EOFError, TimeoutError) as exc:
            self._failed(exc, generation)
            return None
        if status != "ok":
            raise EmbeddingError(str(value))
        vectors: npt.NDArray[np.float32] = value
        return vectors

    def _connection(self, catching_up: bool) -> tuple[int, Connection] | None:
        """The calling thread's connection to a live child (started if need be), or None."""
        generation = self._start()
        if generation is None:
            return None
        held: tuple[int, Connection] | None = getattr(self._local, "held", None)
        if held is not None:
            if held[0] == generation:
                return held
            held[1].close()  # to a child that is gone
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                connection = connect(self._address, self._authkey)
                connection.send(CATCHING_UP if catching_up else BACKGROUND)
            except (OSError, EOFError, AuthenticationError) as exc:
                child = self._child
                if child is None or child.poll() is not None or time.monotonic() > deadline:
                    self._failed(exc, generation)
                    return None
                time.sleep(0.05)  # the child is still loading the model
                continue
            self._local.held = (generation, connection)
            return generation, connection

    def _start(self) -> int | None:
        """The generation of the running child, starting one if allowed; None if none."""
        if os.name != "posix":  # no Unix sockets nor thread priorities: embed in process
            return None
        with self._lock:
            if self._child is not None and self._child.poll() is None:
                return self._generation
            if self._child is not None:  # died between calls: replaced as documented
                self._lost(f"it exited with status {self._child.returncode}")
                return None
            failed_at = self._failed_at
            if failed_at is not None and time.monotonic() - failed_at < RETRY_SECONDS:
                return None
            try:
                self._spawn()
            except OSError as exc:
                _log.warning("cannot start the embedding process (%s); embedding in process", exc)
                self._failed_at = time.monotonic()
                return None
            self._generation += 1
            return self._generation

    def _spawn(self) -> None:
        self._stop()
        remove_stale_directories()
        self._tmp = Path(tempfile.mkdtemp(prefix=f"{SOCKET_DIR_PREFIX}{os.getpid()}-"))
        self._address = str(self._tmp / "socket")
        self._authkey = os.urandom(32)
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.environ.get("PYTHONPATH")
        env = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [package_root, path]))}
        self._child = subprocess.Popen(
            [sys.executable, "-m", "longtalk.embed.worker"],
            stdin=subprocess.PIPE,
            env=env,
            close_fds=True,
        )
        spec = {
            "address": self._address,
            "authkey": self._authkey.hex(),
            "directory": str(self._directory),
            "backend": self._backend,
            "nice": os.getpriority(os.PRIO_PROCESS, os.getpid()),
        }
        assert self._child.stdin is not None
        self._child.stdin.write(json.dumps(spec).encode() + b"\n")
        self._child.stdin.flush()

    def _failed(self, exc: BaseException, generation: int) -> None:
        """Give up the child of ``generation`` (not a newer one another thread started)."""
        with self._lock:
            if generation != self._generation:
                return
            self._lost(f"{type(exc).__name__}: {exc}")

    def _lost(self, why: str) -> None:
        """Warn, give the child up, and try a new one after ``RETRY_SECONDS`` (lock held)."""
        _log.warning(
            "the embedding process failed (%s); embedding in this process, "
            "a new one is tried in %.0f s",
            why,
            RETRY_SECONDS,
        )
        self._failed_at = time.monotonic()
        self._generation += 1
        self._stop()

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            with contextlib.suppress(OSError):
                if child.stdin is not None:
                    child.stdin.close()  # the child exits on end of input
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def close(self) -> None:
        """Stop the child (a later call starts a new one, whatever failed before)."""
        with self._lock:
            self._generation += 1
            self._failed_at = None
            self._stop()

    @property
    def pid(self) -> int | None:
        """The running child's process id, if any."""
        child = self._child
        return child.pid if child is not None and child.poll() is None else None


def connect(address: str, authkey: bytes, timeout: float = HANDSHAKE_SECONDS) -> Connection:
    """A connection to the child that proved the key both ways within ``timeout`` seconds.

    ``multiprocessing.connection.Client`` waits without a bound on a child that does not
    answer; here connecting and each side of the handshake are bounded.
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
        sock.settimeout(None)
    except OSError:
        sock.close()
        raise
    connection = Connection(sock.detach())
    try:
        bound(connection, timeout)
        answer_challenge(connection, authkey)
        deliver_challenge(connection, authkey)
        bound(connection, 0)
    except BaseException:
        connection.close()
        raise
    return connection


def bound(connection: Connection, seconds: float) -> None:
    """Bound each read and write on ``connection`` by ``seconds`` (0: no bound).

    A read or write past it raises ``OSError`` (the socket's own timeouts, so the
    connection's blocking reads need no change).
    """
    whole = int(seconds)
    value = struct.pack("ll", whole, int((seconds - whole) * 1_000_000))
    with socket.socket(fileno=os.dup(connection.fileno())) as sock:  # closes the copy only
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)


def remove_stale_directories(folder: Path | None = None) -> list[Path]:
    """Remove the socket directories of parents that are gone; the ones removed.

    A directory is named ``longtalk-embed-<parent pid>-…``: it is stale when that process
    no longer runs (its child removes it on the way out, unless both were killed). Only
    this user's directories are touched.
    """
    removed = []
    root = folder or Path(tempfile.gettempdir())
    for path in root.glob(f"{SOCKET_DIR_PREFIX}*"):
        pid = path.name[len(SOCKET_DIR_PREFIX) :].partition("-")[0]
        with contextlib.suppress(OSError):
            if path.is_dir() and path.stat().st_uid == os.getuid() and not _alive(pid):
                shutil.rmtree(path)
                removed.append(path)
    return removed


def _alive(pid: str) -> bool:
    """True when ``pid`` names a running process (an unreadable name counts as running)."""
    if not pid.isdigit():
        return True  # not ours to judge
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_processes: dict[tuple[Path, str], BackgroundProcess] = {}
_processes_lock = threading.Lock()


def process_for(directory: Path, backend: str) -> BackgroundProcess:
    """The one background process of this model directory and backend."""
    with _processes_lock:
        key = (directory, backend)
        if key not in _processes:
            _processes[key] = BackgroundProcess(directory, backend)
        return _processes[key]


@atexit.register
def _close_all() -> None:
    with _processes_lock:
        for process in _processes.values():
            process.close()
