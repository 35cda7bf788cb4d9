"""Workdays: 03:30 to 03:29:59 the next day, Beijing time, whatever the machine's zone.

China has kept UTC+8 without daylight saving since 1991, so a fixed offset is
exact and needs no tz database (a fresh machine may have none).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

BEIJING = timezone(timedelta(hours=8), "Asia/Shanghai")
DAY_START = timedelta(hours=3, minutes=30)


def workday_of(moment: datetime) -> str:
    """The workday (YYYY-MM-DD) an aware moment belongs to."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment.astimezone(BEIJING) - DAY_START).date().isoformat()


def previous_workday(workday: str) -> str:
    return (date.fromisoformat(workday) - timedelta(days=1)).isoformat()


def days_between(earlier: str, later: str) -> int:
    """Whole workdays from `earlier` to `later` (0 for the same day)."""
    return (date.fromisoformat(later) - date.fromisoformat(earlier)).days


def is_workday(value: object) -> bool:
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True
