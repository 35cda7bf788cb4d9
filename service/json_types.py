"""What a JSON document holds, as a type: the values `json.loads` and msgspec give back, and the socket sends.

`Json` is any JSON value; `JsonObject` is a JSON object whose shape is truly open
(a client's own document, a JSON Schema, a reply read before its method says what
it holds). A fixed shape gets its own `TypedDict` or row type instead.
"""

from __future__ import annotations

from typing import TypeAlias

Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"
JsonObject: TypeAlias = "dict[str, Json]"
