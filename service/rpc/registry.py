"""The method registry: each domain serves its socket methods in a `MethodTable`;
a `Registry` joins the tables and is what dispatch looks names up in.

A method is served for its declaration (`@table.op(OPERATION)`, `service/ops/`):
its name, kind and params check come from there, and its handler is called as
`handler(memory, params, context)` with the params decoded and checked. Every
socket method is served so, the small tables tests build as well: there is no
undeclared method.

A domain module imports only this module (and params, the facade, the store):
never another domain module and never the package that builds the registry,
so the method modules cannot import each other back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from service.memory.memory import Memory
from service.ops.declare import Args, Operation
from service.ops.perform import Performer, performers
from service.rpc.context import CallContext
from service.rpc.decode import Decoder, decoder

OpHandler = Callable[[Memory, Any, CallContext], Any]
A = TypeVar("A", bound=Args)
R = TypeVar("R")
GroupedHandler = Callable[[Memory, A, CallContext], Callable[[], R]]


@dataclass(frozen=True)
class Method:
    """One socket method: its wire name, its handler and how the host may run it."""

    name: str
    handler: OpHandler
    writes: bool
    # The declaration it serves, and the check of its params derived from it.
    operation: Operation[Any, Any]
    decode: Decoder
    # A write that may share a transaction with others (`service.memory.group` says what that asks of it).
    # Its handler checks and prepares, needing no lock, and returns the write itself as a call without
    # arguments: the host prepares the next writes while a group holds the write lock.
    grouped: bool = False
    # When this says so, the call touches no file and may be answered on the event loop.
    instant: Callable[[Memory], bool] | None = None
    # Maintenance that may run for minutes (an import, a rebuild): the host runs it off the request workers,
    # so that it never holds one of the workers agents' short requests wait for.
    long: bool = False

    def bind_args(self, memory: Memory, args: Args, context: CallContext) -> Callable[[], Any]:
        """The handler bound to its params, already checked (`decode`)."""
        return functools.partial(self.handler, memory, args, context)


class MethodTable:
    """The methods of one domain, each serving its declaration (`@table.op(OPERATION)`); a name declared twice
    is a bug."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self._methods: dict[str, Method] = {}

    def op(
        self,
        operation: Operation[A, R],
        *,
        grouped: bool = False,
        instant: Callable[[Memory], bool] | None = None,
        long: bool = False,
    ) -> Callable[[Callable[[Memory, A, CallContext], R]], Callable[[Memory, A, CallContext], R]]:
        """Serve `operation` with the decorated handler, which gets its params checked and decoded
        (`service.rpc.decode`) and the call's context, and answers the operation's result type."""

        def serve(handler: Callable[[Memory, A, CallContext], R]) -> Callable[[Memory, A, CallContext], R]:
            check = decoder(operation.params)
            self._add(Method(operation.name, handler, operation.writes, operation, check, grouped, instant, long))
            return handler

        return serve

    def performed(
        self, part: str, performer: Performer, *, instant: Callable[[Memory], bool] | None = None, long: bool = False
    ) -> None:
        """Serve the operation the facade method of `performer` performs, on `memory.<part>` ("": the facade)."""
        operation, name, answer = performer.operation, performer.method, performer.answer

        def handler(memory: Memory, args: Args, _context: CallContext) -> Any:
            return answer(getattr(getattr(memory, part) if part else memory, name), args)

        grouped = performer.shape == "prepares"
        check = decoder(operation.params)
        self._add(Method(operation.name, handler, operation.writes, operation, check, grouped, instant, long))

    def grouped(self, operation: Operation[A, R]) -> Callable[[GroupedHandler[A, R]], GroupedHandler[A, R]]:
        """Serve `operation`, a write the host may commit together with others (see `service.memory.group`):
        the decorated handler checks and prepares, and answers the write itself as a call without arguments."""

        def serve(handler: GroupedHandler[A, R]) -> GroupedHandler[A, R]:
            method = Method(operation.name, handler, True, operation, decoder(operation.params), True)
            if not operation.writes:
                raise ValueError(f"socket method {operation.name!r} is grouped but does not write")
            self._add(method)
            return handler

        return serve

    def _add(self, method: Method) -> None:
        name = method.name
        if name in self._methods:
            raise ValueError(f"socket method {name!r} is declared twice in the {self.domain} table")
        if method.grouped and not method.writes:
            raise ValueError(f"socket method {name!r} is grouped but does not write")
        if method.long and method.instant is not None:
            raise ValueError(f"socket method {name!r} cannot be both long and instant")
        if method.long and method.grouped:
            raise ValueError(f"socket method {name!r} cannot be both long and grouped")
        self._methods[name] = method

    def __iter__(self) -> Iterator[Method]:
        return iter(self._methods.values())


def performed_table(
    parts: Mapping[str, type], *, instant: Mapping[str, Callable[[Memory], bool]], long: frozenset[str]
) -> MethodTable:
    """The operations the facade's methods perform (`parts`: the facade's classes by their attribute of `Memory`),
    each served by its method; `instant` and `long` say how the host runs some of them (see `Method`)."""
    table = MethodTable("the facade")
    for part, kind in parts.items():
        for performer in performers(kind):
            name = performer.operation.name
            table.performed(part, performer, instant=instant.get(name), long=name in long)
    return table


class Registry(Mapping[str, Method]):
    """Every socket method by name, joined from domain tables; a name two tables declare is refused.

    A declared method is found under its aliases too (`Operation.aliases`): the same `Method`, served the same
    in every way. The registry iterates its own names only, one per method."""

    def __init__(self, *tables: MethodTable) -> None:
        self._methods: dict[str, Method] = {}
        self._aliases: dict[str, str] = {}
        owner: dict[str, str] = {}
        for table in tables:
            for method in table:
                if method.name in owner:
                    raise ValueError(
                        f"socket method {method.name!r} is declared by both {owner[method.name]} and {table.domain}"
                    )
                owner[method.name] = table.domain
                self._methods[method.name] = method
                for alias in () if method.operation is None else method.operation.aliases:
                    self._aliases[alias] = method.name
        taken = sorted(set(self._aliases) & set(self._methods))
        if taken:
            raise ValueError(f"socket method {taken[0]!r} is both a method and another method's alias")

    def __getitem__(self, name: str) -> Method:
        return self._methods[self._aliases.get(name, name)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._methods)

    def __len__(self) -> int:
        return len(self._methods)
