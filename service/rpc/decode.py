"""The check of an operation's params, derived from its declaration: each field's `Check` becomes the
`Params` getter that refuses bad input naming the field, with the messages and caps of `params.py`.

Fields are read in their declared order, then unknown parameters are refused
(`Params.done`), then the struct's own `check()` runs its rules across fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from service.json_types import JsonObject
from service.ops.declare import Args, checks_of
from service.ops.fields import Apps, Boolean, Check, Choice, Document, Epoch, Integer, Items, Moment, Raw, Strings, Text
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


def decoder(params: type[Args]) -> Decoder:
    """The function that checks a request's params and answers them as a `params` struct."""
    checks = checks_of(params)
    fields = []
    for info in msgspec.structs.fields(params):
        check = checks[info.encode_name]
        if check is None:
            raise TypeError(f"{params.__name__}.{info.name} declares no check (Annotated[..., Text(...)] and so on)")
        default = None if info.default is msgspec.NODEFAULT else info.default
        fields.append(_Field(info.name, info.encode_name, check, info.required, default))
    plan = tuple(fields)

    def decode(data: JsonObject) -> Args:
        p = Params(data)
        values = {f.attr: _read(p, f) for f in plan}
        p.done()
        args = params(**values)
        args.check()
        return args

    return decode
