"""Local calendar days as ranges of epoch seconds, so a database can sum per local day by an index range.

Neither back end should turn every row's time into a local date (SQLite's
`localtime` is a C library call per row; PostgreSQL knows only its session's
time zone): Python names the local days, with their edges as
`datetime.fromtimestamp` sees them (daylight saving included), and the query
sums the rows between each day's edges.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta

DAY = 86400


def _midnight(day: date) -> float:
    """The first instant of `day`, local time. A midnight that a clock change skipped is read with the
    earlier offset (`fold=0`), which is the instant the clock jumped: still the day's first instant."""
    return datetime(day.year, day.month, day.day).timestamp()


def local_days(
    utc_days: Iterable[int], since: float | None = None, until: float | None = None
) -> list[tuple[str, float, float]]:
    """(ISO date, first second, end) of every local day that may hold a time of `utc_days` (whole days since
    the epoch, as either back end's integer division gives them: truncated or rounded), oldest first, each
    range cut to the window [`since`, `until`). A day the window leaves empty is left out; so is a time no
    `datetime` can hold."""
    found: set[date] = set()
    for number in utc_days:
        try:
            first = datetime.fromtimestamp((number - 1) * DAY).date()
            last = datetime.fromtimestamp((number + 2) * DAY - 1).date()
        except (OverflowError, OSError, ValueError):
            continue
        while first <= last:  # at most five dates: an offset from UTC is under a day
            found.add(first)
            first += timedelta(days=1)
    out = []
    for day in sorted(found):
        try:
            start, end = _midnight(day), _midnight(day + timedelta(days=1))
        except (OverflowError, OSError, ValueError):
            continue
        if since is not None:
            start = max(start, since)
        if until is not None:
            end = min(end, until)
        if start < end:
            out.append((day.isoformat(), start, end))
    return out
