"""A facade method performed over the socket: `memory_recall = performed(DeskService.memory_recall)`.

The method's binding (`service/ops/perform.py`) names the operation; the call's arguments, bound to the
method's own signature (its defaults included), fill the params by field name, and the result is
decoded by the declaration (`Wire.invoke`). mypy sees the facade method's own signature.

The facade's modules bring the store (peewee, the database drivers), which a command answered by a running
service never needs: the remote memory names the facade's classes by `Deferred` at run time (mypy reads the
real ones), and a method's binding is read when it is first called. The console, which will call them all,
imports them beforehand (`import_facades`, on a thread of its own while its service starts): on its first
call, after its service answered, they cost its overview about 0.5 s.
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from service.ops.perform import PERFORMS, Performer
from service.remote.channel import Wire

P = ParamSpec("P")
R = TypeVar("R")


class Remote(Protocol):
    """A remote part of the memory: its calls go over `_wire`."""

    _wire: Wire


_FACADES: set[str] = set()  # the modules every `Deferred` names


def import_facades() -> None:
    """Import every module a `Deferred` names now, so that no first call waits for them (see the module)."""
    for module in sorted(_FACADES):
        importlib.import_module(module)


class Deferred:
    """A facade class named by its module, imported when one of its methods is first called over the socket."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        _FACADES.add(module)

    def __getattr__(self, method: str) -> DeferredMethod:
        if method.startswith("__"):
            raise AttributeError(method)
        return DeferredMethod(self, method)


class DeferredMethod:
    """`Deferred(...).method`: the facade method, found when asked for."""

    def __init__(self, owner: Deferred, name: str) -> None:
        self.owner, self.name = owner, name

    def resolve(self) -> Callable[..., Any]:
        cls = getattr(importlib.import_module(self.owner.module), self.owner.name)
        return getattr(cls, self.name)  # type: ignore[no-any-return]


_resolving = threading.Lock()


class Performed(Generic[P, R]):
    """The descriptor: on a remote part, the facade method's call, made over the socket."""

    def __init__(self, method: Callable[Concatenate[Any, P], R]) -> None:
        self._method: Callable[..., Any] | DeferredMethod = method
        self._bound: tuple[Performer, inspect.Signature] | None = None
        if not isinstance(method, DeferredMethod):
            self._binding()  # a facade already imported: its binding is checked at once

    def _binding(self) -> tuple[Performer, inspect.Signature]:
        with _resolving:
            if self._bound is None:
                method = self._method.resolve() if isinstance(self._method, DeferredMethod) else self._method
                bindings: tuple[Performer, ...] = getattr(method, PERFORMS, ())
                if len(bindings) != 1 or bindings[0].shape == "prepares":
                    raise TypeError(f"{method.__qualname__} performs no one operation a remote memory can call")
                self._bound = bindings[0], inspect.signature(method)
            return self._bound

    @property
    def performer(self) -> Performer:
        return self._binding()[0]

    @property
    def signature(self) -> inspect.Signature:
        return self._binding()[1]

    @overload
    def __get__(self, remote: None, owner: type | None = None) -> Performed[P, R]: ...
    @overload
    def __get__(self, remote: Remote, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, remote: Remote | None, owner: type | None = None) -> Performed[P, R] | Callable[P, R]:
        if remote is None:
            return self
        wire = remote._wire

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            performer, signature = self._binding()
            operation = performer.operation
            bound = signature.bind(None, *args, **kwargs)
            bound.apply_defaults()
            values = bound.arguments
            result = wire.invoke(operation, operation.params(**{name: values[name] for name in performer.fields}))
            return performer.back(result)  # type: ignore[no-any-return]

        return call


def performed(method: Callable[Concatenate[Any, P], R]) -> Performed[P, R]:
    """The remote call of the facade method `method` (which performs one operation)."""
    return Performed(method)
