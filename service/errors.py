"""The errors a `Memory` call can raise, for callers above the service (the console, the socket host), and the
exit code of each cause, the same for the console and every command (docs/cli.md, Exit codes)."""

from store.core.errors import (
    Busy,
    ChangesMissing,
    Conflict,
    EnvironmentProblem,
    Forbidden,
    HomeLocked,
    HomeReadOnly,
    InvalidInput,
    JiyiError,
    NotFound,
    NotYours,
    SchemaTooNew,
    SensitiveContent,
    TooOpen,
    UnsafePath,
)

EXIT: dict[type[JiyiError], int] = {
    InvalidInput: 2,  # bad input: a malformed value, a bad setting or config.toml
    EnvironmentProblem: 3,  # the home or the machine is not usable: permissions, a lock, a read-only home …
    NotFound: 4,
    Conflict: 5,
    Busy: 5,
    Forbidden: 6,
}


def exit_code(exc: JiyiError) -> int:
    """The exit code of `exc`'s cause (1 for a cause not listed: a bug)."""
    return next((code for kind, code in EXIT.items() if isinstance(exc, kind)), 1)


class Cancelled(Exception):
    """The person cancelled a long operation; what it had not committed was rolled back."""


__all__ = [
    "EXIT",
    "Busy",
    "Cancelled",
    "ChangesMissing",
    "Conflict",
    "EnvironmentProblem",
    "Forbidden",
    "HomeLocked",
    "HomeReadOnly",
    "InvalidInput",
    "JiyiError",
    "NotFound",
    "NotYours",
    "SchemaTooNew",
    "SensitiveContent",
    "TooOpen",
    "UnsafePath",
    "exit_code",
]
