"""Heap memory is wiped as it is freed and handed out, so no library can write an earlier text to a file.

hnswlib (inside Chroma) allocates its level-0 table with `malloc` for a
capacity of rows and writes the whole table to `data_level0.bin`, the rows it
never filled included. Those rows hold whatever the heap held before: SQL
text, a request's body, a secret a request carried before the filter
redacted it. glibc's `M_PERTURB` fills each chunk with 0xFF as it is freed and
with zeros as it is handed out, so what a library persists without having
written it is a fill byte, never a text.

Only glibc has it; elsewhere `wipe_freed_memory` answers False and does nothing.
"""

from __future__ import annotations

import ctypes
import logging
import sys
import threading

log = logging.getLogger("jiyi.store.files")

_M_PERTURB = -6  # glibc's malloc.h
# Freed chunks are filled with this byte; chunks handed out with its complement, zero.
FREED_FILL = 0xFF

_lock = threading.Lock()
_state: dict[str, bool] = {}


def wipe_freed_memory() -> bool:
    """Turn on glibc's wiping of freed and allocated heap memory for this process; True when it is on.

    Called before a home is opened, so that no text read or received after it
    survives in freed memory. Idempotent and cheap after the first call.
    """
    with _lock:
        if "on" not in _state:
            _state["on"] = _turn_on()
        return _state["on"]


def _turn_on() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - present only in glibc (musl's mallopt ignores M_PERTURB)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    if mallopt(_M_PERTURB, FREED_FILL) != 1:
        log.warning("glibc refused M_PERTURB: a library could write stale heap memory to the vector index")
        return False
    return True
