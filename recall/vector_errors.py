"""Tell a full disk apart from a fault when the embedded Chroma index fails.

Chroma's embedded client does not say why a write failed: on a full disk it
answers `InternalError: Error in compaction: Failed to apply logs to the
metadata segment`, and later reads fail the same way (a query asks its
compactor to catch up first). So the disk is asked instead: a failed call on
a disk with less than `LOW_SPACE` free, or an `OSError` of a full or
read-only disk anywhere in the error's chain, is an environment problem with
advice a person can act on (`unavailable` on the socket), not a bug.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from store.core.errors import EnvironmentProblem, JiyiError

# Below this much free space a failed Chroma call is put down to the disk (Chroma writes its log,
# then its segments, in steps of a few MB).
LOW_SPACE = 16 << 20

_DISK_ERRNOS = {
    errno.ENOSPC: "the disk holding it is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system holding it is read-only",
    errno.EIO: "the disk failed to read or write",
}


def vector_problem(exc: BaseException, folder: Path) -> EnvironmentProblem | None:
    """The environment problem behind a failed call on the embedded index in `folder`, or None."""
    if isinstance(exc, JiyiError):
        return None
    where = f"the vector index at {folder}"
    for cause in _chain(exc):
        if isinstance(cause, OSError) and cause.errno in _DISK_ERRNOS:
            return EnvironmentProblem(f"{where} cannot be written: {_DISK_ERRNOS[cause.errno]} ({cause})")
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    if free >= LOW_SPACE:
        return None
    return EnvironmentProblem(
        f"{where} cannot be used: the disk holding it is full ({free // 1024} KB free); "
        f"free some space, then run `jiyi rebuild-vec` if recall stays off (Chroma: {exc})"
    )


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo = [exc]
    while todo:
        current = todo.pop()
        if any(current is s for s in seen):
            continue
        seen.append(current)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return seen
