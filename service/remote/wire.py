"""From the service's error codes back to Jiyi's errors (results are decoded by their declarations:
`Wire.invoke`, `service/ops/`)."""

from __future__ import annotations

from typing import Any

from store.core.errors import (
    Busy,
    Conflict,
    EnvironmentProblem,
    Forbidden,
    InvalidInput,
    JiyiError,
    NotFound,
)

ERRORS: dict[str, type[JiyiError]] = {
    "invalid_params": InvalidInput,
    # The request itself was refused before any method ran (a line over the service's limit, not JSON):
    # sending it again cannot help, so it is the caller's error, not the service's absence.
    "invalid_request": InvalidInput,
    "parse_error": InvalidInput,
    "not_found": NotFound,
    "forbidden": Forbidden,
    "unavailable": EnvironmentProblem,
}


class Unreachable(EnvironmentProblem):
    """The service could not be reached or did not answer (the client's own failure, `degraded`): it is not
    running, is starting, restarting or too busy; the service itself refused nothing."""


def error_for(code: str, message: str, data: Any = None) -> JiyiError:
    """The error a local `Memory` would have raised for a failure the service answered with `code`."""
    if code == "conflict":
        return Conflict(message, data if isinstance(data, dict) else None)
    if code == "busy":
        return Busy(message, data if isinstance(data, dict) else {})
    kind = ERRORS.get(code)
    if kind is None:
        return JiyiError(f"the service answered {code}: {message}")
    return kind(message)
