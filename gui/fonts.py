"""Fonts the app brings with it: a frozen build (docs/install.md, The app) ships a CJK font in `fonts/`.

Without a CJK font every Chinese label is drawn as boxes. An installed Jiyi relies on the system's fonts
(`make run` installs fonts-wqy-microhei); the app cannot, so it adds its own to Qt's font database at start,
where fontconfig's fallback finds it for any text the system's fonts cannot draw.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtGui import QFontDatabase

log = logging.getLogger("jiyi.gui")

FONT_SUFFIXES = frozenset({".ttf", ".ttc", ".otf"})


def shipped_font_folder() -> Path | None:
    """The frozen build's `fonts/` folder (PyInstaller unpacks data into `sys._MEIPASS`), None when not frozen."""
    if not getattr(sys, "frozen", False):
        return None
    base = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    return base / "fonts"


def font_files(folder: Path) -> list[Path]:
    """The font files directly in `folder`, in name order (none when it does not exist)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in FONT_SUFFIXES and p.is_file())


def add_shipped_fonts(folder: Path | None = None) -> list[str]:
    """Add the fonts in `folder` (default: the frozen build's) to Qt's font database; the families added.

    Needs a QGuiApplication. A file Qt cannot read is logged and skipped: the console still opens."""
    folder = folder if folder is not None else shipped_font_folder()
    if folder is None:
        return []
    families: list[str] = []
    for path in font_files(folder):
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            log.warning("could not load the font %s; Chinese text may show as boxes", path)
            continue
        families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return families
