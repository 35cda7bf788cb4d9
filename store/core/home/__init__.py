"""The state directory: private files and the one-owner lock.

Jiyi keeps everything under one home directory. It must be private to the
current user (0700), and the files in it must be regular files of ours, 0600,
with one link each: a symlinked or hard-linked database could leak memory to
another place or let another user swap it. One process owns a home at a time.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from store.core import clock
from store.core.errors import (
    EnvironmentProblem,
    HomeLocked,
    HomeReadOnly,
    NotFound,
    NotYours,
    TooOpen,
    UnsafePath,
    os_problem,
)
from store.core.home import platform

LOCK_NAME = "jiyi.lock"
DB_NAME = "jiyi.sqlite3"
"""The home's SQLite file (`store.core.connect` opens it)."""


def require_home(home: Path) -> Path:
    """`home` as an absolute path when it holds a Jiyi database; else `NotFound` naming it.

    For what only reads a home: a mistyped path must not become a new, empty home. Kept here, beside
    the home's other checks, so a command checks its home before (or without) importing the database.
    """
    home = Path(os.path.abspath(os.path.expanduser(home)))
    if home.exists() and not home.is_dir():  # the same words as a command that would create it
        raise EnvironmentProblem(f"home {home} is not a directory; check --home or JIYI_HOME")
    if not (home / DB_NAME).is_file():
        raise NotFound(
            f"there is no Jiyi home at {home} (no {DB_NAME} in it); check --home or JIYI_HOME. "
            "Commands that write (alias learn, inventory sync, import, serve, the console) create a home"
        )
    return home


def prepare_home(path: Path) -> Path:
    """Create `path` (0700) if missing and check that it is a private directory of ours.

    Returns the absolute path. Raises `UnsafePath` or `EnvironmentProblem` naming
    the problem and what to do about it. A read-only home (`read_only_reason`)
    passes when it holds a database, which it then serves for reading; one
    without a database is refused as read-only (no chmod can help there).
    """
    home = Path(os.path.abspath(os.path.expanduser(path)))
    if not home.exists() and not home.is_symlink():
        try:
            home.parent.mkdir(parents=True, exist_ok=True)
            home.mkdir(mode=0o700)
        except OSError as exc:
            why = _read_only_parent(home) or exc.strerror
            raise EnvironmentProblem(f"cannot create home {home}: {why}") from exc
    try:
        info = home.stat()
    except OSError as exc:
        raise EnvironmentProblem(f"cannot read home {home}: {exc.strerror}") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise EnvironmentProblem(f"home {home} is not a directory")
    owner = platform.not_yours(info)
    if owner is not None:
        raise NotYours(f"home {home} is {owner}", what="home", path=home, owner=info.st_uid)
    read_only = read_only_reason(home)
    if read_only and not (home / DB_NAME).is_file():
        raise HomeReadOnly(
            f"{read_only}, and it holds no Jiyi database to read; choose a writable folder (--home or JIYI_HOME)",
            path=home,
            reason=read_only,
        )
    if platform.open_to_others(info):
        mode = stat.S_IMODE(info.st_mode)
        if read_only:
            raise TooOpen(
                f"{read_only}, and readable by others (mode {mode:03o}); make it private where it is writable",
                what="home",
                path=home,
                mode=mode,
                fixable=False,
            )
        raise TooOpen(
            f"home {home} is readable by others (mode {mode:03o}); run: jiyi doctor --fix-permissions --home {home} "
            f"(or chmod 700 {home})",
            what="home",
            path=home,
            mode=mode,
        )
    return home


def read_only_reason(home: Path) -> str | None:
    """Why `home` takes no writes — "home X is on a read-only file system" or "home X is not writable by you" —
    or None when it does. A read-only home serves reads; every write is refused with this reason."""
    try:
        if platform.read_only_file_system(home):
            return f"home {home} is on a read-only file system"
    except OSError:
        return None  # what cannot be checked is found out by the first write, with its own error
    if not os.access(home, os.W_OK | os.X_OK):
        return f"home {home} is not writable by you"
    return None


def _read_only_parent(home: Path) -> str | None:
    """ "the folder P is read-only" for the nearest existing folder above `home` that takes no writes."""
    folder = home.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        if platform.read_only_file_system(folder):
            return f"the folder {folder} is on a read-only file system"
    except OSError:
        return None
    return None if os.access(folder, os.W_OK | os.X_OK) else f"the folder {folder} is not writable by you"


def check_private_file(path: Path, what: str) -> None:
    """Refuse `path` unless it is missing or a private regular file of ours with one link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if platform.is_link(info):
        raise UnsafePath(f"{what} {path} is a symlink; Jiyi refuses to follow it")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"{what} {path} is not a regular file")
    if info.st_nlink > 1:
        raise UnsafePath(f"{what} {path} has {info.st_nlink} hard links; Jiyi needs it to have one")
    owner = platform.not_yours(info)
    if owner is not None:
        raise NotYours(f"{what} {path} is {owner}", what=what, path=path, owner=info.st_uid)
    if platform.open_to_others(info):
        mode = stat.S_IMODE(info.st_mode)
        raise TooOpen(
            f"{what} {path} is readable by others (mode {mode:03o}); run: jiyi doctor --fix-permissions "
            f"--home {path.parent} (or chmod 600 {path})",
            what=what,
            path=path,
            mode=mode,
        )


class HomeLock:
    """An exclusive advisory lock on a home, naming its owner for whoever comes second."""

    def __init__(self, home: Path) -> None:
        self.path = home / LOCK_NAME
        self._fd: int | None = None
        self._read_only = False

    def acquire(self, *, read_only: bool = False) -> None:
        """Take the lock or raise `HomeLocked` naming the process that holds it.

        On a read-only home (`read_only`) the lock file is locked as it is, with no owner's note written; a
        home without one (nothing can create it there) goes unlocked: no process can write to it from here.
        """
        check_private_file(self.path, "lock file")
        flags = os.O_RDONLY if read_only else os.O_RDWR | os.O_CREAT
        try:
            fd = platform.open_file(self.path, flags, 0o600)
        except FileNotFoundError:
            if read_only:
                return
            raise
        except OSError as exc:
            raise os_problem(exc, f"lock file {self.path}") from exc
        try:
            locked = platform.try_lock(fd)
        except OSError as exc:
            os.close(fd)
            raise os_problem(exc, f"lock file {self.path}") from exc
        if not locked:
            os.close(fd)
            raise self._owner_refusal()
        if read_only:
            self._fd, self._read_only = fd, True
            return
        owner = {"pid": os.getpid(), "argv": sys.argv[:4], "since": clock.iso_now()}
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(owner, ensure_ascii=False).encode())
        except OSError as exc:
            # A full disk shows here first: the owner's note is the first byte Jiyi writes on opening.
            platform.unlock(fd)
            os.close(fd)
            raise os_problem(exc, f"lock file {self.path}") from exc
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (idempotent)."""
        if self._fd is not None:
            if not self._read_only:
                os.ftruncate(self._fd, 0)
            platform.unlock(self._fd)
            os.close(self._fd)
            self._fd = None

    def _owner_refusal(self) -> HomeLocked:
        """`HomeLocked` naming the process that holds the lock, as its note (`acquire`) says."""
        home = self.path.parent
        try:
            read = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            read = {}
        owner: dict[str, object] = read if isinstance(read, dict) else {}  # {pid, argv, since} as `acquire` wrote
        if not owner:
            return HomeLocked(f"home {home} is in use by another Jiyi process")
        argv = owner.get("argv")
        command = " ".join(str(part) for part in (argv if isinstance(argv, list) else [])) or "jiyi"
        pid, since = owner.get("pid"), owner.get("since")
        return HomeLocked(
            f"home {home} is in use by pid {pid} ({command}, since {since}); "
            "close that process or choose another --home",
            pid=pid if isinstance(pid, int) else None,
            command=command,
            since=str(since) if since is not None else None,
        )
