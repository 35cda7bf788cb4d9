"""Errors of the store, split by cause.

`EnvironmentProblem` means the machine or the files are not as they must be (the
user can fix it); `InvalidInput` means a caller handed us something malformed;
`Conflict` means the request was valid but the state moved under it. Each message
names the problem in words a person can act on.
"""

from __future__ import annotations


class JiyiError(Exception):
    """Base of every error Jiyi raises on purpose."""

    code = "internal"


class EnvironmentProblem(JiyiError):
    """The home, the database file or the machine is not usable as it is."""

    code = "unavailable"


class UnsafePath(EnvironmentProblem):
    """A path is a symlink, hard-linked, owned by someone else or too open."""

    code = "forbidden"


class HomeLocked(EnvironmentProblem):
    """Another process owns this home."""

    code = "unavailable"


class SchemaTooNew(EnvironmentProblem):
    """The database was written by a newer Jiyi than this one."""

    code = "unavailable"


class InvalidInput(JiyiError):
    """A caller passed a malformed or unacceptable value."""

    code = "invalid_params"


class SensitiveContent(InvalidInput):
    """The value looks like a credential or matches the sensitive-word list."""

    code = "forbidden"


class Forbidden(JiyiError):
    """The caller may not do this (e.g. an agent approving what only a person may)."""

    code = "forbidden"


class NotFound(JiyiError):
    """The thing asked for does not exist."""

    code = "not_found"


class Conflict(JiyiError):
    """The state changed since the caller looked; nothing was written.

    `details` carries what the caller needs to recover (e.g. the current
    revision and content of a document); the socket sends it as `error.data`.
    """

    code = "conflict"

    def __init__(self, message: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.details = details
