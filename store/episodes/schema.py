"""The `episode_outcome` record (docs/protocol.md, run.finish): validated for shape and type, never rewritten.

Unknown fields are dropped. Documented coercions: bad numbers become 0 (counts
clamped at 0), a bad `verifier` becomes `skipped`, a bad `time_of_day`
becomes `night`, missing `time_of_day`/`day_of_week` are derived from
`ts_start` (local time, as the agent's own writer does), apps and lesson ids
that do not have the required shape are dropped. Strings are kept verbatim,
as the reference keeps them ("字符串原文照存"): a goal that names a phone number
is the goal the person gave. Jiyi only cuts `goal_text` at 2,000 characters and
`reason`/`takeover` at 200. What Jiyi derives from an episode (the recall
index, scored recall) is redacted where it is derived, not here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from store.appkb.entry import is_package_name
from store.core.errors import InvalidInput
from store.episodes.run_event import check_run_id

TIMES_OF_DAY = ("night", "morning", "afternoon", "evening")
VERIFIERS = ("pass", "fail", "skipped")
TOKEN_ROLES = ("actor", "compact", "verifier", "reviewer", "distill")
CAPABILITY_STATES = frozenset({"active", "off", "shadow", "pending"})
CAPABILITY_ID = re.compile(r"^[a-z][a-z0-9_]*$")
LESSON_ID = re.compile(r"^les_[0-9a-f]{12,64}$")
DEVICE_SCOPE = re.compile(r"^device:\S+$")
GOAL_CHARS = 2000
# Fields the reference added over time: a record written before them has none, and a record imported
# without them is kept without them (its replay must not grow fields the source never had).
OPTIONAL_FIELDS = ("capabilities", "injected_lessons", "injected_procedures", "deliverable_path")
# Left out of a live record that does not give it, too: Jiyi injects no procedure cards, and the reference
# writes the field only where procedures were in play (an empty list on every outcome is not its record).
NOT_DEFAULTED = ("injected_procedures",)


def time_of_day(ts: float) -> str:
    hour = datetime.fromtimestamp(ts).hour
    return "night" if hour < 6 else "morning" if hour < 12 else "afternoon" if hour < 18 else "evening"


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return float(value)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(0, value)


def _ids(value: Any, pattern: re.Pattern[str]) -> list[str]:
    if not isinstance(value, list):
        return []
    return list(dict.fromkeys(v for v in value if isinstance(v, str) and pattern.fullmatch(v)))


@dataclass(frozen=True)
class EpisodeOutcome:
    run_id: str
    ts_start: float = 0.0
    ts_end: float = 0.0
    time_of_day: str = "night"
    day_of_week: int = 0
    device_scope: str = "device:unknown"
    goal_text: str = ""
    apps: list[str] = field(default_factory=list)
    success: bool = False
    reason: str = ""
    steps: int = 0
    tokens_total: int = 0
    tokens_by_role: dict[str, int] = field(default_factory=dict)
    warnings: int = 0
    takeover: str | None = None
    verifier: str = "skipped"
    capabilities: dict[str, str] = field(default_factory=dict)
    injected_lessons: list[str] = field(default_factory=list)
    injected_procedures: list[str] = field(default_factory=list)
    deliverable_path: str | None = None
    absent: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_dict(self) -> dict[str, object]:
        """The reference's record, with its envelope, in the reference's field order; the optional fields
        in `absent` are left out."""
        record: dict[str, object] = {"type": "episode_outcome", "schema_v": 1}
        for f in fields(self):
            if f.name != "absent" and f.name not in self.absent:
                value = getattr(self, f.name)
                record[f.name] = (
                    list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
                )
        return record

    @classmethod
    def coerce(cls, data: Any, *, keep_absent: bool = False) -> EpisodeOutcome:
        """Validate a record (see the module docstring for every coercion).

        With `keep_absent` (an import), the optional fields the record does not have stay absent
        instead of taking their defaults; `injected_procedures` stays absent whenever it is not given.
        """
        if not isinstance(data, dict):
            raise InvalidInput("episode_outcome must be an object")
        run_id = check_run_id(data.get("run_id"))
        ts_start, ts_end = _number(data.get("ts_start")), _number(data.get("ts_end"))
        tod, day = _when(data.get("time_of_day"), data.get("day_of_week"), ts_start)
        scope = data.get("device_scope")
        scope = scope if isinstance(scope, str) and DEVICE_SCOPE.fullmatch(scope) else "device:unknown"
        goal = data.get("goal_text")
        goal = goal[:GOAL_CHARS] if isinstance(goal, str) else ""
        apps = data.get("apps")
        apps = (
            list(dict.fromkeys(a for a in apps if isinstance(a, str) and is_package_name(a)))
            if isinstance(apps, list)
            else []
        )
        success = data.get("success") is True
        reason = data.get("reason")
        reason = reason[:200] if isinstance(reason, str) else ("finished" if success else "")
        roles = data.get("tokens_by_role")
        tokens_by_role = {k: _count(roles[k]) for k in TOKEN_ROLES if k in roles} if isinstance(roles, dict) else {}
        takeover = data.get("takeover")
        verifier = data.get("verifier")
        deliverable = data.get("deliverable_path")
        return cls(
            run_id=run_id,
            ts_start=ts_start,
            ts_end=ts_end,
            time_of_day=tod,
            day_of_week=day,
            device_scope=scope,
            goal_text=goal,
            apps=apps,
            success=success,
            reason=reason,
            steps=_count(data.get("steps")),
            tokens_total=_count(data.get("tokens_total")),
            tokens_by_role=tokens_by_role,
            warnings=_count(data.get("warnings")),
            takeover=takeover[:200] if isinstance(takeover, str) else None,
            verifier=verifier if verifier in VERIFIERS else "skipped",
            capabilities=_capabilities(data.get("capabilities")),
            injected_lessons=_ids(data.get("injected_lessons"), LESSON_ID),
            injected_procedures=_ids(data.get("injected_procedures"), LESSON_ID),
            deliverable_path=deliverable if isinstance(deliverable, str) and deliverable else None,
            absent=frozenset(f for f in (OPTIONAL_FIELDS if keep_absent else NOT_DEFAULTED) if f not in data),
        )


def _when(given_time: object, given_day: object, ts_start: float) -> tuple[str, int]:
    """(time of day, day of week) as given when valid, else derived from the start (night and Monday
    when there is no start either)."""
    if given_time in TIMES_OF_DAY:
        tod = str(given_time)
    elif given_time is None and ts_start > 0:
        tod = time_of_day(ts_start)
    else:
        tod = "night"
    if isinstance(given_day, bool) or not isinstance(given_day, int) or not 0 <= given_day <= 6:
        return tod, datetime.fromtimestamp(ts_start).weekday() if ts_start > 0 else 0
    return tod, given_day


def _capabilities(raw: object) -> dict[str, str]:
    """The capability states whose id and state are well formed; others are dropped."""
    if not isinstance(raw, dict):
        return {}
    return {
        k: v for k, v in raw.items() if isinstance(k, str) and CAPABILITY_ID.fullmatch(k) and v in CAPABILITY_STATES
    }
