"""Chinese first, English available: every string of the console has an English translation."""

from __future__ import annotations

import ast
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtWidgets import QAbstractButton, QApplication, QFileDialog, QFileSystemModel, QLabel
from pytestqt.qtbot import QtBot

from gui import i18n
from gui.lanes import Lanes
from gui.pages.appkb_page import AppKbPage
from gui.pages.episodes_page import EpisodesPage
from gui.pages.facts_page import FactsPage
from service.errors import EnvironmentProblem
from service.memory.memory import Memory
from tests.conftest import REPO

TS = REPO / "resources" / "i18n" / "jiyi_en.ts"


def test_every_console_string_is_translated() -> None:
    messages = {m.find("source").text: m.find("translation") for m in ET.parse(TS).iter("message")}  # type: ignore[union-attr]
    unfinished = [s for s, t in messages.items() if t is None or t.get("type") == "unfinished" or not t.text]
    assert unfinished == []
    in_code = set()
    for path in (REPO / "gui").rglob("*.py"):
        code = path.read_text("utf-8")
        in_code |= {m.group(2) for m in re.finditer(r"""self\.tr\(\s*(["'])(.+?)\1\s*\)""", code)}
        in_code |= {m.group(2) for m in re.finditer(r"""translate\(\s*"\w+",\s*(["'])(.+?)\1\s*\)""", code)}
    assert in_code - set(messages) == set(), "run pyside6-lupdate and translate the new strings"
    contexts = [c.findtext("name") for c in ET.parse(TS).iter("context")]
    assert all(contexts), "a string lupdate could not place in its class is never looked up at run time"


FULL_WIDTH = set("，：；（）「」、。！？《》【】\u3000")


def _outside_tr(path: Path) -> list[str]:
    """Text constants holding Chinese punctuation that are not the argument of a `tr()`/`translate()`."""
    tree = ast.parse(path.read_text("utf-8"))
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TR_CALLS:
            inside |= {id(sub) for arg in node.args for sub in ast.walk(arg)}
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            inside.add(id(body[0].value))  # a docstring
    return [
        f"{path.name}:{node.lineno} {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in inside
        and FULL_WIDTH & set(node.value)
    ]


TR_CALLS = {"tr", "translate"}


def test_chinese_punctuation_is_only_inside_translated_text() -> None:
    """English must not show "：" or "（）": the punctuation belongs to the Chinese strings, translated with them."""
    found = [line for path in sorted((REPO / "gui").rglob("*.py")) for line in _outside_tr(path)]
    assert found == []


def test_english_is_switchable(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    app = QApplication.instance()
    assert app is not None
    try:
        assert i18n.install(app, "en")
        english = AppKbPage(memory, lanes)
        qtbot.addWidget(english)
        assert english.search_edit.placeholderText() == "Search names, labels or packages"
        assert (
            english.model.headerData(0, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.Orientation.Horizontal)
            == "Name"
        )
    finally:
        i18n.install(app, "zh")
    chinese = AppKbPage(memory, lanes)
    qtbot.addWidget(chinese)
    assert chinese.search_edit.placeholderText() == "搜索名称、标准名或包名"


def test_the_episode_browser_in_english_has_english_punctuation(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    memory.runs.run_start("e1", "phone1", goal="随便看看")
    memory.runs.run_finish(
        "e1",
        {"success": False, "reason": "timeout", "apps": ["com.xingin.xhs"], "steps": 2, "tokens_by_role": {"actor": 9}},
    )
    app = QApplication.instance()
    assert app is not None
    try:
        assert i18n.install(app, "en")
        page = EpisodesPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.rows_loaded, timeout=10_000):
            page.reload()
        with qtbot.waitSignal(page.detail_shown, timeout=10_000):
            page.show_run("e1")
        assert page.model.data(page.model.index(0, 3)) == "Failure (timeout)"  # the model translates as it is read
    finally:
        i18n.install(app, "zh")
    detail = page.detail.toPlainText()
    assert "Apps: com.xingin.xhs" in detail and "Tokens: actor 9" in detail and "Recalled: " in detail
    assert not FULL_WIDTH & set(detail.replace("随便看看", ""))


def test_a_shared_page_base_speaks_english_too(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    app = QApplication.instance()
    assert app is not None
    try:
        assert i18n.install(app, "en")
        page = FactsPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.action_failed, timeout=5000):
            page.tasks.report(EnvironmentProblem("database is locked"))
        assert page.message.text() == "Failed: database is locked"  # said by `RecordPage`, FactsPage's base
    finally:
        i18n.install(app, "zh")


def test_qts_own_buttons_speak_chinese(qtbot: QtBot, memory: Memory, lanes: Lanes) -> None:
    """The settings dialog's Save and Cancel are Qt's standard buttons: Qt's Chinese names them 保存 and 取消."""
    from PySide6.QtWidgets import QDialogButtonBox

    from gui.settings_dialog import SettingsDialog

    app = QApplication.instance()
    assert app is not None
    assert i18n.install(app, "zh")
    from PySide6.QtCore import QSettings

    dialog = SettingsDialog(memory, QSettings("Jiyi", "jiyi-test-i18n"))
    qtbot.addWidget(dialog)
    box = dialog.findChild(QDialogButtonBox)
    assert box is not None
    texts = {box.button(b).text().replace("&", "") for b in (box.StandardButton.Save, box.StandardButton.Cancel)}
    assert texts == {"保存(S)", "取消"} or texts == {"保存", "取消"}, texts


def test_the_home_in_use_box_speaks_chinese(qapp: QApplication) -> None:
    """The box shown when another process owns the home: a Chinese headline and advice, the details below."""
    from gui.refusal import refusal
    from service.errors import HomeLocked

    box = refusal(HomeLocked("home /h is in use by pid 42 (jiyi serve, since 2026-11-30)"))
    assert box.text() == "这个状态目录正被另一个记忆进程使用。" and "--home" in box.informativeText()
    assert "pid 42" in box.detailedText()
    holder = refusal(HomeLocked("home /h is in use by pid 42 (…)", pid=42, command="jiyi serve", since="2026-11-30"))
    assert holder.text() == "这个状态目录正被进程 42（jiyi serve）使用，自 2026-11-30 起。"
    other = refusal(EnvironmentProblem("home /h is not writable"))  # a cause without its own sentence: said at once
    assert (
        other.text() == "无法打开状态目录：home /h is not writable"
        and other.detailedText() == "home /h is not writable"
    )


def test_the_box_for_a_database_that_lost_changes_says_the_cause_and_the_ways_forward(qapp: QApplication) -> None:
    """Before, it said only "无法打开状态目录。", the cause hidden behind "Show Details"."""
    from gui.refusal import refusal
    from service.errors import ChangesMissing

    db = "/h/jiyi.sqlite3"
    box = refusal(ChangesMissing("the database holds less …", 57, kind="lost", acknowledged=121, location=db))
    assert box.text() == (
        "数据库 /h/jiyi.sqlite3 缺少已确认写入的事件（57 条）：它的 WAL 文件可能在服务停止时被删掉、截断或损坏了。"
    )
    assert "jiyi doctor" in box.informativeText() and "备份" in box.informativeText()
    assert "jiyi serve --accept-loss" in box.informativeText() and "holds less" in box.detailedText()
    server = refusal(ChangesMissing("…", 5, kind="lost", acknowledged=9, exact=False, location="postgresql://db"))
    assert server.text().startswith("数据库 postgresql://db 缺少已确认写入的事件（最多 5 条）：服务器可能从备份恢复过")
    copy = refusal(ChangesMissing("…", 3, kind="older copy", acknowledged=9, location=db))
    assert copy.text().startswith(
        "数据库 /h/jiyi.sqlite3 是旧副本（从备份恢复的？），缺少这个状态目录已确认写入的事件（3 条）"
    )
    gone = refusal(ChangesMissing("…", 9, kind="database missing", acknowledged=9, location=db))
    assert gone.text() == "数据库 /h/jiyi.sqlite3 不见了或是空的，而这个状态目录在里面确认写入过 9 条事件。"
    other = refusal(ChangesMissing("…", None, kind="another store", acknowledged=9, location=db))
    assert other.text() == "数据库 /h/jiyi.sqlite3 是另一个存储的，不是这个状态目录确认写入过 9 条事件的那一个。"
    assert refusal(ChangesMissing("another store's", None)).text() == "数据库不是这个状态目录上次确认写入的那一个。"


def test_qts_own_file_dialog_speaks_chinese(qtbot: QtBot, tmp_path: Path) -> None:
    """The folder dialog of the App-KB import (Qt's own, not the desktop's): every label, button and the kind of
    a folder in Chinese. PySide6's `qtbase_zh_CN.qm` knows `Look in:` but Qt 6 asks for `&Look in:`, and it has
    no `Folder` at all: `i18n.QtGaps` answers those."""
    app = QApplication.instance()
    assert app is not None
    assert i18n.install(app, "zh")
    (tmp_path / "memory").mkdir()
    dialog = QFileDialog(None, "选择 TaskWizard 的 memory 目录", str(tmp_path))
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    qtbot.addWidget(dialog)
    files = dialog.findChild(QFileSystemModel)
    assert files is not None
    with qtbot.waitSignal(files.directoryLoaded, timeout=10_000):
        dialog.show()
    labels = {w.objectName(): w.text() for w in dialog.findChildren(QLabel)}
    assert labels["lookInLabel"] == "查找范围(&L)：" and labels["fileTypeLabel"] == "文件类型(&T)："
    assert labels["fileNameLabel"] == "目录："
    shown = [w.text() for w in dialog.findChildren(QLabel)] + [b.text() for b in dialog.findChildren(QAbstractButton)]
    shown += [b.toolTip() for b in dialog.findChildren(QAbstractButton)]
    # Latin letters only as a mnemonic, "(&L)"
    assert [t for t in shown if re.search(r"[A-Za-z]", re.sub(r"\(&[A-Z]\)", "", t))] == []
    folder = files.index(str(tmp_path / "memory"))
    assert files.data(files.index(folder.row(), 2, folder.parent())) == "文件夹"
    assert [
        files.headerData(c, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.Orientation.Horizontal) for c in range(4)
    ] == ["名称", "体积", "类型", "修改日期"]
