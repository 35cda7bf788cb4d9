"""The errors a `Memory` call can raise, for callers above the service (the console, the socket host)."""

from jiyi.store.errors import (
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

__all__ = [
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
