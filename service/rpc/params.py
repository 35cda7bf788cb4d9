"""Validated method parameters: each getter names the parameter it refuses, and the limit it broke.

Every number anywhere in the params is checked on arrival: JSON reads `1e400`
as infinity and keeps integers of thousands of digits, and neither can be
stored, compared with SQLite's 64-bit integers, or sent back as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from service.json_types import Json, JsonObject
from service.ops.fields import EPOCH_MAX, MAX_DOCUMENT_BYTES, MAX_NAME, MAX_TEXT
from service.ops.fields import MAX_ID as MAX_ID  # the caps are declared with the fields; the methods import them here
from service.ops.numbers import INT_LIMIT as INT_LIMIT
from service.ops.numbers import check_numbers
from store.core import clock
from store.core.errors import InvalidInput


def check_epoch(value: Any, where: str) -> float:
    """`value` as epoch seconds, refused unless a number between 0 and `EPOCH_MAX` (the year 3000)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{where} must be epoch seconds")
    if not 0 <= value <= EPOCH_MAX:
        raise InvalidInput(f"{where} must be epoch seconds between 0 and {EPOCH_MAX} (the year 3000)")
    return float(value)


def serialized_size(value: Any) -> int:
    """The bytes `value` takes as compact UTF-8 JSON (as the event log keeps it)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


class Params:
    """Read a request's params; `done()` refuses any that were not read (typos show up at once).

    Refuses at once (`InvalidInput`) params holding a number that is not finite
    or an integer beyond 64 bits, wherever it is.
    """

    def __init__(self, data: JsonObject) -> None:
        check_numbers(data, "params")
        self._data = data
        self._read: set[str] = set()

    def _get(self, name: str) -> Json:
        self._read.add(name)
        return self._data.get(name)

    def text(self, name: str, *, max_chars: int = MAX_TEXT, max_bytes: int | None = None) -> str:
        """A required string of at most `max_chars` characters (and `max_bytes` bytes of UTF-8, when given)."""
        value = self._get(name)
        if value is None:
            raise InvalidInput(f"params.{name} is required")
        if not isinstance(value, str):
            raise InvalidInput(f"params.{name} must be a string, not {type(value).__name__}")
        if len(value) > max_chars:
            raise InvalidInput(f"params.{name} is longer than {max_chars} characters")
        # Four bytes a character at most: only a string that could be over the cap is encoded.
        if max_bytes is not None and len(value) * 4 > max_bytes:
            size = len(value.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise InvalidInput(f"params.{name} is {size} bytes of UTF-8, more than the {max_bytes} allowed")
        return value

    def opt_text(self, name: str, *, max_chars: int = MAX_TEXT, max_bytes: int | None = None) -> str | None:
        if self._data.get(name) is None:
            self._read.add(name)
            return None
        return self.text(name, max_chars=max_chars, max_bytes=max_bytes)

    def strings(self, name: str, *, max_items: int, max_chars: int = MAX_NAME) -> list[str] | None:
        """An optional list of at most `max_items` strings, each of at most `max_chars` characters."""
        value = self._get(name)
        if value is None:
            return None
        texts = [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
        if not isinstance(value, list) or len(texts) < len(value):
            raise InvalidInput(f"params.{name} must be a list of strings")
        if len(texts) > max_items:
            raise InvalidInput(f"params.{name} has more than {max_items} items")
        for index, item in enumerate(texts):
            if len(item) > max_chars:
                raise InvalidInput(f"params.{name}[{index}] is longer than {max_chars} characters")
        return texts

    def document(self, name: str, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> JsonObject | None:
        """An optional JSON object of at most `max_bytes` bytes serialized (compact UTF-8 JSON)."""
        value = self._get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise InvalidInput(f"params.{name} must be an object")
        size = serialized_size(value)
        if size > max_bytes:
            raise InvalidInput(f"params.{name} is {size} bytes as JSON, more than the {max_bytes} allowed")
        return value

    def moment(self, name: str) -> str | float | None:
        """An optional time: ISO-8601 text or epoch seconds, between 1970 and the year 3000."""
        value = self._get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise InvalidInput(f"params.{name} must be ISO-8601 text or epoch seconds")
        if isinstance(value, str):
            try:
                epoch = clock.parse_iso(value.strip()).timestamp() if len(value) <= 64 else -1.0
            except (ValueError, OverflowError):
                epoch = -1.0
            if not 0 <= epoch <= EPOCH_MAX:
                raise InvalidInput(f"params.{name} must be ISO-8601 text or epoch seconds, between 1970 and 3000")
            return value
        return check_epoch(value, f"params.{name}")

    def integer(self, name: str, default: int | None = None, *, low: int = 0, high: int = 1 << 31) -> int:
        value = self._get(name)
        if value is None:
            if default is None:
                raise InvalidInput(f"params.{name} is required")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput(f"params.{name} must be an integer")
        if not low <= value <= high:
            raise InvalidInput(f"params.{name} must be between {low} and {high}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self._get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise InvalidInput(f"params.{name} must be true or false")
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str | None = None) -> str | None:
        value = self._get(name)
        if value is None:
            return default
        if value not in options:
            raise InvalidInput(f"params.{name} must be one of {', '.join(options)}")
        return str(value)

    def apps(self, name: str, *, required: bool = True, max_items: int = 5000) -> list[tuple[str, str]] | None:
        """A list of installed apps: objects {package, label} or [package, label] pairs."""
        value = self._get(name)
        if value is None:
            if required:
                raise InvalidInput(f"params.{name} is required")
            return None
        if not isinstance(value, list):
            raise InvalidInput(f"params.{name} must be a list of {{package, label}} objects")
        if len(value) > max_items:
            raise InvalidInput(f"params.{name} has more than {max_items} items")
        apps = []
        for index, item in enumerate(value):
            if isinstance(item, dict):
                package, label = item.get("package"), item.get("label", "")
            elif isinstance(item, list) and len(item) == 2:
                package, label = item
            else:
                raise InvalidInput(f"params.{name}[{index}] must be {{package, label}} or [package, label]")
            if not isinstance(package, str) or not isinstance(label, str | type(None)):
                raise InvalidInput(f"params.{name}[{index}]: package and label must be strings")
            if len(package) > MAX_NAME or len(label or "") > MAX_NAME:
                raise InvalidInput(f"params.{name}[{index}]: package and label are at most {MAX_NAME} characters")
            apps.append((package, label or ""))
        return apps

    def raw(self, name: str) -> Any:
        return self._get(name)

    def window(self) -> tuple[float | None, float | None]:
        """`since` and `until` as epoch seconds (0 to the year 3000); either may be left out."""
        bounds = []
        for name in ("since", "until"):
            value = self._get(name)
            bounds.append(check_epoch(value, f"params.{name}") if value is not None else None)
        return bounds[0], bounds[1]

    def done(self) -> None:
        """Refuse parameters the method does not take."""
        extra = sorted(set(self._data) - self._read)
        if extra:
            raise InvalidInput(f"unknown parameter {extra[0]!r}")
