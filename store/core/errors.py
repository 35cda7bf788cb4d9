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

from typing import Literal, get_args

ErrorCode = Literal["invalid_params", "not_found", "conflict", "forbidden", "unavailable", "internal"]
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


class HomeLocked(EnvironmentProblem):
    """Another process owns this home."""

    code: ErrorCode = "unavailable"


class SchemaTooNew(EnvironmentProblem):
    """The database was written by a newer Jiyi than this one."""

    code: ErrorCode = "unavailable"


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
