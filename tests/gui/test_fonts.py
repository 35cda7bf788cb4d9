"""The app's own CJK font: a frozen build adds the fonts it ships to Qt's database before the first word."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication

from gui.fonts import add_shipped_fonts, font_files, shipped_font_folder

WQY = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")  # fonts-wqy-microhei (make run and make test install it)


def test_only_a_frozen_build_has_a_font_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert shipped_font_folder() is None and add_shipped_fonts() == []  # an installed Jiyi uses the system's
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert shipped_font_folder() == tmp_path / "fonts"
    monkeypatch.delattr(sys, "_MEIPASS")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "app" / "jiyi"))
    assert shipped_font_folder() == tmp_path / "app" / "fonts"  # a build that keeps its data beside the program


def test_font_files_are_the_fonts_in_the_folder(tmp_path: Path) -> None:
    assert font_files(tmp_path / "missing") == []
    for name in ("b.TTF", "a.ttc", "c.otf", "licenses", "README.txt", "d.woff"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "e.ttf").mkdir()
    assert [p.name for p in font_files(tmp_path)] == ["a.ttc", "b.TTF", "c.otf"]


def test_the_shipped_font_joins_qt_s_database_and_a_broken_one_is_skipped(
    qapp: QApplication, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copy(WQY, tmp_path / "wqy-microhei.ttc")
    (tmp_path / "broken.ttf").write_bytes(b"not a font")
    with caplog.at_level(logging.WARNING, logger="jiyi.gui"):
        families = add_shipped_fonts(tmp_path)
    assert "WenQuanYi Micro Hei" in families
    assert "WenQuanYi Micro Hei" in QFontDatabase.families()
    assert "could not load the font" in caplog.text and "broken.ttf" in caplog.text
