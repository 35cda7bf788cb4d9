"""The errors a `Memory` call can raise, for callers above the service (the console, the socket host)."""

from store.core.errors import (
    Busy,
    ChangesMissing,
    Conflict,
    EnvironmentProblem,
    HomeLocked,
    InvalidInput,
    JiyiError,
    NotFound,
    SchemaTooNew,
    SensitiveContent,
    UnsafePath,
)


class Cancelled(Exception):
    """The person cancelled a long operation; what it had not committed was rolled back."""


__all__ = [
    "Busy",
    "Cancelled",
    "ChangesMissing",
    "Conflict",
    "EnvironmentProblem",
    "HomeLocked",
    "InvalidInput",
    "JiyiError",
    "NotFound",
    "SchemaTooNew",
    "SensitiveContent",
    "UnsafePath",
]
