"""Operations the tests declare for the small method tables they build: served as every socket method is,
through a declaration (`MethodTable.op`), their handlers called as `handler(memory, args, context)`."""

from __future__ import annotations

from service.ops.declare import Args, Kind, Operation


class NoArgs(Args, frozen=True):
    """The params of a test's operation: none (an unknown field is refused, as for every operation)."""


def declared(name: str, *, writes: bool = False) -> Operation[NoArgs, object]:
    """A test's operation `name` that takes no params: a read, or a write."""
    kind: Kind = "write" if writes else "read"
    return Operation(name, NoArgs, object, kind, not writes, f"a test's {kind} ({name})")
