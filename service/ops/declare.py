"""One socket operation declared once: its name, parameters, result, errors, kind, idempotency, description.

Everything else is derived from an `Operation`:

- the socket's check of the parameters, refusing bad input with the message
  naming the field (`service/rpc/decode.py`, from the fields' `Check`s);
- the facade method that performs it (`service/ops/perform.py`: `@performs(OPERATION)` on the method,
  its params passed by field name), from which come the handler table (`service/rpc/methods/`: derived,
  or a named handler `@TABLE.op(OPERATION)` where it adapts) and the remote `Memory` the attached console
  uses (`service/remote/calls.py`: `performed(Facade.method)`; `Wire.invoke(OPERATION, params)` encodes
  the params and decodes the result);
- the JSON Schema of every operation (`schema()`, printed by `jiyi schema`);
- the method table of `docs/protocol.md` (`service/ops/docs.py`; a test fails
  when the docs and the declarations differ);
- who may call it: an operation only the person may perform says so (`Person`), and the socket's
  dispatcher answers an agent's request for it `forbidden` (`service/rpc/dispatch.py`, the one place).

Parameters are `Args` structs (msgspec, chosen over pydantic by measurement:
decoding a resolve result 1.9 µs against 5.3 µs, encoding 1.1 µs against
3.0 µs; json.loads alone takes 7.4 µs; both give usable JSON Schema, msgspec's
with `$defs` and no per-field titles). Results are frozen structs: the rows the
console shows are defined in `service/wire/` (the facade answers them, the console reads
their attributes); a few replies are still a `TypedDict`, or a plain object where only agents read them
(the learning leases and scan, `context.prepare`, `transition.assess`, the TaskWizard import).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, get_args

import msgspec

from service.memory.domain import Domain
from service.ops.fields import Check
from store.core.errors import ErrorCode

Kind = Literal["read", "write"]

ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
"""The codes a method's failure may carry (`store.core.errors.ErrorCode`; `docs/protocol.md`, Error codes)."""

COMMON_ERRORS = ("invalid_params", "unavailable", "internal")
"""What any operation may answer, besides the ones it names."""


class Args(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """The parameters of an operation. A subclass may add `check()` for rules across fields (raising
    `InvalidInput`); the socket calls it after every field passed its own check."""

    def check(self) -> None:
        """Refuse a combination of fields the operation does not take (nothing by default)."""


class NoArgs(Args, frozen=True):
    """An operation that takes no parameters."""


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """A result row: frozen, decoded once at the socket."""


A = TypeVar("A", bound=Args)
R = TypeVar("R")


@dataclass(frozen=True)
class Person:
    """What of an operation only the person may do: the person decides, agents propose (DESIGN.md, The service).

    The console and the `jiyi` commands act as the person (they present the person's key when they say hello,
    `docs/service.md`); an agent's request that needs the person is answered `forbidden`. `decides` names the
    decision for the reply and the docs; `when` selects the calls that need the person (None: every call),
    and `condition` says which in the docs; `instead` tells an agent what it may do itself."""

    decides: str
    when: Callable[[Any], bool] | None = None
    condition: str = ""
    instead: str = ""

    def needed_for(self, args: Args) -> bool:
        """Whether this call (its decoded params) needs the person."""
        return self.when is None or bool(self.when(args))

    def describe(self) -> str:
        """When the person is needed, as the docs say it: "always", or the condition."""
        return "always" if self.when is None else self.condition


def _acts_as_user(args: Args) -> bool:
    return getattr(args, "actor", None) == "user"


def as_user(decides: str, instead: str = "") -> Person:
    """The person is needed when the request says `actor: user`: a claim only the person may make."""
    return Person(decides, _acts_as_user, "with actor user", instead)


def always(decides: str, instead: str = "") -> Person:
    """Every call needs the person."""
    return Person(decides, None, "", instead)


@dataclass(frozen=True)
class Operation(Generic[A, R]):
    """One socket method as its callers see it."""

    name: str
    params: type[A]
    result: type[R]
    kind: Kind
    idempotent: bool
    """Sending it twice does what sending it once does (a read always; a write when it says so)."""
    description: str
    """What it does, for the model of an agent choosing a tool (one or two sentences)."""
    errors: tuple[str, ...] = ()
    """The error codes it answers beyond `COMMON_ERRORS`."""
    changes: frozenset[Domain] = frozenset()
    """The domains a write may change (Anki's `OpChanges`): its reply's `changes` names those it did change,
    always among these; the pages showing them reload. A read changes none."""
    person: Person | None = None
    """What of it only the person may do (None: anyone may call it); an agent asking for it is `forbidden`."""
    aliases: tuple[str, ...] = ()
    """Other names the socket serves it under, the same in every way: the consistent name beside a name that
    stays for compatibility (`learning.record.list` beside `learning.records.list`; a desk operation's name
    with the `memory.` prefix the rest of the desk's carry)."""

    def __post_init__(self) -> None:
        if self.name in self.aliases or len(set(self.aliases)) != len(self.aliases):
            raise ValueError(f"operation {self.name!r} names itself or one alias twice among its aliases")
        unknown = set(self.errors) - set(ERROR_CODES)
        if unknown:
            raise ValueError(f"operation {self.name!r} names unknown error codes {sorted(unknown)}")
        if self.kind == "read" and not self.idempotent:
            raise ValueError(f"operation {self.name!r} is a read, and a read is idempotent")
        if self.kind == "read" and self.changes:
            raise ValueError(f"operation {self.name!r} is a read, and a read changes no domain")
        fields = {field.encode_name for field in msgspec.structs.fields(self.params)}
        if "actor" in fields and self.person is None:
            # `actor: user` claims the person's authority: whoever declares the field says who may claim it.
            raise ValueError(f"operation {self.name!r} takes an actor but does not say who may send actor user")
        if self.person is not None and "forbidden" not in self.errors:
            raise ValueError(f"operation {self.name!r} needs the person and must name the error `forbidden`")

    @property
    def writes(self) -> bool:
        return self.kind == "write"

    def all_errors(self) -> tuple[str, ...]:
        return (*self.errors, *(code for code in COMMON_ERRORS if code not in self.errors))

    def schema(self) -> dict[str, Any]:
        """The operation as JSON Schema: `params` and `result`, their shared `$defs`, and what it is."""
        (params, result), defs = msgspec.json.schema_components(
            (self.params, self.result), ref_template="#/$defs/{name}", schema_hook=_open_value
        )
        for part in (params, result, defs):
            _unmark(part)
        _add_checks(defs, self.params)
        described: dict[str, Any] = {"name": self.name}
        if self.aliases:  # said only where there are some: an operation without keeps the schema it had
            described["aliases"] = list(self.aliases)
        return described | {
            "description": self.description,
            "kind": self.kind,
            "idempotent": self.idempotent,
            "errors": list(self.all_errors()),
            "changes": sorted(self.changes),
            "person": None if self.person is None else {"decides": self.person.decides, "when": self.person.describe()},
            "params": params,
            "result": result,
            "$defs": defs,
        }


# `object` in a declaration (an open object's values: `dict[str, object]`) is any JSON value. msgspec has
# no schema of its own for it: it is marked while the schema is built, then written as msgspec writes `Any`.
_OPEN = {"$comment": "jiyi: any JSON value"}


def _open_value(kind: type) -> dict[str, object]:
    """The schema of `object`; for any other type none (an empty schema: msgspec then refuses the type, naming it)."""
    return dict(_OPEN) if kind is object else {}


def _unmark(node: object) -> None:
    """Drop the marks `_open_value` left: an open value is `{}`, and an open object's or list's values unsaid."""
    if isinstance(node, list):
        for item in node:
            _unmark(item)
    elif isinstance(node, dict):
        if node.get("$comment") == _OPEN["$comment"]:
            del node["$comment"]
        for key in list(node):
            _unmark(node[key])
            if key in ("additionalProperties", "items") and node[key] == {}:
                del node[key]


def checks_of(params: type[Args]) -> dict[str, Check | None]:
    """Each field of `params` (by wire name) with the `Check` its annotation carries (None: none)."""
    hints = typing.get_type_hints(params, include_extras=True)
    found: dict[str, Check | None] = {}
    for field in msgspec.structs.fields(params):
        extras = getattr(hints[field.name], "__metadata__", ())
        found[field.encode_name] = next((extra for extra in extras if isinstance(extra, Check)), None)
    return found


def _add_checks(defs: dict[str, Any], params: type[Args]) -> None:
    """Write each field's caps into the params' schema (msgspec sees only its own `Meta`)."""
    properties = defs.get(params.__name__, {}).get("properties", {})
    for name, check in checks_of(params).items():
        if check is None or name not in properties:
            continue
        field = properties[name]
        target = next((branch for branch in field.get("anyOf", []) if branch.get("type") != "null"), field)
        target.update(check.keywords())
