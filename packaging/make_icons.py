"""Render resources/icons/jiyi.svg to the PNG sizes the hicolor icon theme wants (run after editing the SVG).

QT_QPA_PLATFORM=offscreen .venv/bin/python -P packaging/make_icons.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256)
ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"


def main() -> int:
    app = QGuiApplication(sys.argv)  # noqa: F841 - QImage painting needs the application object
    renderer = QSvgRenderer(str(ICONS / "jiyi.svg"))
    if not renderer.isValid():
        print("make_icons: jiyi.svg does not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(ICONS / f"jiyi-{size}.png"))
        print(ICONS / f"jiyi-{size}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
