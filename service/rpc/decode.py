"""The check of an operation's params, derived from its declaration.

msgspec decodes a request's params in one call, into a struct derived from the declared one (`_wire`): each
field's `Check` written in msgspec's terms where msgspec says exactly what the check says (a string of at
most N characters, an integer between two bounds, one of some texts, true or false, epoch seconds, a list
of short strings), unknown parameters refused. What msgspec cannot say exactly (a cap in bytes, an object's
size as JSON, a time as ISO-8601 text, the apps' two shapes, a value the struct's `check()` reads whole) is
taken as it is and read by its `Params` getter, as before.

The messages a client sees are `params.py`'s, field by field (`checked`): when msgspec or a getter refuses
the params, they are checked again that way (fields in their declared order, then `Params.done` for unknown
parameters), which raises the message naming the field. Both ways accept the same params and give the same
values (tests/unit/service/test_decode_paths.py holds them to it); a refusal costs the second reading, which is
the rare case. Then the struct's own `check()` runs its rules across fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec

from service.json_types import JsonObject
from service.ops.declare import Args, checks_of
from service.ops.fields import (
    EPOCH_MAX,
    Apps,
    Boolean,
    Check,
    Choice,
    Document,
    Epoch,
    Integer,
    Items,
    Moment,
    Raw,
    Strings,
    Text,
)
from service.rpc.params import Params, check_epoch
from store.core.errors import InvalidInput

Decoder = Callable[[JsonObject], Args]


@dataclass(frozen=True)
class _Field:
    attr: str
    name: str  # on the wire
    check: Check | None
    required: bool
    default: Any


def _read(p: Params, f: _Field) -> Any:
    value = _value(p, f)
    if value is None and f.required:
        raise InvalidInput(f"params.{f.name} is required")
    return value


def _value(p: Params, f: _Field) -> Any:
    check, name = f.check, f.name
    if isinstance(check, Text):
        if f.required:
            return p.text(name, max_chars=check.max_chars, max_bytes=check.max_bytes)
        value = p.opt_text(name, max_chars=check.max_chars, max_bytes=check.max_bytes)
        return f.default if value is None else value
    if isinstance(check, Choice):
        return p.choice(name, check.options, f.default)
    if isinstance(check, Integer):
        if not f.required and f.default is None and p.raw(name) is None:
            return None  # an optional integer left out
        return p.integer(name, None if f.required else f.default, low=check.low, high=check.high)
    if isinstance(check, Boolean):
        return p.boolean(name, f.default)
    if isinstance(check, Epoch):
        value = p.raw(name)
        return f.default if value is None else check_epoch(value, f"params.{name}")
    if isinstance(check, Apps):
        apps = p.apps(name, required=f.required, max_items=check.max_items)
        return f.default if apps is None else apps
    if isinstance(check, Strings):
        strings = p.strings(name, max_items=check.max_items, max_chars=check.max_chars)
        return f.default if strings is None else strings
    if isinstance(check, Items):
        items = p.raw(name)
        if items is None:
            return f.default
        if not isinstance(items, list):
            raise InvalidInput(f"params.{name} must be a list")
        if len(items) > check.max_items:
            raise InvalidInput(f"params.{name} has more than {check.max_items} items")
        return items
    if isinstance(check, Document):
        document = p.document(name, max_bytes=check.max_bytes)
        return f.default if document is None else document
    if isinstance(check, Raw):
        raw = p.raw(name)
        return f.default if raw is None else raw
    if isinstance(check, Moment):
        moment = p.moment(name)
        return f.default if moment is None else moment
    raise TypeError(f"params field {name!r} declares no check")


def _plan(params: type[Args]) -> tuple[_Field, ...]:
    checks = checks_of(params)
    fields = []
    for info in msgspec.structs.fields(params):
        check = checks[info.encode_name]
        if check is None:
            raise TypeError(f"{params.__name__}.{info.name} declares no check (Annotated[..., Text(...)] and so on)")
        default = None if info.default is msgspec.NODEFAULT else info.default
        fields.append(_Field(info.name, info.encode_name, check, info.required, default))
    return tuple(fields)


def checked(params: type[Args]) -> Decoder:
    """The params read field by field through the `Params` getters, which refuse bad input naming the field:
    the messages clients see, and the reading msgspec's is held to. The struct's `check()` is not run."""
    return _field_by_field(params, _plan(params))


def by_getters(params: type[Args]) -> Decoder:
    """The whole reading without msgspec: `checked`, then the struct's `check()`. What `decoder` answers for
    every params, refusals and their messages included (the differential test and `bench/params_decode.py`)."""
    read = checked(params)

    def decode(data: JsonObject) -> Args:
        args = read(data)
        args.check()
        return args

    return decode


def _field_by_field(params: type[Args], plan: tuple[_Field, ...]) -> Decoder:
    def decode(data: JsonObject) -> Args:
        p = Params(data)
        values = {f.attr: _read(p, f) for f in plan}
        p.done()
        return params(**values)

    return decode


def _typed(check: Check) -> Any:
    """The msgspec type that accepts exactly what `check` accepts, giving the value its getter gives;
    None where msgspec cannot say it exactly (the getter reads the field)."""
    if isinstance(check, Text):
        return None if check.max_bytes is not None else Annotated[str, msgspec.Meta(max_length=check.max_chars)]
    if isinstance(check, Choice):
        return Literal.__getitem__(check.options)
    if isinstance(check, Integer):
        return Annotated[int, msgspec.Meta(ge=check.low, le=check.high)]
    if isinstance(check, Boolean):
        return bool
    if isinstance(check, Epoch):  # an integer is taken as a float, as `check_epoch` answers it
        return Annotated[float, msgspec.Meta(ge=0, le=EPOCH_MAX)]
    if isinstance(check, Strings):
        text = Annotated[str, msgspec.Meta(max_length=check.max_chars)]
        return Annotated[list[text], msgspec.Meta(max_length=check.max_items)]
    return None


def _wire(params: type[Args], plan: tuple[_Field, ...]) -> type[msgspec.Struct]:
    """The struct msgspec decodes the params into: the declared fields under their wire names, each typed as
    its check accepts (`Any` where a getter reads it); an optional field takes null as left out."""
    fields: list[tuple[str, Any, Any]] = []
    for f in plan:
        assert f.check is not None
        typed = _typed(f.check)
        kind = Any if typed is None else typed if f.required else typed | None
        fields.append(
            (f.attr, kind, msgspec.field(name=f.name) if f.required else msgspec.field(name=f.name, default=None))
        )
    return msgspec.defstruct(
        f"{params.__name__}OnTheWire", fields, kw_only=True, forbid_unknown_fields=True, module=__name__
    )


def decoder(params: type[Args]) -> Decoder:
    """The function that checks a request's params and answers them as a `params` struct."""
    plan = _plan(params)
    wire = _wire(params, plan)
    by_getter = tuple(f for f in plan if f.check is not None and _typed(f.check) is None)
    defaults = tuple((f.attr, f.default) for f in plan if not f.required and f.default is not None)
    slow = _field_by_field(params, plan)
    as_dict = msgspec.structs.asdict

    def decode(data: JsonObject) -> Args:
        try:
            values = as_dict(msgspec.convert(data, wire))
            # What msgspec took as it is, its getter reads (an optional one left out is its default, below);
            # `Params` refuses a number JSON cannot carry anywhere in it.
            given = [f for f in by_getter if f.required or values[f.attr] is not None]
            if given:
                p = Params({f.name: values[f.attr] for f in given})
                for f in given:
                    values[f.attr] = _read(p, f)
            for attr, default in defaults:
                if values[attr] is None:
                    values[attr] = default
            args = params(**values)
        except (ValueError, InvalidInput):
            # Refused (msgspec's `ValidationError` is a ValueError, and so is the `UnicodeEncodeError` it raises
            # on a lone surrogate where no string goes): read again field by field, for the message naming it.
            args = slow(data)
        args.check()
        return args

    return decode
