"""Chinese first, English available: every string of the console has an English translation."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui import i18n
from gui.background import Background
from gui.pages.appkb_page import AppKbPage
from service.memory.memory import Memory
from tests.conftest import REPO

TS = REPO / "resources" / "i18n" / "jiyi_en.ts"


def test_every_console_string_is_translated() -> None:
    messages = {m.find("source").text: m.find("translation") for m in ET.parse(TS).iter("message")}  # type: ignore[union-attr]
    unfinished = [
        s for s, t in messages.items() if t is None or t.get("type") == "unfinished" or not (t.text or "").strip()
    ]
    assert unfinished == []
    in_code = set()
    for path in (REPO / "gui").rglob("*.py"):
        in_code |= {m.group(2) for m in re.finditer(r"""self\.tr\(\s*(["'])(.+?)\1\s*\)""", path.read_text("utf-8"))}
    assert in_code - set(messages) == set(), "run pyside6-lupdate and translate the new strings"


def test_english_is_switchable(qtbot: QtBot, memory: Memory) -> None:
    app = QApplication.instance()
    assert app is not None
    background = Background()
    try:
        assert i18n.install(app, "en")
        english = AppKbPage(memory, background)
        qtbot.addWidget(english)
        assert english.search_edit.placeholderText() == "Search names, labels or packages"
        assert (
            english.model.headerData(0, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.Orientation.Horizontal)
            == "Name"
        )
    finally:
        i18n.install(app, "zh")
    chinese = AppKbPage(memory, background)
    qtbot.addWidget(chinese)
    assert chinese.search_edit.placeholderText() == "搜索名称、标准名或包名"
    background.shutdown()
