"""One device's recall calibration: hit@1 and contamination against the threshold, the budget, the chosen point.

Read from `recall_statistics()["calibration"]` (`CalibrationCurve` rows; docs/recall.md, Calibration):
each device's curve, the threshold chosen on it, where the evidence came from
and when. The recall page holds one of these under its charts; what a calibration is called, which the overview
says too, is in `calibration_words` (no pyqtgraph there: the overview's first figures do not wait for it).
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gui.pages.calibration_words import describe_calibration, scoring_name
from service.wire.recall import CalibrationCurve


class CalibrationChart(QWidget):
    """A device chooser, a line saying the chosen threshold, and the curve it was chosen on."""

    shown = Signal(str)  # the device whose curve is shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.calibrations: dict[str, CalibrationCurve] = {}
        self.device = QComboBox()
        self.device.currentTextChanged.connect(self._show_device)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.plot = pg.PlotWidget()
        self.plot.setTitle(self.tr("校准曲线：阈值越低，召回越多，污染也越多"))
        self.plot.setLabel("bottom", self.tr("阈值"))
        rates_axes(self.plot)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("设备")))
        top.addWidget(self.device)
        top.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)

    def set_calibrations(self, calibrations: list[CalibrationCurve]) -> None:
        """Show these devices' calibrations (keeping the chosen device when it is still there)."""
        chosen = self.device.currentText()
        self.calibrations = {c.device: c for c in calibrations}
        self.device.blockSignals(True)
        self.device.clear()
        self.device.addItems(sorted(self.calibrations))
        self.device.blockSignals(False)
        if chosen in self.calibrations:
            self.device.setCurrentText(chosen)
        self._show_device(self.device.currentText())

    def _show_device(self, device: str) -> None:
        self.plot.clear()
        c = self.calibrations.get(device)
        if c is None:
            self.summary.setText(self.tr("还没有设备的校准：设备有了过去的运行或评估后会自动计算"))
            return
        self.summary.setText(describe_calibration(c))
        self.plot.setLabel("bottom", self.tr("阈值：{0}").format(scoring_name(c)))
        curve = c.curve
        if curve:
            xs = [p.threshold for p in curve]
            self.plot.plot(xs, [p.hit_at_1 for p in curve], pen=pg.mkPen("#1f6feb", width=2), name="Hit@1")
            self.plot.plot(
                xs, [p.contamination for p in curve], pen=pg.mkPen("#cf222e", width=2), name=self.tr("污染率")
            )
            self.plot.plot(
                xs,
                [p.bound for p in curve],
                pen=pg.mkPen("#cf222e", width=1, style=Qt.PenStyle.DashLine),
                name=self.tr("污染率上界"),
            )
            chosen = [p for p in curve if p.threshold == c.threshold]
            if chosen:
                self.plot.plot(
                    [chosen[0].threshold],
                    [chosen[0].hit_at_1],
                    pen=None,
                    symbol="o",
                    symbolSize=10,
                    symbolBrush="#1f6feb",
                    name=self.tr("选定的点"),
                )
        budget = pg.InfiniteLine(
            pos=c.budget,
            angle=0,
            pen=pg.mkPen("#9a6700", width=1, style=Qt.PenStyle.DotLine),
            label=self.tr("污染预算 {0:.2f}").format(c.budget),
            labelOpts={"position": 0.9, "color": "#9a6700"},
        )
        threshold = pg.InfiniteLine(pos=c.threshold, angle=90, pen=pg.mkPen("#57606a", width=1))
        self.plot.addItem(budget)
        self.plot.addItem(threshold)
        self.budget_line, self.threshold_line = budget, threshold
        self.shown.emit(device)


def rates_axes(plot: Any) -> None:
    """A chart of rates (0 to 1) with its legend in a row of its own between the title and the data, never
    over the lines; the left axis marks 0, 0.5 and 1 (more labels crowd a short chart)."""
    plot.setYRange(0, 1.05, padding=0)
    plot.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1.0")], [(v / 10, "") for v in range(11)]])
    item = plot.getPlotItem()
    legend = pg.LegendItem(colCount=4, brush=pg.mkBrush(255, 255, 255, 0))
    # The legend takes the cell of the (hidden) top axis: above the view box, not inside it. The axis leaves
    # the cell first: a grid cell holds one item, and Qt refused the legend beside it with a warning at every
    # start (`QGridLayoutEngine::addItem: Can't add … at cell (1, 1) because it's already taken`).
    item.layout.removeItem(item.getAxis("top"))
    item.layout.addItem(legend, 1, 1)
    item.legend = legend  # where `plot(..., name=…)` adds its entries
