"""The base of the wire's rows, and how the facade hands a row over.

A row is a frozen msgspec Struct: the facade answers it, the socket encodes it, the remote `Memory` decodes it
straight into the same type, and the console reads attributes. The store reads rows of its own
(`store/*/rows.py`); `of` and `all_of` turn them into the wire's type by field name, so a field the store
renames or drops fails there (a test turns each) instead of changing the protocol, and a field it adds stays
off the wire until it is written here.
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

    Through builtins, not attributes: an unset field is left out, as the JSON leaves it out."""
    return msgspec.convert(msgspec.to_builtins(stored), kind)


def all_of(kind: type[T], stored: Iterable[msgspec.Struct]) -> list[T]:
    """Each of the store's rows `stored` as the wire's `kind`."""
    return msgspec.convert(msgspec.to_builtins(list(stored)), list[kind])  # type: ignore[valid-type]


def value_of(record: object, name: str) -> object:
    """The field `name` of `record` (None when it has none, or it is unset): what a table column shows."""
    value = getattr(record, name, None)
    return None if value is UNSET else value
