"""The person's key: how the console and the `jiyi` commands act as the person over the one socket.

The console, the commands and the agents are processes of one user, on one
socket; what tells the person's requests from an agent's is a capability. The
service that owns a home writes a fresh random key in it each time it starts
serving (`person.key`, 0600, in the 0700 home, never through a symlink), and
removes it when it stops. The console and the commands (`service/remote/`)
read it and present it in `client.hello`; the service compares it in constant
time (`service/rpc/presence.py`) and the connection then acts as the person.
The protocol never hands it out: no reply carries it and nothing logs it. The
agent client (`service/client.py`), `jiyi mcp` and the learning worker never
read it (an import-linter contract keeps this module out of them).

It is a capability, not a sandbox: an agent running as the same user could
read the file, as it could read the database. What it gives is that no agent
holds the person's authority by speaking the protocol, and that whoever uses
it had to reach into the home for it.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import os
import secrets
import stat
import threading
from pathlib import Path

from store.core.home import platform

log = logging.getLogger("jiyi.service.remote")  # the console's and the commands' side reads it

KEY_FILE = "person.key"
KEY_BYTES = 32  # 256 bits, as URL-safe base64 (43 characters)
MAX_KEY_CHARS = 128


class KeyProblem(Exception):
    """The key file is not one the person's side may trust (a symlink, another owner's, readable by others)."""


def key_path(home: Path) -> Path:
    return Path(home) / KEY_FILE


def create(home: Path) -> str:
    """Write a fresh key in `home` (replacing any earlier one atomically) and return it.

    Written 0600 through a new file opened with O_EXCL and O_NOFOLLOW, fsynced, then renamed over the
    old one: a reader sees the old key or the new one, never half of one, and never a file another
    process placed. Raises `OSError` when the home cannot be written (a read-only home)."""
    key = secrets.token_urlsafe(KEY_BYTES)
    path = key_path(home)
    temporary = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = platform.open_file(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as stream:
            stream.write(key + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return key


def read(home: Path) -> str:
    """The key in `home`; `FileNotFoundError` when there is none (no service owns the home), `KeyProblem`
    when the file is not a private regular file of ours with one link, or holds no key."""
    path = key_path(home)
    try:
        fd = platform.open_file(path, os.O_RDONLY)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        if os.path.islink(path):
            raise KeyProblem(f"{path} is a symlink; the person's key is never read through one") from exc
        raise KeyProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise KeyProblem(f"{path} is not a regular file")
        if info.st_nlink > 1:
            raise KeyProblem(f"{path} has {info.st_nlink} hard links; the person's key has one")
        owner = platform.not_yours(info)
        if owner is not None:
            raise KeyProblem(f"{path} is {owner}")
        if platform.open_to_others(info):
            raise KeyProblem(f"{path} is readable by others (mode {stat.S_IMODE(info.st_mode):03o})")
        text = stream.read(MAX_KEY_CHARS + 2).decode("ascii", "replace").strip()
    if not text or len(text) > MAX_KEY_CHARS or not text.isascii() or not text.isprintable():
        raise KeyProblem(f"{path} holds no key")
    return text


def read_or_none(home: Path) -> str | None:
    """The key in `home`, or None (logged once per problem, never the key): the caller then acts as an agent,
    and the person's operations answer `forbidden`, saying so."""
    try:
        return read(home)
    except FileNotFoundError:
        return None
    except KeyProblem as exc:
        log.warning("the person's key is not used: %s", exc)
        return None


def remove(home: Path, key: str) -> None:
    """Remove the key file when it still holds `key` (a service that started since keeps its own)."""
    with contextlib.suppress(OSError, KeyProblem):
        if hmac.compare_digest(read(home).encode(), key.encode()):
            key_path(home).unlink()


# The keys this process's hosts hold, by home: two hosts serving one home in one process (the console's own and
# a test's) share its key; the last to stop removes it. Another process cannot serve the home (its lock).
_held: dict[Path, tuple[str, int]] = {}
_holding = threading.Lock()


def hold(home: Path) -> str:
    """The home's key for a host that starts serving: the one this process's hosts of the home hold already (still
    in its file), else a fresh one written now (`create`). Release it with `release` when the host stops."""
    where = Path(home).resolve()
    with _holding:
        held = _held.get(where)
        if held is not None:
            with contextlib.suppress(OSError, KeyProblem):
                if hmac.compare_digest(read(where).encode(), held[0].encode()):
                    _held[where] = (held[0], held[1] + 1)
                    return held[0]
        key = create(where)
        _held[where] = (key, 1)
        return key


def release(home: Path, key: str) -> None:
    """A host holding `key` stops: the last one removes the file."""
    where = Path(home).resolve()
    with _holding:
        held = _held.get(where)
        if held is not None and held[0] == key and held[1] > 1:
            _held[where] = (key, held[1] - 1)
            return
        if held is not None and held[0] == key:
            del _held[where]
        remove(where, key)
