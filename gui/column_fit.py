"""Table columns sized to their content within the table's width, the text column taking what is left.

Qt's `ResizeToContents` gives every column its longest value even when the table is narrow, so the one
column a person reads (a run's goal, an app's package) is left a few characters; `Stretch` on several
columns shares the width equally whatever they hold. `ColumnFit` does what a person would: each column
gets its content's width when everything fits; when not, the columns give up width before the text column
goes below its share: first the columns that may shrink (down to their minimum, most from the widest), then
a heading wider than the values under it (`Confidence` over `1.00`) comes down towards its values' width
(the heading is cut short, its tooltip has it whole); the text column takes whatever is left over. Values cut short
end in `…`; the models give the whole value as a tooltip.

The content's width is measured on the rows in view and the next ones, up to `MEASURED_ROWS`, as a person
sees them: Qt asks the model for every role of every cell it measures, and measuring a whole page of 200 or
500 rows held the GUI thread for a few hundred milliseconds on every filter.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QTableView

MEASURED_ROWS = 40  # the rows whose content sizes the columns: those in view, then the next ones
HEADING_PADDING = 16
"""A header section's room beside its text (margins and the sort arrow's gap, as Qt's styles draw them)."""


class ColumnFit(QObject):
    """Keeps `table`'s columns fitted (see the module): on resizes, model resets and new rows."""

    def __init__(self, table: QTableView, *, fill: int, shrinkable: Mapping[int, int], fill_share: float = 0.4) -> None:
        super().__init__(table)
        self.table, self.fill, self.shrinkable, self.fill_share = table, fill, dict(shrinkable), fill_share
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setResizeContentsPrecision(MEASURED_ROWS)  # what `sizeHintForColumn` measures (see the module)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(0)
        self._pending.timeout.connect(self.fit)
        table.viewport().installEventFilter(self)
        model = table.model()
        for signal in (model.modelReset, model.rowsInserted, model.layoutChanged):
            signal.connect(lambda *_args: self._pending.start())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._pending.start()
        return False

    def wanted(self) -> list[int]:
        """Each column's content width (its header's too), as Qt measures the rows it holds."""
        header = self.table.horizontalHeader()
        return [max(value, header.sectionSizeHint(c)) for c, value in enumerate(self.values())]

    def values(self) -> list[int]:
        """Each column's values' width alone: what its heading may come down to, keeping its first two
        characters (`步数` stays whole, `召回次数` reads `召回…`; no less than the header's smallest section)."""
        header = self.table.horizontalHeader()
        model, metrics = self.table.model(), header.fontMetrics()
        least = header.minimumSectionSize()
        widths = []
        for c in range(model.columnCount()):
            heading = str(model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")
            start = heading if len(heading) <= 2 else heading[:2] + "…"
            widths.append(
                max(least, self.table.sizeHintForColumn(c), metrics.horizontalAdvance(start) + HEADING_PADDING)
            )
        return widths

    def fit(self) -> None:
        available = self.table.viewport().width()
        widths = fitted(self.wanted(), available, self.fill, self.shrinkable, self.fill_share, self.values())
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)


def fitted(
    wanted: list[int],
    available: int,
    fill: int,
    shrinkable: Mapping[int, int],
    fill_share: float,
    values: list[int] | None = None,
) -> list[int]:
    """The widths for columns that want `wanted` in `available` pixels (see the module); `values` are the
    columns' widths without their headings (a heading wider than its values may come down to them)."""
    widths = list(wanted)
    spare = available - sum(widths)
    if spare >= 0:
        widths[fill] += spare  # all fits: the text column takes the rest
        return widths
    floor = min(wanted[fill], int(available * fill_share))
    need = -spare - max(0, wanted[fill] - floor)  # what the others must give for the text column to keep `floor`
    widths[fill] = floor
    others = [c for c in range(len(widths)) if c != fill and c not in shrinkable]
    headings = {c: values[c] for c in others if values and values[c] < widths[c]}
    for lows in (shrinkable, headings):
        need = _give(widths, need, lows)
    if need > 0:  # the others are at their minimum: the text column gives what it must, down to 40 px
        widths[fill] = max(40, widths[fill] - need)
    return widths


def _give(widths: list[int], need: int, lows: Mapping[int, int]) -> int:
    """Take up to `need` pixels from the columns of `lows` (each down to its low, most from the widest);
    what is still needed."""
    while need > 0:
        givers = [c for c, low in lows.items() if widths[c] > low]
        if not givers:
            break
        widest = max(givers, key=lambda c: widths[c])
        others = [widths[c] for c in givers if c != widest]
        step = min(need, widths[widest] - lows[widest], max(1, widths[widest] - max(others, default=0)))
        widths[widest] -= step
        need -= step
    return need
