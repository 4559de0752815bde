"""Per-thread BLAS thread count for numpy's bundled OpenBLAS (a no-op elsewhere).

A query embeds a dozen tokens: splitting its small products over two BLAS threads costs
more in hand-offs than it saves, and on a busy machine it costs a lot more. OpenBLAS
(0.3.27+) can limit the threads of the *calling* thread only, which leaves every other
numpy user in the process alone; numpy's wheels bundle that OpenBLAS.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

_lock = threading.Lock()
_setter: list[Callable[[int], int] | None] = []


def _find() -> Callable[[int], int] | None:
    import numpy

    libs = Path(numpy.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(libs.glob("libscipy_openblas*.so*")):
        try:
            function = ctypes.CDLL(str(path)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        function.argtypes = [ctypes.c_int]
        function.restype = ctypes.c_int
        return function
    return None


def thread_setter() -> Callable[[int], int] | None:
    """``openblas_set_num_threads_local`` (returns the previous count), or None."""
    with _lock:
        if not _setter:
            _setter.append(_find())
        return _setter[0]


@contextlib.contextmanager
def blas_threads(count: int | None) -> Iterator[None]:
    """Run the block with ``count`` BLAS threads in this thread (None: unchanged)."""
    setter = thread_setter() if count else None
    if setter is None or count is None:
        yield
        return
    previous = setter(count)
    try:
        yield
    finally:
        setter(previous)
