"""The console's languages: Chinese (the source text, with Qt's `qtbase_zh_CN.qm`) and English
(`resources/i18n/jiyi_en.qm`).

Sources are written in Chinese through `tr()`; `pyside6-lupdate` collects them
into `jiyi_en.ts`, translated with Qt Linguist and compiled by
`pyside6-lrelease` into the `.qm` loaded here.
"""

from __future__ import annotations

import unicodedata
from importlib import resources

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

QT_GAPS_ZH = {
    ("QAbstractFileIconProvider", "Folder"): "文件夹",
    ("QAbstractFileIconProvider", "File"): "文件",
    ("QAbstractFileIconProvider", "%1 File"): "%1 文件",
    ("QAbstractFileIconProvider", "Drive"): "驱动器",
    ("QAbstractFileIconProvider", "Alias"): "替身",
    ("QAbstractFileIconProvider", "Shortcut"): "快捷方式",
}
"""Qt's own words that PySide6's `qtbase_zh_CN.qm` does not translate at all (the file dialog's 类型 column)."""

LANGUAGES = {"zh": "中文", "en": "English"}
QT_LOCALES = {"zh": "zh_CN"}
"""Qt's own translation for each language that needs one (English is Qt's source language)."""
LOCALES = {"zh": "zh_CN", "en": "en_US"}
"""The locale each language writes dates in (a chart's month under its days: 12月, or Dec)."""
_language = ["zh"]  # the language installed last (the console's source text is Chinese)
_installed: list[QTranslator] = []
_data: list[bytes] = []  # QTranslator reads the bytes it was loaded from in place: keep them alive


def install(app: QCoreApplication, language: str) -> bool:
    """Translate the console into `language` (call before widgets are made); True when a translation loaded.

    Chinese installs Qt's own Chinese (standard buttons, dialogs); English installs Jiyi's English.
    """
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    _data.clear()
    _language[0] = "zh"  # what shows with no translation installed
    if language not in LANGUAGES:
        return False
    if language == "zh":
        # The console's own text is Chinese already; Qt's (the standard buttons' 保存/取消, the file
        # dialogs) comes from the translations PySide6 ships.
        qt = QTranslator(app)
        if not qt.load(f"qtbase_{QT_LOCALES[language]}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            return False
        app.installTranslator(qt)
        gaps = QtGaps(qt, app)  # installed last, so asked first: it answers only what `qt` cannot
        app.installTranslator(gaps)
        _installed.extend((qt, gaps))
        return True
    translator = QTranslator(app)
    data = resources.files("resources").joinpath("i18n", f"jiyi_{language}.qm").read_bytes()
    if not translator.load(data):
        return False
    app.installTranslator(translator)
    _installed.append(translator)
    _data.append(data)
    _language[0] = language
    return True


def locale() -> QLocale:
    """The locale of the console's language: the names of months and weekdays it writes."""
    return QLocale(LOCALES[_language[0]])


class QtGaps(QTranslator):
    """Chinese for what Qt shows that its own catalogue `qt` leaves in English: Qt 6 gave labels of the file
    dialog a mnemonic (`&Look in:`, `Files of &type:`) that the catalogue knows only without one (`Look in:`),
    and the icon provider's kinds (`Folder`) are not in it at all (`QT_GAPS_ZH`). Every other text it leaves
    to the other translators."""

    def __init__(self, qt: QTranslator, parent: QCoreApplication) -> None:
        super().__init__(parent)
        self._qt = qt

    def isEmpty(self) -> bool:
        return False

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str | None:
        # None is Qt's null string, "not translated here": the next translator is asked (an empty string would
        # be taken as the translation).
        known = QT_GAPS_ZH.get((context, source))
        if known is not None:
            return known
        if (
            not context.startswith("Q")
            or source.count("&") != 1
            or self._qt.translate(context, source, disambiguation, n)
        ):
            return None
        mark = source.index("&")
        letter = source[mark + 1 : mark + 2]
        plain = self._qt.translate(context, source.replace("&", ""), disambiguation, n)
        if not plain or not letter.isalnum():
            return None
        colon = plain[-1] if unicodedata.normalize("NFKC", plain[-1]) == ":" else ""  # full width in Chinese
        return f"{plain.removesuffix(colon)}(&{letter.upper()}){colon}"
