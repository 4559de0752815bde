"""Background embedding below the request path's CPU priority.

Indexing embeds thousands of tokens per call in the background while a request or a query
waits on a few milliseconds of Python; on a busy machine the bulk threads took the CPU
from the event loop, and appends and context reads waited behind them. Work handed to
:func:`in_background` runs in a thread that is niced (Linux schedules threads as tasks,
each with its own nice value), and the embedder runs the chunks of a call made from such
a thread in niced threads too. Background work then gets whatever CPU the rest of the
machine leaves: all of it when nothing else runs. Calls from other threads (a query, the
semantic truncation of a context) keep the process's priority.

There is one niced pool per kind of background work (``INDEXING``, ``SUMMARIES``), so a
summary job never queues behind a long indexing run, nor the reverse.

Niced work gets only what the requests leave, and under a load that never lets up that can
be nothing: its backlog would grow without bound. Work that has fallen behind therefore
runs under :func:`catching_up`, in one thread per kind at the process's own priority: it
takes one thread's fair share, requests slow a little, and the backlog stops growing. The
embedder shares a bulk call from such a thread between that thread and niced helpers, so
an idle machine still lends every core and a busy one gives up no more than that share.
The caller decides when it is behind (the recall indexer: more turns wait than one run
embeds).

By default the embeddings themselves run in a child process (:mod:`longtalk.embed.process`),
in a thread of the caller's kind, so these rules hold there while this process's
interpreter lock stays with the requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

BACKGROUND_NICE = 10
"""How many nice levels below the process background threads run (capped at 19)."""

INDEXING = "indexing"
"""The pool of the recall indexer (one thread: its calls fan out to the embedder's threads)."""
SUMMARIES = "summaries"
"""The pool of offline summaries (their sentence embeddings and scoring)."""
POOL_THREADS = {INDEXING: 1, SUMMARIES: 2}

_lock = threading.Lock()
_local = threading.local()
_executors: dict[tuple[str, bool], ThreadPoolExecutor] = {}
_behind: ContextVar[bool] = ContextVar("longtalk_background_behind", default=False)


def lower_priority(step: int | None = None) -> None:
    """Mark the calling thread as background and run it ``step`` nice levels lower.

    ``step`` defaults to ``BACKGROUND_NICE`` (read at the call). The level is relative to
    the process (its main thread), not to the thread's own: a thread inherits the level of
    the thread that started it. Capped at 19. Only Linux gives threads their own nice
    values; elsewhere (or when not permitted) only the mark is set.
    """
    _local.background = True
    step = BACKGROUND_NICE if step is None else step
    if step <= 0 or not sys.platform.startswith("linux"):  # elsewhere a thread id is no pid
        return
    with contextlib.suppress(OSError):
        process = os.getpriority(os.PRIO_PROCESS, os.getpid())
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, process + step))


def is_background() -> bool:
    """Whether the calling thread runs background work (see :func:`lower_priority`)."""
    return bool(getattr(_local, "background", False))


def mark_catching_up() -> None:
    """Mark the calling thread as running background work that has fallen behind."""
    _local.catching_up = True


def is_catching_up() -> bool:
    """Whether the calling thread runs background work that has fallen behind."""
    return bool(getattr(_local, "catching_up", False))


def background_executor(pool: str = INDEXING) -> ThreadPoolExecutor:
    """The niced threads of one kind of background work (created on first use)."""
    return _executor(pool, niced=True)


def _executor(pool: str, *, niced: bool) -> ThreadPoolExecutor:
    with _lock:
        key = (pool, niced)
        if key not in _executors:
            _executors[key] = ThreadPoolExecutor(
                POOL_THREADS.get(pool, 1) if niced else 1,
                f"longtalk-{pool}" if niced else f"longtalk-{pool}-catching-up",
                initializer=lower_priority if niced else mark_catching_up,
            )
        return _executors[key]


@contextlib.contextmanager
def catching_up(behind: bool = True) -> Iterator[None]:
    """Background work started in this context runs at the process's priority if ``behind``."""
    token = _behind.set(behind)
    try:
        yield
    finally:
        _behind.reset(token)


async def in_background(fn: Callable[..., T], *args: object, pool: str = INDEXING) -> T:
    """Run ``fn(*args)`` in ``pool``'s niced threads (unprioritized when catching up)."""
    executor = _executor(pool, niced=not _behind.get())
    return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
