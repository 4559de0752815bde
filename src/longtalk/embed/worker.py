"""The child process of :mod:`longtalk.embed.process`: MiniLM for another process's background.

Run as ``python -m longtalk.embed.worker``. The first line of stdin is a JSON object: the
socket ``address`` to listen on, its ``authkey`` (hex), the model ``directory``, the
``backend`` and the parent's ``nice`` value. The child takes the parent's priority back
(a child started from a niced thread inherits that thread's), loads the model, listens,
and serves each connection in its own thread: the first message says whether the caller
is ``catching_up`` or ``background``, and the serving thread takes the same priority; then
each request ``(texts, threads, batch_tokens)`` is answered ``("ok", vectors)`` or
``("error", message)``. A connection proves the key in its own thread, within
``HANDSHAKE_SECONDS``: a peer that stays silent holds up no one and is dropped. The child
exits when its stdin reaches end of input (the parent closed it or is gone, however it
ended) and removes the socket's directory first.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import threading
from multiprocessing import AuthenticationError
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge
from pathlib import Path
from typing import Any

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.embed.priority import lower_priority, mark_catching_up
from longtalk.embed.process import CATCHING_UP, HANDSHAKE_SECONDS, SOCKET_DIR_PREFIX, bound


class _Models:
    """One in-process embedder per (threads, batch_tokens) a parent asks for."""

    def __init__(self, directory: Path, backend: str) -> None:
        self._directory = directory
        self._backend = backend
        self._lock = threading.Lock()
        self._embedders: dict[tuple[int, int], MiniLMEmbedder] = {}

    def get(self, threads: int, batch_tokens: int) -> MiniLMEmbedder:
        with self._lock:
            key = (threads, batch_tokens)
            if key not in self._embedders:
                self._embedders[key] = MiniLMEmbedder(
                    directory=self._directory,
                    backend=self._backend,
                    threads=threads,
                    batch_tokens=batch_tokens,
                    background="thread",
                )
            return self._embedders[key]


def _serve(connection: Connection, models: _Models) -> None:
    with connection:
        try:
            kind = connection.recv()
        except (EOFError, OSError):
            return
        if kind == CATCHING_UP:
            mark_catching_up()
        else:
            lower_priority()
        while True:
            try:
                texts, threads, batch_tokens = connection.recv()
            except (EOFError, OSError):
                return
            answer: tuple[str, Any]
            try:
                answer = ("ok", models.get(threads, batch_tokens).embed(texts))
            except Exception as exc:  # the parent re-raises it as an EmbeddingError
                answer = ("error", str(exc))
            try:
                connection.send(answer)
            except OSError:
                return


def _accept(listener: socket.socket, authkey: bytes, models: _Models) -> None:
    while True:
        try:
            sock, _ = listener.accept()
        except OSError:
            continue
        connection = Connection(sock.detach())
        args = (connection, authkey, models)
        threading.Thread(target=_admit, args=args, daemon=True).start()


def _admit(connection: Connection, authkey: bytes, models: _Models) -> None:
    """Serve ``connection`` once it proved the key within ``HANDSHAKE_SECONDS``."""
    try:
        bound(connection, HANDSHAKE_SECONDS)
        deliver_challenge(connection, authkey)
        answer_challenge(connection, authkey)
        bound(connection, 0)
    except (OSError, EOFError, AuthenticationError):  # silent, slow or without the key
        connection.close()
        return
    _serve(connection, models)


def _listen(address: str) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    return listener


def main() -> None:
    """Serve embeddings until stdin closes (see the module docstring)."""
    spec = json.loads(sys.stdin.buffer.readline())
    with contextlib.suppress(OSError):  # raising priority back may not be permitted
        os.setpriority(os.PRIO_PROCESS, 0, int(spec["nice"]))
    models = _Models(Path(spec["directory"]), str(spec["backend"]))
    models.get(1, 2048).embed(["ready"])  # load the model before anyone connects
    folder = Path(spec["address"]).parent
    try:
        listener = _listen(spec["address"])
        args = (listener, bytes.fromhex(spec["authkey"]), models)
        threading.Thread(target=_accept, args=args, daemon=True).start()
        sys.stdin.buffer.read()  # until the parent closes stdin or exits
    finally:
        if folder.name.startswith(SOCKET_DIR_PREFIX):  # the parent may not live to do it
            shutil.rmtree(folder, ignore_errors=True)
    os._exit(0)  # serving threads may be mid-call; nothing of theirs needs flushing


if __name__ == "__main__":
    main()
