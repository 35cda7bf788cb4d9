"""Errors of the store, split by cause.

`EnvironmentProblem` means the machine or the files are not as they must be (the
user can fix it); `InvalidInput` means a caller handed us something malformed;
`Conflict` means the request was valid but the state moved under it. Each message
names the problem in words a person can act on.

Each class carries its `code`, the stable name of its kind of failure, once:
callers outside the store (the socket's error answers, `docs/protocol.md`)
use it as it is. The codes are the members of `ErrorCode`; mypy refuses any
other.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import Literal, get_args

ErrorCode = Literal["invalid_params", "not_found", "conflict", "busy", "forbidden", "unavailable", "internal"]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


class JiyiError(Exception):
    """Base of every error Jiyi raises on purpose."""

    code: ErrorCode = "internal"


class EnvironmentProblem(JiyiError):
    """The home, the database file or the machine is not usable as it is."""

    code: ErrorCode = "unavailable"


class UnsafePath(EnvironmentProblem):
    """A path is a symlink, hard-linked, owned by someone else or too open."""

    code: ErrorCode = "forbidden"


class TooOpen(UnsafePath):
    """The home, or a private file in it, may be read by others (a home made with plain `mkdir` is 0755).

    `what` names it as the message does ("home", "database", "lock file" …), `path` is where it is, `mode` its
    permission bits. `fixable`: whether making it private would do (False on a read-only home, where no chmod
    can help); `store.core.home.permissions.fix_permissions` does it."""

    def __init__(self, message: str, *, what: str, path: Path, mode: int, fixable: bool = True) -> None:
        super().__init__(message)
        self.what, self.path, self.mode, self.fixable = what, path, mode, fixable


class NotYours(UnsafePath):
    """The home, or a private file in it, belongs to another user (`owner`: its uid); Jiyi never changes it."""

    def __init__(self, message: str, *, what: str, path: Path, owner: int) -> None:
        super().__init__(message)
        self.what, self.path, self.owner = what, path, owner


class HomeLocked(EnvironmentProblem):
    """Another process owns this home: `pid`, its `command` and `since` when its note names them (else None)."""

    code: ErrorCode = "unavailable"

    def __init__(
        self, message: str, *, pid: int | None = None, command: str | None = None, since: str | None = None
    ) -> None:
        super().__init__(message)
        self.pid, self.command, self.since = pid, command, since


class HomeReadOnly(EnvironmentProblem):
    """A read-only home that cannot be served even for reading: it holds no database (`reason` says why it takes
    no writes, as `store.core.home.read_only_reason` words it)."""

    def __init__(self, message: str, *, path: Path, reason: str) -> None:
        super().__init__(message)
        self.path, self.reason = path, reason


class SchemaTooNew(EnvironmentProblem):
    """The database was written by a newer Jiyi than this one."""

    code: ErrorCode = "unavailable"


class StorageProblem(EnvironmentProblem):
    """SQLite could not read or write the database for a reason outside Jiyi: the disk is full,
    an I/O error, another connection holds the lock, the file is read-only or damaged.

    `sqlite_code` is SQLite's (primary) result code name, e.g. `SQLITE_FULL`.
    """

    code: ErrorCode = "unavailable"

    def __init__(self, message: str, sqlite_code: str) -> None:
        super().__init__(message)
        self.sqlite_code = sqlite_code


class ChangesMissing(EnvironmentProblem):
    """The database holds less than the home acknowledged (`store.core.acknowledged`): a lost WAL, an older
    copy, another store's file. `missing` is how many events (None: not countable).

    Where the store tells them: `kind` ("lost", "older copy", "another store", "database missing"), how many
    events the home `acknowledged`, `exact` False where event numbers can skip (then up to `missing`), and the
    database's `location`; the console's box says the cause from them (`gui/refusal.py`)."""

    code: ErrorCode = "unavailable"

    def __init__(
        self,
        message: str,
        missing: int | None,
        *,
        kind: str | None = None,
        acknowledged: int | None = None,
        exact: bool = True,
        location: str | None = None,
    ) -> None:
        super().__init__(message)
        self.missing, self.kind, self.acknowledged, self.exact, self.location = (
            missing,
            kind,
            acknowledged,
            exact,
            location,
        )


class HomeOverBudget(EnvironmentProblem):
    """The home has grown past its size budget (`JIYI_MAX_HOME_MB`); writes wait, reads go on.

    `details` (the socket's `error.data`) carries the measured size and the budget, in bytes.
    """

    code: ErrorCode = "unavailable"

    def __init__(self, message: str, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


class InvalidInput(JiyiError):
    """A caller passed a malformed or unacceptable value."""

    code: ErrorCode = "invalid_params"


class SensitiveContent(InvalidInput):
    """The value looks like a credential or matches the sensitive-word list."""

    code: ErrorCode = "forbidden"


class Forbidden(JiyiError):
    """The caller may not do this (e.g. an agent approving what only a person may)."""

    code: ErrorCode = "forbidden"


class NotFound(JiyiError):
    """The thing asked for does not exist."""

    code: ErrorCode = "not_found"


class Conflict(JiyiError):
    """The state changed since the caller looked; nothing was written.

    `details` carries what the caller needs to recover (e.g. the current
    revision and content of a document); the socket sends it as `error.data`.
    """

    code: ErrorCode = "conflict"

    def __init__(self, message: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.details = details


class Busy(JiyiError):
    """Work that runs one at a time is running already (a rebuild); nothing was started.

    `details` (the socket's `error.data`) carries the running job's status, so the caller can follow or cancel it.
    """

    code: ErrorCode = "busy"

    def __init__(self, message: str, details: dict[str, object]) -> None:
        super().__init__(message)
        self.details = details


# SQLite's primary result codes that say the machine or the file is at fault, not Jiyi's SQL (as
# qutebrowser's sql.py tells them apart), each with what a person can do about it.
_ENVIRONMENT_CODES: dict[int, tuple[str, str]] = {
    sqlite3.SQLITE_FULL: ("SQLITE_FULL", "the disk holding the database is full; free some space"),
    sqlite3.SQLITE_IOERR: ("SQLITE_IOERR", "the disk failed to read or write the database; check the disk"),
    sqlite3.SQLITE_BUSY: ("SQLITE_BUSY", "another connection holds the database lock; try again shortly"),
    sqlite3.SQLITE_LOCKED: ("SQLITE_LOCKED", "the database is locked by another connection; try again shortly"),
    sqlite3.SQLITE_READONLY: ("SQLITE_READONLY", "the database file cannot be written (read-only file or disk)"),
    sqlite3.SQLITE_CANTOPEN: ("SQLITE_CANTOPEN", "the database file (or its WAL) cannot be opened"),
    sqlite3.SQLITE_PROTOCOL: ("SQLITE_PROTOCOL", "the database's lock protocol failed; try again shortly"),
    sqlite3.SQLITE_NOMEM: ("SQLITE_NOMEM", "SQLite ran out of memory"),
    sqlite3.SQLITE_CORRUPT: ("SQLITE_CORRUPT", "the database file is damaged; restore it from a backup"),
    sqlite3.SQLITE_NOTADB: ("SQLITE_NOTADB", "the file is not a SQLite database"),
}
_ENVIRONMENT_ERRNOS = {
    errno.ENOSPC: "the disk is full; free some space",
    errno.EDQUOT: "the disk quota is used up; free some space",
    errno.EROFS: "the file system is read-only",
    errno.EIO: "the disk failed to read or write; check the disk",
}


def storage_problem(exc: BaseException) -> StorageProblem | None:
    """The environment problem behind a database error, or None when it is not one (then it is a bug).

    Looks at SQLite's result code of `exc` and of the errors it wraps or was
    raised while handling (peewee wraps sqlite3's errors; a failed rollback
    hides the error that caused it), so a full disk is recognised however it
    surfaces. The message says what happened and what a person can do.
    """
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, StorageProblem):
            return current
        code = getattr(current, "sqlite_errorcode", None)
        if isinstance(current, sqlite3.Error) and isinstance(code, int) and code & 0xFF in _ENVIRONMENT_CODES:
            name, advice = _ENVIRONMENT_CODES[code & 0xFF]
            return StorageProblem(f"the database is unavailable: {advice} (SQLite: {current})", name)
        todo.extend(arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException))
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def os_problem(exc: OSError, what: str) -> EnvironmentProblem:
    """An `OSError` on `what` (e.g. "home /x") as an environment problem with advice a person can act on."""
    advice = _ENVIRONMENT_ERRNOS.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc)
    return EnvironmentProblem(f"cannot write {what}: {reason}" + (f" ({advice})" if advice else ""))
