"""Table columns sized to their content within the table's width, the text column taking what is left.

Qt's `ResizeToContents` gives every column its longest value even when the table is narrow, so the one
column a person reads (a run's goal, an app's package) is left a few characters; `Stretch` on several
columns shares the width equally whatever they hold. `fit_columns` does what a person would: each column
gets its content's width when everything fits; when not, the columns that may shrink give up width (down
to their minimum, most from the widest) before the text column goes below its share, and the text column
takes whatever is left over. Values cut short end in `…`; the models give the whole value as a tooltip.

The content's width is measured on the rows in view and the next ones, up to `MEASURED_ROWS`, as a person
sees them: Qt asks the model for every role of every cell it measures, and measuring a whole page of 200 or
500 rows held the GUI thread for a few hundred milliseconds on every filter.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QTableView

MEASURED_ROWS = 40  # the rows whose content sizes the columns: those in view, then the next ones


class ColumnFit(QObject):
    """Keeps `table`'s columns fitted (see the module): on resizes, model resets and new rows."""

    def __init__(self, table: QTableView, *, fill: int, shrinkable: Mapping[int, int], fill_share: float = 0.4) -> None:
        super().__init__(table)
        self.table, self.fill, self.shrinkable, self.fill_share = table, fill, dict(shrinkable), fill_share
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setResizeContentsPrecision(MEASURED_ROWS)  # what `sizeHintForColumn` measures (see the module)
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
        count = self.table.model().columnCount()
        return [max(self.table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(count)]

    def fit(self) -> None:
        widths = fitted(self.wanted(), self.table.viewport().width(), self.fill, self.shrinkable, self.fill_share)
        for column, width in enumerate(widths):
            self.table.setColumnWidth(column, width)


def fitted(wanted: list[int], available: int, fill: int, shrinkable: Mapping[int, int], fill_share: float) -> list[int]:
    """The widths for columns that want `wanted` in `available` pixels (see the module)."""
    widths = list(wanted)
    spare = available - sum(widths)
    if spare >= 0:
        widths[fill] += spare  # all fits: the text column takes the rest
        return widths
    floor = min(wanted[fill], int(available * fill_share))
    need = -spare - max(0, wanted[fill] - floor)  # what the others must give for the text column to keep `floor`
    widths[fill] = floor
    while need > 0:
        givers = [c for c, low in shrinkable.items() if widths[c] > low]
        if not givers:
            break
        widest = max(givers, key=lambda c: widths[c])
        others = [widths[c] for c in givers if c != widest]
        step = min(need, widths[widest] - shrinkable[widest], max(1, widths[widest] - max(others, default=0)))
        widths[widest] -= step
        need -= step
    if need > 0:  # the others are at their minimum: the text column gives what it must, down to 40 px
        widths[fill] = max(40, widths[fill] - need)
    return widths
