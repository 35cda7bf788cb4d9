r"""Where a home's service listens: one socket per home, named from the home's real path.

Two homes are served side by side, each by its own service, and every program that looks for a home's service
(the console, the commands, `jiyi mcp`, the agent client) finds it by the home alone. `--socket`, `JIYI_SOCKET`
or `socket` in the home's config.toml still name another place. The name:

- Unix: `<folder>/<name>-<digest>.sock`. `<digest>` is the first 12 hex digits of the SHA-256 of the home's
  real path (links resolved); `<name>` is the home folder's own name kept to `[A-Za-z0-9_-]`, at most 24
  characters ("home" when nothing is left), so that a person can tell the sockets apart. The folder is the
  user's private runtime folder, as before: `$XDG_RUNTIME_DIR/jiyi`, else `<temp>/jiyi-<uid>`
  (`service/rpc/socket_file.py` creates it 0700 and checks who holds it). A Unix socket's path holds at most
  `SOCKET_PATH_LIMIT` bytes on every system (macOS and the BSDs: 104 with the final NUL; Linux: 108), so
  `<name>` is shortened to fit; where even `<digest>.sock` does not fit in the runtime folder (a long
  `XDG_RUNTIME_DIR`), the temporary folder's is used, then `/tmp`'s.
- Windows: the named pipe `\\.\pipe\jiyi-<user>-<name>-<digest>`, the digest taken of the case-folded real
  path (Windows paths ignore case). Pipe names are one namespace for the whole machine: the user's name keeps
  two users' homes apart; the pipe admits its user only (`QLocalServer.UserAccessOption`).

The derivation itself lives in `service/client.py`, which imports nothing of Jiyi (agents copy it as one
file): the service takes it from there, so the agent and the service cannot disagree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from service.client import (
    DIGEST_CHARS,
    LEGACY_NAME,
    NAME_CHARS,
    PIPE_PREFIX,
    SOCKET_PATH_LIMIT,
    home_socket_path,
    runtime_folders,
    socket_address,
    socket_for,
)

__all__ = [
    "DIGEST_CHARS",
    "LEGACY_NAME",
    "NAME_CHARS",
    "PIPE_PREFIX",
    "SOCKET_PATH_LIMIT",
    "home_socket_path",
    "is_pipe",
    "legacy_socket_path",
    "may_be_listening",
    "runtime_folders",
    "socket_address",
    "socket_for",
]


def legacy_socket_path(environ: Mapping[str, str] | None = None) -> Path:
    """The socket all homes shared before sockets were per home: where an agent set up then still looks."""
    return runtime_folders(environ)[0] / LEGACY_NAME


def is_pipe(path: Path) -> bool:
    """Whether `path` names a Windows named pipe rather than a Unix socket's file."""
    return str(path).replace("/", "\\").lower().startswith(PIPE_PREFIX)


def may_be_listening(path: Path) -> bool:
    """Whether something may listen at `path`: a file there (Unix), a pipe of that name (Windows). A probe then
    tells; False spares the probe."""
    if is_pipe(path):
        name = str(path).replace("/", "\\")[len(PIPE_PREFIX) :].lower()
        try:
            return name in {entry.lower() for entry in os.listdir(PIPE_PREFIX)}
        except OSError:
            return True  # the pipes cannot be listed here: let the probe tell
    return path.exists()
