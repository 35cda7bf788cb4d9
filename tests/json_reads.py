"""Reading a JSON reply in a test: `dig(reply, "result", "job_id")` walks into it, `items(...)` a list in it.

A reply is typed as JSON (`service.client.Json`), so each step says what it expects; a step that
is not there fails the test naming it, as indexing would.
"""

from __future__ import annotations

from service.client import Json, JsonObject


def dig(value: Json, *path: str | int) -> Json:
    """The value at `path` (object keys and list indexes) inside `value`."""
    for step in path:
        if isinstance(step, str):
            assert isinstance(value, dict), f"{step!r} of a {type(value).__name__}, not of an object"
            value = value[step]
        else:
            assert isinstance(value, list), f"[{step}] of a {type(value).__name__}, not of a list"
            value = value[step]
    return value


def obj(value: Json, *path: str | int) -> JsonObject:
    """The object at `path` inside `value`."""
    found = dig(value, *path)
    assert isinstance(found, dict), f"{path} is a {type(found).__name__}, not an object"
    return found


def items(value: Json, *path: str | int) -> list[Json]:
    """The list at `path` inside `value`."""
    found = dig(value, *path)
    assert isinstance(found, list), f"{path} is a {type(found).__name__}, not a list"
    return found
