"""The socket host's resource limits: open files, connections, buffered bytes.

A hostile or careless client must not be able to take the host down by
opening connections, by sending lines it never finishes, or by asking for
replies it never reads (`docs/service.md`, "Limits"). No Qt here.
"""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("jiyi.service.rpc")

MAX_OUTPUT = 8 << 20
"""Unsent reply bytes per connection past which the host stops reading that client's requests."""

UNFINISHED_LINES_FACTOR = 32
"""The unfinished request lines of all connections together may hold this many longest lines."""

CONNECTIONS_CEILING = 1024
"""The derived connection cap never exceeds this; a local memory service has a handful of agents."""

SAFE_FD_RESERVE = 32
"""Descriptors the rest of the process needs at the least (the store, the vectors, the workers, Qt)."""

# Linux refuses a soft limit above fs.nr_open (1048576 by default), even when the hard limit is unlimited.
_UNLIMITED_FALLBACK = 1 << 20


def raise_open_file_limit() -> int | None:
    """Raise this process's soft limit on open files to its hard limit; the soft limit now (None where unknown)."""
    if sys.platform == "win32":
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, _UNLIMITED_FALLBACK)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return None if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (OSError, ValueError) as exc:
        # macOS caps the soft limit at kern.maxfilesperproc below an unlimited hard limit; keep what we have.
        log.info("cannot raise the open-file limit from %d to %d: %s", soft, target, exc)
        return soft
    log.debug("raised the open-file limit from %d to %d", soft, target)
    return target


def default_max_connections(open_files: int | None) -> int:
    """The connection cap when none is configured: a quarter of the open-file limit, from 4 up to 1024."""
    if open_files is None:
        return CONNECTIONS_CEILING
    return max(4, min(CONNECTIONS_CEILING, open_files // 4))


def connection_cap(configured: int, open_files: int | None) -> int:
    """The cap to enforce: `configured`, or derived from the limit when 0; a cap the limit cannot hold is logged."""
    if configured <= 0:
        return default_max_connections(open_files)
    if open_files is not None and configured > open_files - SAFE_FD_RESERVE:
        log.warning(
            "max_connections %d leaves fewer than %d of the %d open files for the store; "
            "a flood of connections may stop the listener (the service then exits)",
            configured,
            SAFE_FD_RESERVE,
            open_files,
        )
    return configured
