"""The server gives freed heap memory back to the system (glibc's malloc_trim).

Run in a fresh interpreter with free()'s own trimming off, so the heap keeps what it freed
(as a thread's arena does) whatever state the imports left it in.
"""

from __future__ import annotations

import json
import subprocess
import sys

SCENARIO = """
import ctypes, json, os
from pathlib import Path
from longtalk.service import allocator

def heap_mb():
    for line in Path(f"/proc/{os.getpid()}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024

libc = allocator._libc()
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
M_TRIM_THRESHOLD = -1
libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)  # free() alone keeps what it frees, as an arena does
before = heap_mb()
blocks = [libc.malloc(64 * 1024) for _ in range(640)]  # 40 MB, below mmap's threshold
for block in blocks:
    libc.memset(block, 1, 64 * 1024)
for block in blocks:
    libc.free(block)
kept = heap_mb()
trimmed = allocator.trim()
print(json.dumps({"before": before, "kept": kept, "trimmed": trimmed, "after": heap_mb(),
                  "arenas": allocator.limit_arenas()}))
"""


def test_freed_memory_kept_by_malloc_goes_back_when_trimmed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO], capture_output=True, text=True, check=True, timeout=60
    )
    heap = json.loads(done.stdout)
    assert heap["kept"] >= heap["before"] + 30  # freed, yet resident
    assert heap["trimmed"] and heap["after"] <= heap["kept"] - 30  # given back
    assert heap["arenas"]
