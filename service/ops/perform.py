"""Each operation bound to the facade method that performs it: `@performs(desk.RECALL)` on
`DeskService.memory_recall`. The operation's params are passed to the method by field name.

The binding is checked when the facade is imported (every field is a parameter of the method, every
parameter without a default is a field or fixed by the binding) and by mypy (the method answers the
operation's result). From it come the socket's handlers (`service/rpc/methods/`) and the remote memory's
methods (`service/remote/memory.py`). Four shapes:

- `performs`: the method answers the result (or, `converts=True`, what the result type makes the result of
  with its `of`, and turns back into with its `back()` for a remote caller);
- `prepares`: a write the host may group with others: the method checks, prepares and answers the write;
- `lists` (and `holds`, for an answer that is not a list): the result holds the method's answer in one
  field; its other fields repeat the params' fields of the same name, or are set by the binding (`also`);
- `pages`: the method answers a page of rows for `limit` and `offset`; the result holds them and the
  `next_offset` (the socket asks the method for one row more, to know whether there is a next page); `row`
  converts each row as `converts` does.

An operation whose handler adapts in any other way is served by a named handler of its own
(`service/rpc/methods/`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, Protocol, TypeVar

import msgspec

from service.ops.declare import Args, Operation

Shape = Literal["performs", "prepares", "lists", "pages"]
P = ParamSpec("P")
A = TypeVar("A", bound=Args)
R = TypeVar("R")
T = TypeVar("T")

PERFORMS = "__jiyi_performs__"
"""The attribute of a facade method holding the operations it performs (`Performer`s)."""


class Converts(Protocol):
    """A wire type made of what the facade answers (`of`), and turned back into it (`back`)."""

    @classmethod
    def of(cls, answer: Any) -> Any: ...

    def back(self) -> Any: ...


@dataclass(frozen=True)
class Performer:
    """One operation performed by one facade method."""

    operation: Operation[Any, Any]
    function: Callable[..., Any]
    shape: Shape
    fields: tuple[str, ...]
    """The params' fields passed to the method, by name."""
    fixed: Mapping[str, object] = field(default_factory=dict)
    """Arguments the binding sets, whatever the params say (`actor="user"` for the person's operations)."""
    rows: str = ""
    """`lists` and `pages`: the result's field holding the method's answer."""
    also: Mapping[str, object] = field(default_factory=dict)
    """`lists`: the result's fields the binding sets."""
    converts: type[Converts] | None = None
    """The wire type making the answer (`performs`: the result's; `pages`: a row's) with `of`, undone by `back()`."""
    echoed: tuple[str, ...] = ()
    """`lists`: the result's fields repeating the params' of the same name."""

    @property
    def method(self) -> str:
        return self.function.__name__

    def arguments(self, args: Args) -> dict[str, Any]:
        """The method's keyword arguments for these params."""
        values = {name: getattr(args, name) for name in self.fields}
        values.update(self.fixed)
        return values

    def answer(self, method: Callable[..., Any], args: Args) -> Any:
        """Perform the operation with `method` (the facade's, bound), answering its result."""
        values = self.arguments(args)
        if self.shape == "pages":
            limit = values["limit"]
            values["limit"] = limit + 1
            rows = method(**values)
            more = len(rows) > limit
            page = {self.rows: self._rows(rows[:limit]), "next_offset": values["offset"] + limit if more else None}
            return self.operation.result(**page)
        if self.shape == "lists":
            echoed = {name: getattr(args, name) for name in self.echoed}
            return self.operation.result(**echoed, **self.also, **{self.rows: self._rows(method(**values))})
        answer = method(**values)
        if self.converts is None:
            return answer
        if self.shape == "prepares":
            make = self.converts.of
            return lambda: make(answer())
        return self.converts.of(answer)

    def _rows(self, rows: Any) -> Any:
        return rows if self.converts is None else [self.converts.of(row) for row in rows]

    def back(self, result: Any) -> Any:
        """What the facade method answers, from the operation's result (a remote call's)."""
        if self.shape in ("pages", "lists"):
            rows = getattr(result, self.rows)
            return rows if self.converts is None else [row.back() for row in rows]
        return result if self.converts is None else result.back()


def performers(kind: type) -> list[Performer]:
    """The operations the methods of the facade class `kind` perform, in the order they are written."""
    found: list[Performer] = []
    for value in vars(kind).values():
        found += getattr(value, PERFORMS, ())
    return found


def _bind(
    operation: Operation[Any, Any],
    function: Callable[..., Any],
    shape: Shape,
    fixed: Mapping[str, object] | None,
    drop: tuple[str, ...],
    *,
    also: Mapping[str, object] | None = None,
    converts: type[Converts] | None = None,
) -> None:
    """Check that `function` takes the params of `operation` by name, and record the binding on it."""
    fixed = dict(fixed or {})
    where = f"{function.__qualname__} performing {operation.name!r}"
    parameters = dict(inspect.signature(function).parameters)
    parameters.pop("self", None)
    names = tuple(
        f.name for f in msgspec.structs.fields(operation.params) if f.name not in drop and f.name not in fixed
    )
    unknown = [name for name in (*names, *fixed) if name not in parameters]
    if unknown:
        raise TypeError(f"{where}: the method takes no parameter {unknown[0]!r}")
    missing = [
        name
        for name, parameter in parameters.items()
        if parameter.default is inspect.Parameter.empty and name not in names and name not in fixed
    ]
    if missing:
        raise TypeError(f"{where}: the params give no {missing[0]!r}")
    rows = ""
    also = dict(also or {})
    if converts is not None and not (hasattr(converts, "of") and hasattr(converts, "back")):
        raise TypeError(f"{where}: {converts.__name__} has no `of` and `back` to convert with")
    if shape in ("lists", "pages"):
        given = {f.name for f in msgspec.structs.fields(operation.params)} if shape == "lists" else set()
        replies = [
            f.name for f in msgspec.structs.fields(operation.result) if f.name not in ("next_offset", *given, *also)
        ]
        if len(replies) != 1:
            raise TypeError(f"{where}: its result must hold the rows in one field, not {replies}")
        rows = replies[0]
        if shape == "pages" and not {"limit", "offset"} <= set(names):
            raise TypeError(f"{where}: a page takes limit and offset")
    held = [f.name for f in msgspec.structs.fields(operation.result)] if shape == "lists" else []
    echoed = tuple(name for name in held if name != rows and name not in also)
    performer = Performer(operation, function, shape, names, fixed, rows, also, converts, echoed)
    setattr(function, PERFORMS, (*getattr(function, PERFORMS, ()), performer))


def performs(
    operation: Operation[A, R], *, fixed: Mapping[str, object] | None = None, drop: tuple[str, ...] = ()
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """The decorated facade method performs `operation`, answering its result (`fixed`: arguments the
    binding sets; `drop`: params fields the method does not take, such as an `actor` the binding fixes)."""

    def bind(function: Callable[P, R]) -> Callable[P, R]:
        _bind(operation, function, "performs", fixed, drop)
        return function

    return bind


def converts(
    operation: Operation[A, Any], *, fixed: Mapping[str, object] | None = None
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """The decorated facade method performs `operation`; its result type makes the result of the method's
    answer (`Result.of(answer)`) and a remote call turns it back (`result.back()`)."""

    def bind(function: Callable[P, T]) -> Callable[P, T]:
        _bind(operation, function, "performs", fixed, (), converts=operation.result)
        return function

    return bind


def holds(
    operation: Operation[A, Any], *, fixed: Mapping[str, object] | None = None, also: Mapping[str, object] | None = None
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """The decorated facade method answers what `operation`'s result holds in one field; the result's other
    fields repeat the params' fields of the same name, or are set by `also`."""

    def bind(function: Callable[P, T]) -> Callable[P, T]:
        _bind(operation, function, "lists", fixed, (), also=also)
        return function

    return bind


def prepares(
    operation: Operation[A, R], *, fixed: Mapping[str, object] | None = None
) -> Callable[[Callable[P, Callable[[], R]]], Callable[P, Callable[[], R]]]:
    """The decorated facade method checks and prepares `operation`, a write the host may group with others,
    and answers the write (a call without arguments answering the result)."""

    def bind(function: Callable[P, Callable[[], R]]) -> Callable[P, Callable[[], R]]:
        _bind_write(operation, function, fixed, None)
        return function

    return bind


def prepares_converted(
    operation: Operation[A, Any], *, fixed: Mapping[str, object] | None = None
) -> Callable[[Callable[P, Callable[[], T]]], Callable[P, Callable[[], T]]]:
    """`prepares`, the write answering what the result type makes the result of (as `converts` says)."""

    def bind(function: Callable[P, Callable[[], T]]) -> Callable[P, Callable[[], T]]:
        _bind_write(operation, function, fixed, operation.result)
        return function

    return bind


def _bind_write(
    operation: Operation[Any, Any],
    function: Callable[..., Any],
    fixed: Mapping[str, object] | None,
    result: type[Converts] | None,
) -> None:
    if not operation.writes:
        raise TypeError(f"{function.__qualname__} prepares {operation.name!r}, which does not write")
    _bind(operation, function, "prepares", fixed, (), converts=result)


def lists(
    operation: Operation[A, Any], *, fixed: Mapping[str, object] | None = None, row: type[Converts] | None = None
) -> Callable[[Callable[P, list[T]]], Callable[P, list[T]]]:
    """The decorated facade method answers the rows `operation`'s result holds in its one field (`row`: the
    wire's row type, as `pages` says)."""

    def bind(function: Callable[P, list[T]]) -> Callable[P, list[T]]:
        _bind(operation, function, "lists", fixed, (), converts=row)
        return function

    return bind


def pages(
    operation: Operation[A, Any], *, fixed: Mapping[str, object] | None = None, row: type[Converts] | None = None
) -> Callable[[Callable[P, list[T]]], Callable[P, list[T]]]:
    """The decorated facade method answers `limit` rows from `offset`: one page of `operation`'s result
    (`row`: the wire's row type, making each with its `of` and turned back with `back()`)."""

    def bind(function: Callable[P, list[T]]) -> Callable[P, list[T]]:
        _bind(operation, function, "pages", fixed, (), converts=row)
        return function

    return bind
