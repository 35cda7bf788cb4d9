"""The home's SQLite file as a thing on disk: present when the home holds memory, sound, and still the one opened.

Three faults a local process (or a disk) can cause, each caught here:

- The file deleted or truncated to 0 bytes while `bundles/` and `vectors/`
  still hold memory: opening would start an empty home beside the old memory
  (`require_database`, before the file is created; `--new-database` says it
  is meant).
- A page garbled: SQLite answers until a statement touches it, so a damaged
  file would take writes (`quick_check`, at open; the store then refuses
  writes, `unavailable`, naming the problem).
- The file moved or replaced while serving: open connections would go on
  writing into the moved inode, and a connection opened later would create a
  new empty file. Connections open with `mode=rw` (never create), and
  `FileIdentity` compares the path's device and inode with the ones opened
  around every commit, so no write is acknowledged into a file that is no
  longer the home's database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from store.core.errors import EnvironmentProblem, StorageProblem

# What a home keeps beside its database that only the database explains (bundles' mirror, the vector index).
MEMORY_FOLDERS = ("bundles", "vectors")


class DatabaseMissing(EnvironmentProblem):
    """The home holds memory (bundle files, vectors) but its database is gone or empty."""


def sqlite_uri(path: Path, *, read_only: bool = False) -> str:
    """`path` as an SQLite URI that opens it read-write and never creates it (`mode=rw`); `read_only`: for
    reading only, as a file nothing changes while it is open (`mode=ro&immutable=1`: a read-only file system)."""
    # "file:///abs/path": an empty authority, and leading slashes collapsed ("//tmp" would read as a host).
    absolute = "/" + os.path.abspath(path).lstrip("/")
    return "file://" + quote(absolute) + ("?mode=ro&immutable=1" if read_only else "?mode=rw")


def _holds_files(folder: Path) -> bool:
    """Whether `folder` (not followed through a link) holds at least one regular file, at any depth."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return False
    except OSError:
        return False
    return any(files for _root, _dirs, files in os.walk(folder))


def require_database(home: Path, path: Path, *, new_database: bool, acknowledged: int | None = None) -> bool:
    """True when `path` must be created (or is empty) for a new home; `DatabaseMissing` when the home
    holds memory without it, unless `new_database` says to start over knowingly. `acknowledged`: how many
    events the home acknowledged in it (its mark, `store.core.acknowledged`), said in the message."""
    try:
        size = path.lstat().st_size
    except FileNotFoundError:
        size = None
    if size:
        return False
    holding = [name for name in MEMORY_FOLDERS if _holds_files(home / name)]
    if holding and not new_database:
        state = "is missing" if size is None else "is empty (0 bytes)"
        folders = " and ".join(f"{name}/" for name in holding)
        held = f" and acknowledged {acknowledged} events in it" if acknowledged else ""
        raise DatabaseMissing(
            f"the database {path} {state}, but the home still holds memory in {folders}{held}: "
            f"starting would open an empty home beside it. Restore {path.name} (and {path.name}-wal, if "
            "you kept it) from a backup, or start over knowingly with `jiyi serve --new-database` "
            "(the bundle files and vectors stay where they are)"
        )
    return True


def quick_check(db: Any) -> str | None:
    """None when SQLite's `quick_check` finds the file sound, else what it found (its first lines)."""
    try:
        rows = [str(row[0]) for row in db.execute_sql("PRAGMA quick_check(5)").fetchall()]
    except (sqlite3.DatabaseError, StorageProblem) as exc:  # so damaged that the check itself fails
        return str(exc)
    if rows == ["ok"]:
        return None
    return "; ".join(rows)


def damaged_message(path: Path, found: str) -> str:
    return (
        f"the database {path} is damaged ({found}); writes are refused so that nothing is added to a "
        f"malformed file. Stop the service, restore {path.name} from a backup (or recover it with "
        "`sqlite3 jiyi.sqlite3 .recover`), and run `jiyi doctor`"
    )


@dataclass(frozen=True)
class FileIdentity:
    """The device and inode of the database file as opened; `problem` says when the path no longer is it."""

    path: Path
    device: int
    inode: int

    @classmethod
    def of(cls, path: Path) -> FileIdentity:
        info = path.stat()
        return cls(path, info.st_dev, info.st_ino)

    def problem(self) -> str | None:
        """None while the path is the file opened; else what happened to it."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return f"the database {self.path} was removed or moved away while the service had it open"
        except OSError as exc:
            return f"the database {self.path} cannot be examined ({exc.strerror})"
        if (info.st_dev, info.st_ino) != (self.device, self.inode):
            return f"the database {self.path} was replaced by another file while the service had it open"
        return None

    def check(self) -> None:
        """Raise `StorageProblem` (answered `unavailable`) when the path is no longer the file opened."""
        problem = self.problem()
        if problem is not None:
            raise StorageProblem(
                f"the database is unavailable: {problem}; nothing more is written. Put it back and restart the service",
                "SQLITE_CANTOPEN",
            )
