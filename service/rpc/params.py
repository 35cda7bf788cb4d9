"""Validated method parameters: each getter names the parameter it refuses."""

from __future__ import annotations

from typing import Any

from store.core.errors import InvalidInput

MAX_TEXT = 4096
MAX_ID = 128  # ids a client chooses (interactions, tasks, topics, skills, schedules)


class Params:
    """Read a request's params; `done()` refuses any that were not read (typos show up at once)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data
        self._read: set[str] = set()

    def _get(self, name: str) -> Any:
        self._read.add(name)
        return self._data.get(name)

    def text(self, name: str, *, max_chars: int = MAX_TEXT) -> str:
        value = self._get(name)
        if value is None:
            raise InvalidInput(f"params.{name} is required")
        if not isinstance(value, str):
            raise InvalidInput(f"params.{name} must be a string, not {type(value).__name__}")
        if len(value) > max_chars:
            raise InvalidInput(f"params.{name} is longer than {max_chars} characters")
        return value

    def opt_text(self, name: str, *, max_chars: int = MAX_TEXT) -> str | None:
        if self._data.get(name) is None:
            self._read.add(name)
            return None
        return self.text(name, max_chars=max_chars)

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
            apps.append((package, label or ""))
        return apps

    def raw(self, name: str) -> Any:
        return self._get(name)

    def window(self) -> tuple[float | None, float | None]:
        """`since` and `until` as epoch seconds; either may be left out."""
        bounds = []
        for name in ("since", "until"):
            value = self._get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise InvalidInput(f"params.{name} must be epoch seconds")
            bounds.append(float(value) if value is not None else None)
        return bounds[0], bounds[1]

    def done(self) -> None:
        """Refuse parameters the method does not take."""
        extra = sorted(set(self._data) - self._read)
        if extra:
            raise InvalidInput(f"unknown parameter {extra[0]!r}")
