"""Numbers JSON cannot carry or SQLite cannot keep, refused wherever they are in the params.

JSON reads `1e400` as infinity and keeps integers of thousands of digits, and
neither can be stored, compared with SQLite's 64-bit integers, or sent back as JSON.
"""

from __future__ import annotations

import math
from typing import Any

from store.core.errors import InvalidInput

INT_LIMIT = (1 << 63) - 1  # SQLite's INTEGER: a larger integer can be neither stored nor compared


def _bad_number(value: Any) -> bool:
    """Whether `value` holds, at any depth, a float that is not finite or an integer beyond 64 bits."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, int):
            if not -INT_LIMIT - 1 <= item <= INT_LIMIT:
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def check_numbers(value: Any, where: str) -> None:
    """Refuse a number JSON cannot carry or SQLite cannot keep, naming where it is (`params.detail.x`)."""
    if not _bad_number(value):
        return
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise InvalidInput(f"{path} is not a finite number (JSON numbers beyond ±1.8e308 are refused)")
        if isinstance(item, int) and not -INT_LIMIT - 1 <= item <= INT_LIMIT:
            raise InvalidInput(f"{path} is out of range: integers are limited to 64 bits (±{INT_LIMIT})")
        if isinstance(item, dict):
            stack.extend((f"{path}.{str(key)[:40]}", v) for key, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", v) for index, v in enumerate(item))
