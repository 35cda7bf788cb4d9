"""What a parameter of an operation accepts, written once beside its type: `Annotated[str, Text(256)]`.

A field's check is data (which kind of value, which caps); the socket turns it
into msgspec's types where msgspec says it exactly, and into the `Params` getter
that refuses bad input with a message naming the parameter
(`service/rpc/decode.py`, `service/rpc/params.py`), and the JSON
Schema of the operation shows the same caps (`keywords()`). The caps are the
protocol's (`docs/protocol.md`, Limits); changing one changes both at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.json_types import JsonObject
from store.core.errors import InvalidInput

MAX_TEXT = 4096
MAX_ID = 128  # ids a client chooses (interactions, tasks, topics, skills, schedules)
MAX_NAME = 256  # an app's name or package
MAX_DOCUMENT_BYTES = 64 * 1024  # an object stored as it is (consolidation detail), serialized as UTF-8 JSON
EPOCH_MAX = 32_503_680_000  # 3000-01-01T00:00:00Z; no time an agent means lies beyond it


class Check:
    """What one parameter accepts; `keywords()` is what it adds to the field's JSON Schema."""

    def keywords(self) -> JsonObject:
        return {}


@dataclass(frozen=True)
class Text(Check):
    """A string of at most `max_chars` characters (and `max_bytes` bytes of UTF-8 when given)."""

    max_chars: int = MAX_TEXT
    max_bytes: int | None = None

    def keywords(self) -> JsonObject:
        return {"maxLength": self.max_chars}


@dataclass(frozen=True)
class Choice(Check):
    """One of `options`."""

    options: tuple[str, ...]

    def keywords(self) -> JsonObject:
        return {"enum": list(self.options)}


@dataclass(frozen=True)
class Integer(Check):
    """An integer between `low` and `high`."""

    low: int = 0
    high: int = 1 << 31

    def keywords(self) -> JsonObject:
        return {"minimum": self.low, "maximum": self.high}


@dataclass(frozen=True)
class Boolean(Check):
    """true or false."""


@dataclass(frozen=True)
class Epoch(Check):
    """Epoch seconds between 0 and the year 3000."""

    def keywords(self) -> JsonObject:
        return {"minimum": 0, "maximum": EPOCH_MAX}


@dataclass(frozen=True)
class Apps(Check):
    """A list of installed apps: objects {package, label} or [package, label] pairs."""

    max_items: int = 5000

    def keywords(self) -> JsonObject:
        name: JsonObject = {"type": "string", "maxLength": MAX_NAME}
        pair: JsonObject = {"type": "array", "prefixItems": [name, name], "minItems": 2, "maxItems": 2}
        app: JsonObject = {"type": "object", "properties": {"package": name, "label": name}, "required": ["package"]}
        return {"type": "array", "maxItems": self.max_items, "items": {"anyOf": [app, pair]}}


@dataclass(frozen=True)
class Strings(Check):
    """A list of at most `max_items` strings, each of at most `max_chars` characters."""

    max_items: int
    max_chars: int = MAX_NAME

    def keywords(self) -> JsonObject:
        return {"maxItems": self.max_items}


@dataclass(frozen=True)
class Items(Check):
    """A list of at most `max_items` items (their fields are the store's to check)."""

    max_items: int

    def keywords(self) -> JsonObject:
        return {"maxItems": self.max_items}


@dataclass(frozen=True)
class Document(Check):
    """A JSON object of at most `max_bytes` bytes serialized (compact UTF-8 JSON)."""

    max_bytes: int = MAX_DOCUMENT_BYTES


@dataclass(frozen=True)
class Raw(Check):
    """Any JSON value, taken as it is: the params struct's `check()` says what it must be."""


def text_key(value: Any, parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """`params.after`, a keyset-paging key (the last row the client holds), as a tuple of `parts` texts.

    Refuses, naming the parts, anything but a list of that many non-empty strings of at most `MAX_NAME`."""
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != len(parts)
        or not all(isinstance(part, str) and 0 < len(part) <= MAX_NAME for part in value)
    ):
        raise InvalidInput(f"params.after must be [{', '.join(parts)}]: the last row's, as the listing gave it")
    return tuple(value)


@dataclass(frozen=True)
class Moment(Check):
    """A time: ISO-8601 text or epoch seconds, between 1970 and the year 3000."""
