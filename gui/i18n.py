"""The console's languages: Chinese (the source text) and English (`resources/i18n/jiyi_en.qm`).

Sources are written in Chinese through `tr()`; `pyside6-lupdate` collects them
into `jiyi_en.ts`, translated with Qt Linguist and compiled by
`pyside6-lrelease` into the `.qm` loaded here.
"""

from __future__ import annotations

from importlib import resources

from PySide6.QtCore import QCoreApplication, QTranslator

LANGUAGES = {"zh": "中文", "en": "English"}
_installed: list[QTranslator] = []
_data: list[bytes] = []  # QTranslator reads the bytes it was loaded from in place: keep them alive


def install(app: QCoreApplication, language: str) -> bool:
    """Translate the console into `language` (call before widgets are made); True when a translation loaded."""
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    _data.clear()
    if language not in LANGUAGES or language == "zh":
        return False
    translator = QTranslator(app)
    data = resources.files("resources").joinpath("i18n", f"jiyi_{language}.qm").read_bytes()
    if not translator.load(data):
        return False
    app.installTranslator(translator)
    _installed.append(translator)
    _data.append(data)
    return True
