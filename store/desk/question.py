"""What a question says about time, read from its words: the dates it names, and whether it asks for the
latest value of something that changed.

* `periods`: the days and months a question names ("on 9 November, 2022", "in January 2024",
  "2026年5月12日", "2026年5月"), as spans of epoch seconds. Recall puts the items said within such a span
  first (`store.desk.fusion`): "What did Nate cook on 9 November, 2022?" asks about what was said that day.
  A date without its year ("5月12号", "May 12") is left alone: which year it means is a guess.
* `asks_latest`: the question asks what something is now or came to in the end (现在, 最后, 改到, now,
  currently, latest ...); recall then prefers the later of two statements of the same thing.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s*(\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s*(\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_YEAR_MONTH_DAY = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_YEAR_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月")
_LATEST = re.compile(
    r"现在|目前|如今|眼下|最后|最终|最新|改到|改成|改为|推到|换成"
    r"|\bnow\b|\bcurrent(?:ly)?\b|\blatest\b|\bfinal(?:ly)?\b|\bmost recent",
    re.IGNORECASE,
)
DAY = 86_400.0
SLACK = DAY  # a day either side: the question's day in another time zone, a session that ran past midnight


def _day(year: str, month: int, day: str) -> tuple[float, float] | None:
    try:
        start = datetime(int(year), month, int(day), tzinfo=UTC).timestamp()
    except ValueError:  # 31 February
        return None
    return start - SLACK, start + DAY + SLACK


def _month(year: str, month: int) -> tuple[float, float] | None:
    if not 1 <= month <= 12:
        return None
    start = datetime(int(year), month, 1, tzinfo=UTC).timestamp()
    end = datetime(int(year) + month // 12, month % 12 + 1, 1, tzinfo=UTC).timestamp()
    return start - SLACK, end + SLACK


def periods(text: str) -> list[tuple[float, float]]:
    """The spans (start, end epoch seconds) of the days and months `text` names with their year."""
    found: list[tuple[float, float] | None] = []
    days: list[tuple[int, int]] = []  # where a day was read: its month and year are not read again as a month
    for match in _DAY_MONTH_YEAR.finditer(text):
        found.append(_day(match[3], _MONTHS[match[2].lower()], match[1]))
        days.append(match.span())
    for match in _MONTH_DAY_YEAR.finditer(text):
        found.append(_day(match[3], _MONTHS[match[1].lower()], match[2]))
        days.append(match.span())
    for match in _YEAR_MONTH_DAY.finditer(text):
        found.append(_day(match[1], int(match[2]), match[3]))
        days.append(match.span())
    for match in _MONTH_YEAR.finditer(text):
        if not any(start <= match.start() < end for start, end in days):
            found.append(_month(match[2], _MONTHS[match[1].lower()]))
    for match in _YEAR_MONTH.finditer(text):
        if not any(start <= match.start() < end for start, end in days):
            found.append(_month(match[1], int(match[2])))
    return [span for span in found if span is not None]


def asks_latest(text: str) -> bool:
    """Whether `text` asks for what something is now, or came to in the end."""
    return _LATEST.search(text) is not None
