"""A facade method performed over the socket: `memory_recall = performed(DeskService.memory_recall)`.

The method's binding (`service/ops/perform.py`) names the operation; the call's arguments, bound to the
method's own signature (its defaults included), fill the params by field name, and the result is
decoded by the declaration (`Wire.invoke`). mypy sees the facade method's own signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from service.ops.perform import PERFORMS, Performer
from service.remote.channel import Wire

P = ParamSpec("P")
R = TypeVar("R")


class Remote(Protocol):
    """A remote part of the memory: its calls go over `_wire`."""

    _wire: Wire


class Performed(Generic[P, R]):
    """The descriptor: on a remote part, the facade method's call, made over the socket."""

    def __init__(self, method: Callable[Concatenate[Any, P], R]) -> None:
        bindings: tuple[Performer, ...] = getattr(method, PERFORMS, ())
        if len(bindings) != 1 or bindings[0].shape == "prepares":
            raise TypeError(f"{method.__qualname__} performs no one operation a remote memory can call")
        self.performer = bindings[0]
        self.signature = inspect.signature(method)

    @overload
    def __get__(self, remote: None, owner: type | None = None) -> Performed[P, R]: ...
    @overload
    def __get__(self, remote: Remote, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, remote: Remote | None, owner: type | None = None) -> Performed[P, R] | Callable[P, R]:
        if remote is None:
            return self
        performer, signature, wire = self.performer, self.signature, remote._wire
        operation = performer.operation

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = signature.bind(None, *args, **kwargs)
            bound.apply_defaults()
            values = bound.arguments
            result = wire.invoke(operation, operation.params(**{name: values[name] for name in performer.fields}))
            return getattr(result, performer.rows) if performer.rows else result  # type: ignore[no-any-return]

        return call


def performed(method: Callable[Concatenate[Any, P], R]) -> Performed[P, R]:
    """The remote call of the facade method `method` (which performs one operation)."""
    return Performed(method)
