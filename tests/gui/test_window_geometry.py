"""The window's size: the one the person left it at, else the default."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QSettings, QSize
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import DEFAULT_SIZE, MainWindow


def _window(qtbot: QtBot, lanes: Lanes, settings: QSettings, home: Path) -> MainWindow:
    window = MainWindow(None, settings, lanes, home=home)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _expected(_window: MainWindow) -> QSize:
    return DEFAULT_SIZE


def test_a_window_with_no_saved_geometry_opens_at_the_default_size(qtbot: QtBot, lanes: Lanes, tmp_path: Path) -> None:
    assert (DEFAULT_SIZE.width(), DEFAULT_SIZE.height()) == (1200, 760)
    window = _window(qtbot, lanes, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), tmp_path)
    expected = _expected(window)
    assert window.size() == expected
    assert window.width() >= min(1200, expected.width()) and window.height() >= min(760, expected.height())
    window.close()


@pytest.mark.parametrize("saved", [QByteArray(), QByteArray(b"not a geometry"), "1200x760"])
def test_a_saved_geometry_qt_cannot_read_gives_the_default_size(
    qtbot: QtBot, lanes: Lanes, tmp_path: Path, saved: object
) -> None:
    # restoreGeometry refuses bytes it cannot read (emptied, damaged, hand-edited); the window then kept its
    # size hint, about 360×230, which cuts the navigation list and the first-run box.
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("main/geometry", saved)
    window = _window(qtbot, lanes, settings, tmp_path)
    assert window.size() == _expected(window)
    window.close()


def test_the_size_the_person_left_is_kept(qtbot: QtBot, lanes: Lanes, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    first = _window(qtbot, lanes, settings, tmp_path)
    first.resize(700, 500)  # smaller than the default: the person's choice, not replaced by it
    qtbot.waitUntil(lambda: first.size() == QSize(700, 500), timeout=3000)
    first.close()
    again = _window(qtbot, lanes, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), tmp_path)
    assert again.size() == QSize(700, 500)
    again.close()
