"""Making a home private again: what `jiyi doctor --fix-permissions` and the console's 修复 change.

A home made with plain `mkdir` is 0755, and Jiyi refuses it (`store.core.home`: others could read the
memory); a home copied with `cp -r` under a umask of 022 has its database 0644, refused too. This makes the
home 0700 and Jiyi's private files in it 0600, and says each change. It changes only what is the user's own:
the home a directory and each file a regular file with one link, all owned by the user, reached without
following a link (each is opened with `O_NOFOLLOW` and changed through that descriptor, so a path swapped for
a link meanwhile is not followed either). Anything else too open is refused before anything is changed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from store.core.acknowledged import MARK_NAME
from store.core.errors import EnvironmentProblem, NotFound, NotYours, UnsafePath
from store.core.home import DB_NAME, LOCK_NAME, platform, read_only_reason

HOME_MODE = 0o700
FILE_MODE = 0o600
PRIVATE_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", LOCK_NAME, MARK_NAME)
"""The files in a home that Jiyi refuses when others may read them (`check_private_file`), by name."""


@dataclass(frozen=True)
class ModeChange:
    """One path whose permission bits were (or are to be) changed."""

    path: Path
    before: int
    after: int

    def __str__(self) -> str:
        return f"{self.path}: {self.before:04o} -> {self.after:04o}"


def fix_permissions(home: Path) -> list[ModeChange]:
    """Make `home` 0700 and its private files (`PRIVATE_FILES`) 0600 where others may read them; the changes made,
    in order (empty: nothing was too open). Bits beyond the owner's are removed, the owner's kept as they are.

    Refused, with nothing changed: a home that is missing, a link or not a directory; a home on which no mode
    can change (read-only); anything too open that is not the user's own, is a link, not a regular file, or has
    more than one link (`NotYours`, `UnsafePath`).
    """
    home = Path(os.path.abspath(os.path.expanduser(home)))
    try:
        info = os.lstat(home)
    except FileNotFoundError:
        raise NotFound(f"there is no home at {home}; check --home or JIYI_HOME") from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafePath(
            f"home {home} is a symlink; Jiyi changes no permissions through a link (make the folder it leads to "
            f"private: chmod 700 {home.resolve()})"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise EnvironmentProblem(f"home {home} is not a directory")
    _check_own(home, "home", info)
    planned = [("home", home, info, HOME_MODE)] if platform.open_to_others(info) else []
    for name in PRIVATE_FILES:
        path = home / name
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            continue
        if not platform.open_to_others(found):  # always so on Windows, whose modes say nothing of others
            continue  # private already: whatever else is wrong with it, opening the home says so
        if stat.S_ISLNK(found.st_mode):
            raise UnsafePath(f"{path} is a symlink; Jiyi changes no permissions through a link")
        if not stat.S_ISREG(found.st_mode):
            raise UnsafePath(f"{path} is not a regular file; Jiyi changes only its own files")
        if found.st_nlink > 1:
            raise UnsafePath(f"{path} has {found.st_nlink} hard links; Jiyi changes only a file with one")
        _check_own(path, name, found)
        planned.append((name, path, found, FILE_MODE))
    if not planned:
        return []
    read_only = read_only_reason(home)
    if read_only:
        raise EnvironmentProblem(
            f"{read_only}: no permission can be changed there; make it private where it is writable"
        )
    return [_change(path, info, private, directory=what == "home") for what, path, info, private in planned]


def _check_own(path: Path, what: str, info: os.stat_result) -> None:
    if platform.not_yours(info) is not None:
        raise NotYours(
            f"{path} is owned by uid {info.st_uid}, not by you; Jiyi changes only your own files",
            what=what,
            path=path,
            owner=info.st_uid,
        )


def _change(path: Path, seen: os.stat_result, private: int, *, directory: bool) -> ModeChange:
    """Take the bits of group and others off `path`, through a descriptor opened without following a link,
    after checking it is still what was looked at (`seen`)."""
    flags = os.O_RDONLY | (platform.DIRECTORY if directory else platform.NONBLOCK)
    try:
        fd = platform.open_file(path, flags)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot make {path} private: {exc.strerror}") from exc
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            raise UnsafePath(f"{path} was replaced while its permissions were being fixed; nothing was changed there")
        before = stat.S_IMODE(now.st_mode)
        after = before & private
        platform.set_mode(fd, after)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot make {path} private: {exc.strerror}") from exc
    finally:
        os.close(fd)
    return ModeChange(path, before, after)
