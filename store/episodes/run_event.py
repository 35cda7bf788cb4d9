"""The shape of a tool receipt (`experience_event`, docs/protocol.md, run.event), validated, never rewritten.

A tool outside the built-in set keeps its name when it is wire-safe (`CUSTOM_TOOL`), else it is `unknown`.

Only the schema's fields survive; strings are kept verbatim (as the reference
keeps them) except that `intent` and `note` are folded to one line and cut to
200 characters. Tool arguments, receipts, typed text, screenshots and
reasoning have no field here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import Any

from store.appkb.entry import is_package_name
from store.core.errors import InvalidInput

TOOLS = frozenset(
    {
        "tap",
        "long_press",
        "type_text",
        "scroll",
        "swipe",
        "back",
        "home",
        "wait",
        "launch_app",
        "read_screen",
        "locate",
        "finish",
        "ask_user",
        "take_over",
        "update_task_doc",
        "write_document",
        "update_document",
    }
)
# A custom (plugin) tool keeps its name when it is wire-safe, as the reference bounds it: letters,
# digits, `_` and `-`, at most 64 characters. Anything else is `unknown`.
CUSTOM_TOOL = re.compile(r"[A-Za-z0-9_-]{1,64}")
RESULT_CLASSES = frozenset({"ok", "error", "warned"})
NOTE_CHARS = 200
MAX_RUN_ID = 128


def check_run_id(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("run_id must be a non-empty string")
    if len(value) > MAX_RUN_ID or any(not c.isprintable() for c in value):
        raise InvalidInput(f"run_id must be printable and at most {MAX_RUN_ID} characters")
    return value


def fold(value: object) -> str | None:
    """Whitespace collapsed to one space, cut to 200 characters; empty → None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())[:NOTE_CHARS]
    return text or None


@dataclass(frozen=True)
class ExperienceEvent:
    run_id: str
    step: int
    ts: float
    tool: str
    result_class: str
    app_package: str | None
    device_scope: str
    intent: str | None
    note: str | None

    def to_dict(self) -> dict[str, object]:
        # Every field is a plain value: no copying needed (asdict's deep copy cost a bulk import a third of its time).
        return {"type": "experience_event", "schema_v": 1, **{f.name: getattr(self, f.name) for f in fields(self)}}

    @classmethod
    def coerce(cls, data: dict[str, Any], *, device: str | None, now: float) -> ExperienceEvent:
        """Validate shape and type; the coercions in the module docstring for the rest."""
        run_id = check_run_id(data.get("run_id"))
        step = data.get("step", 0)
        step = max(0, step) if isinstance(step, int) and not isinstance(step, bool) else 0
        ts = data.get("ts", now)
        ts = float(ts) if isinstance(ts, int | float) and not isinstance(ts, bool) and math.isfinite(ts) else now
        tool = data.get("tool")
        tool = tool if tool in TOOLS or (isinstance(tool, str) and CUSTOM_TOOL.fullmatch(tool)) else "unknown"
        result = data.get("result_class")
        result = result if result in RESULT_CLASSES else "error"
        package = data.get("app_package")
        package = package if isinstance(package, str) and is_package_name(package) else None
        scope = data.get("device_scope")
        if device or not (isinstance(scope, str) and scope.startswith("device:") and len(scope) > 7):
            scope = f"device:{device or 'unknown'}"
        intent, note = fold(data.get("intent")), fold(data.get("note"))
        return cls(run_id, step, ts, str(tool), str(result), package, scope, intent, note)
