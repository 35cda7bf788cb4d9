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

`service/client.py`, which imports nothing of Jiyi (agents copy it as one file), holds the same derivation;
tests/unit/service/test_platform_address.py keeps the two equal.
"""

from __future__ import annotations

import hashlib
import ntpath
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

SOCKET_PATH_LIMIT = 103
"""Bytes of a Unix socket's path that every system takes (sun_path: 104 on macOS and the BSDs, 108 on Linux,
the final NUL included)."""

PIPE_PREFIX = "\\\\.\\pipe\\"
"""Where Windows keeps named pipes; a pipe's address is this and its name."""

DIGEST_CHARS = 12
NAME_CHARS = 24
LEGACY_NAME = "jiyi.sock"
"""The one socket every home shared before sockets were per home (in the same runtime folder)."""


def home_socket_path(
    home: str | os.PathLike[str], environ: Mapping[str, str] | None = None, platform: str = sys.platform
) -> Path:
    """The socket (Unix) or named pipe (Windows) where the service of `home` listens unless told otherwise."""
    real = os.path.realpath(os.path.expanduser(os.fspath(home)))
    return socket_for(real, os.environ if environ is None else environ, platform)


def socket_for(real: str, environ: Mapping[str, str], platform: str = sys.platform) -> Path:
    """The socket or pipe of the home whose real path is `real` (`home_socket_path` without looking at the disk)."""
    if platform == "win32":
        real = ntpath.normcase(real)  # Windows paths ignore case
        user = _label(environ.get("USERNAME", "")) or "user"
        name = _label(ntpath.basename(real.rstrip("\\"))) or "home"
        return Path(f"{PIPE_PREFIX}jiyi-{user}-{name}-{_digest(real)}")
    name = _label(os.path.basename(real.rstrip("/"))) or "home"
    digest = _digest(real)
    for folder in runtime_folders(environ):
        room = SOCKET_PATH_LIMIT - len(os.fsencode(str(folder))) - len(f"/-{digest}.sock")
        if room >= 1:
            return folder / f"{name[:room]}-{digest}.sock"
        if room >= -1:
            return folder / f"{digest}.sock"
    raise AssertionError("unreachable: /tmp/jiyi-<uid>/<digest>.sock always fits")  # pragma: no cover


def runtime_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The user's private folders for sockets, in the order they are tried (Unix)."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    mine = f"jiyi-{_uid()}"
    folders = [Path(runtime) / "jiyi"] if runtime else []
    return [*folders, Path(tempfile.gettempdir()) / mine, Path("/tmp") / mine]


def legacy_socket_path(environ: Mapping[str, str] | None = None) -> Path:
    """The socket all homes shared before sockets were per home: where an agent set up then still looks."""
    return runtime_folders(environ)[0] / LEGACY_NAME


def socket_address(text: str, platform: str = sys.platform) -> Path:
    r"""A socket named by a person (`--socket`, `JIYI_SOCKET`): a path; on Windows a pipe, `\\.\pipe\` added to a
    bare name."""
    if platform == "win32" and not text.replace("/", "\\").lower().startswith(PIPE_PREFIX):
        return Path(PIPE_PREFIX + text)
    return Path(text).expanduser()


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


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "", text)[:NAME_CHARS]


def _digest(text: str) -> str:
    return hashlib.sha256(os.fsencode(text)).hexdigest()[:DIGEST_CHARS]


def _uid() -> int:
    if sys.platform == "win32":
        return 0  # no uids; Windows uses pipes, never these folders
    return os.getuid()
