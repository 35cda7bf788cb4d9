"""The base of the wire's rows, and how the facade hands a row over.

A row is a frozen msgspec Struct: the facade answers it, the socket encodes it, the remote `Memory` decodes it
straight into the same type, and the console reads attributes. The store reads rows of its own
(`store/*/rows.py`); `of` and `all_of` turn them into the wire's type by field name, so a field the store adds
stays off the wire until it is written here, and one it renames or drops fails the hand-over when the wire's
field is required (one with a default would take the default: `tests/unit/service/test_wire_types.py` holds
every pair's fields, types and defaults equal, so such a change fails there first).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import msgspec
from msgspec import UNSET


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """A row the console shows: frozen, built once (by the facade, or decoded at the socket)."""


T = TypeVar("T", bound=msgspec.Struct)


def row(kind: type[T], data: object) -> T:
    """`data` (a JSON object) as a `kind`; a field it lacks or mistypes is a bug, raised here."""
    return msgspec.convert(data, kind)


def rows(kind: type[T], data: Iterable[object]) -> list[T]:
    """Each of `data` as a `kind`."""
    return msgspec.convert(list(data), list[kind])  # type: ignore[valid-type]


def of(kind: type[T], stored: msgspec.Struct) -> T:
    """The store's row `stored` as the wire's `kind`: field by field, nested rows too (about 1 µs a row).

    Through builtins, not attributes: an unset field is left out, as the JSON leaves it out. (A store row with
    `omit_defaults` would leave out a value equal to its default too: the wire's default must then be the same,
    which the pairs' test holds.)"""
    return msgspec.convert(msgspec.to_builtins(stored), kind)


def all_of(kind: type[T], stored: Iterable[msgspec.Struct]) -> list[T]:
    """Each of the store's rows `stored` as the wire's `kind`."""
    return msgspec.convert(msgspec.to_builtins(list(stored)), list[kind])  # type: ignore[valid-type]


def value_of(record: object, name: str) -> object:
    """The field `name` of `record` (None when it has none, or it is unset): what a table column shows."""
    value = getattr(record, name, None)
    return None if value is UNSET else value
