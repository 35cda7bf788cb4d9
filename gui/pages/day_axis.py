"""A chart's axis of days that writes month and weekday names in the console's language (12月, not Dec)."""

from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.graphicsItems.DateAxisItem import adjustTimestampToPreferredUtcOffset, utcfromtimestamp
from PySide6.QtCore import QLocale

from gui import i18n


class DayAxis(pg.DateAxisItem):  # type: ignore[misc]
    """pyqtgraph's `DateAxisItem`, whose ticks name months (`%b`) and weekdays (`%a`) in English whatever the
    language: the same ticks, with those names from the console's locale (`gui.i18n.locale`)."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        spec = next((s for s in self.zoomLevel.tickSpecs if s.spacing == spacing), None)
        if spec is None or ("%b" not in spec.format and "%a" not in spec.format):
            return list(super().tickStrings(values, scale, spacing))
        locale, short = i18n.locale(), QLocale.FormatType.ShortFormat
        names = []
        for value in values:
            day = utcfromtimestamp(adjustTimestampToPreferredUtcOffset(value, self.utcOffset))
            month = locale.monthName(day.month, short).replace("%", "%%")
            weekday = locale.dayName(day.isoweekday(), short).replace("%", "%%")
            names.append(day.strftime(spec.format.replace("%b", month).replace("%a", weekday)))
        return names
