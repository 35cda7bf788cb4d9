"""Scenario for `test_vector_stale_heap.py`, run in its own process: fill freed heap memory with a marker,
then let the embedded index write its first table to a home.

argv: the home, then `product` (the index as Jiyi opens it) or `unwiped` (freed memory left as it was).
The allocator is set so that the marker's memory is the memory hnswlib gets: one arena for every thread,
no `mmap` and no trimming for chunks this size (what a long-running process comes to on its own).
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import store.core.freed_memory as freed_memory
from recall.embedders import HashEmbedder
from recall.vectors import Document, VectorIndex

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
MARKER = b"MARKER-84620390-"
CHUNK = 1 << 20


def main(home: Path, mode: str) -> None:
    libc = ctypes.CDLL(None)
    libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    libc.malloc.argtypes, libc.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
    libc.free.argtypes, libc.free.restype = [ctypes.c_void_p], None
    for option, value in ((M_TRIM_THRESHOLD, 256 << 20), (M_MMAP_THRESHOLD, 64 << 20), (M_ARENA_MAX, 1)):
        assert libc.mallopt(option, value) == 1, option
    if mode == "unwiped":
        freed_memory._state["on"] = False
    fill = MARKER * (CHUNK // len(MARKER))
    chunks = [libc.malloc(CHUNK) for _ in range(16)]
    for chunk in chunks:
        ctypes.memmove(chunk, fill, CHUNK)
    for chunk in chunks:
        libc.free(chunk)
    index = VectorIndex(home, HashEmbedder())
    documents = [Document(f"run-{n}", f"目标 {n}", {"device": "d1"}, str(n)) for n in range(3)]
    assert index.upsert("episode", "device:d1", documents) == 3


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
