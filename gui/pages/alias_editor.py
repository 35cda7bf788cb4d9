"""The App-KB editor panel: teach and forget aliases, see why a name resolves, undo and redo.

Only global user and learned aliases are edited here; device entries come from
the devices themselves and are read-only. Every edit is a `Memory` call in the
write lane; undo and redo go through a `QUndoStack` whose commands
append reverting events (history is never rewritten).
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.codes import actor_name, event_name, evidence_name, kind_name, resolve_reason
from gui.lanes import Lanes, Tasks, page_task
from gui.words import NOWRAP, labelled, semicolon_list, with_note
from service.memory.api import MemoryApi

RESOLVE_DELAY_MS = 250
"""How long typing must pause before the name in the 试试解析 box is resolved."""


class AliasChange(QUndoCommand):
    """One user edit, already applied; undo appends its reverting events, redo reverts the revert."""

    def __init__(self, editor: AliasEditor, text: str, txn: int) -> None:
        super().__init__(text)
        self.editor, self.txn = editor, txn
        self._revert: int | None = None
        self._first = True

    def redo(self) -> None:
        if self._first:  # pushed after the edit was made
            self._first = False
            return
        if self._revert is not None:
            self.editor.revert(self._revert, lambda txn: setattr(self, "txn", txn))

    def undo(self) -> None:
        self.editor.revert(self.txn, lambda txn: setattr(self, "_revert", txn))


class AliasEditor(QWidget):
    """Teach, forget, resolve, history, undo/redo — for one App-KB."""

    saved = Signal(int)  # the change id
    failed = Signal(str)
    resolved = Signal(object)
    history_loaded = Signal(str)
    reverted = Signal(int)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._fail)
        self.undo_stack = QUndoStack(self)

        teach = QGroupBox(self.tr("教它一个叫法（全局用户别名，最高信任）"))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("名称，例如 绿泡泡"))
        self.package_edit = QLineEdit()
        self.package_edit.setPlaceholderText(self.tr("包名，例如 com.tencent.mm"))
        self.save_button = QPushButton(self.tr("保存"))
        self.forget_button = QPushButton(self.tr("忘记这个叫法"))
        self.undo_button = QPushButton(self.tr("撤销"))
        self.redo_button = QPushButton(self.tr("重做"))
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        self.undo_stack.canUndoChanged.connect(self.undo_button.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_button.clicked.connect(self.undo_stack.undo)
        self.redo_button.clicked.connect(self.undo_stack.redo)
        self.message = QLabel()
        self.message.setWordWrap(True)
        form = QFormLayout(teach)
        form.addRow(self.tr("名称"), self.name_edit)
        form.addRow(self.tr("包名"), self.package_edit)
        # Two rows of two: in one row the four buttons made the editor wider than the table beside it.
        buttons = QGridLayout()
        for i, button in enumerate((self.save_button, self.forget_button, self.undo_button, self.redo_button)):
            buttons.addWidget(button, i // 2, i % 2)
        form.addRow(buttons)
        form.addRow(self.message)

        probe = QGroupBox(self.tr("试试解析"))
        self.resolve_edit = QLineEdit()
        self.resolve_edit.setPlaceholderText(self.tr("输入一个叫法，看它会打开哪个应用"))
        self.resolve_device = QComboBox()
        self.resolve_device.addItem(self.tr("不限设备"), None)
        self.resolve_output = QTextBrowser()
        probe_layout = QVBoxLayout(probe)
        row = QHBoxLayout()
        row.addWidget(self.resolve_edit, 3)
        row.addWidget(self.resolve_device, 1)
        probe_layout.addLayout(row)
        probe_layout.addWidget(self.resolve_output)

        history = QGroupBox(self.tr("这个叫法的历史"))
        self.history_view = QTextBrowser()
        QVBoxLayout(history).addWidget(self.history_view)

        layout = QVBoxLayout(self)
        layout.addWidget(teach)
        layout.addWidget(probe, 2)
        layout.addWidget(history, 2)

        self.save_button.clicked.connect(lambda: self.save())
        self.forget_button.clicked.connect(lambda: self.forget())
        # Live as you type: each keystroke restarts the wait, so one name is resolved once typing pauses.
        self._resolve_soon = QTimer(self)
        self._resolve_soon.setSingleShot(True)
        self._resolve_soon.setInterval(RESOLVE_DELAY_MS)
        self._resolve_soon.timeout.connect(lambda: self.resolve())
        self.resolve_edit.textChanged.connect(self._typed)
        self.resolve_edit.returnPressed.connect(lambda: self.resolve())
        self.resolve_device.currentIndexChanged.connect(lambda _i: self.resolve())

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (self.save_button, self.forget_button, self.undo_button, self.redo_button)

    # -- edits -------------------------------------------------------------------------

    def _fail(self, message: str) -> None:
        self.message.setText(f"<span style='color:#b3261e'>{html.escape(message)}</span>")
        self.failed.emit(message)

    @page_task
    async def save(self) -> None:
        name, package = self.name_edit.text().strip(), self.package_edit.text().strip()
        outcome = await self.tasks.write(self.memory.appkb.learn_alias, name, package, actor="user")
        result = outcome.result
        saved = self.tr("已保存：{0} → {1}").format(result.entry.term, result.entry.package)
        if outcome.warnings:
            saved = with_note(saved, semicolon_list(outcome.warnings))
        self.message.setText(saved)
        if result.changed:
            self.undo_stack.push(AliasChange(self, self.tr("设置 {0}").format(result.entry.term), result.txn))
        self.load_history(name)
        self.saved.emit(result.txn)

    @page_task
    async def forget(self) -> None:
        name = self.name_edit.text().strip()
        result = await self.tasks.write(self.memory.appkb.forget_alias, name, actor="user")
        if result.removed:
            self.message.setText(self.tr("已忘记 {0}（设备清单条目不动）").format(result.term))
            self.undo_stack.push(AliasChange(self, self.tr("忘记 {0}").format(result.term), result.txn))
        else:
            self.message.setText(self.tr("{0} 没有可忘记的用户或学习别名").format(result.term))
        self.load_history(name)
        self.saved.emit(result.txn)

    @page_task
    async def revert(self, txn: int, remember: Callable[[int], object]) -> None:
        """Append events reverting change `txn`; `remember(new_txn)` gets the revert's id."""
        result = await self.tasks.write(self.memory.appkb.undo_change, txn, actor="user")
        remember(result.txn)
        self.message.setText(self.tr("已撤回改动 {0}").format(txn))
        self.load_history(self.name_edit.text().strip())
        self.reverted.emit(result.txn)

    # -- reads -------------------------------------------------------------------------

    def show_entry(self, term: str, package: str) -> None:
        self.name_edit.setText(term)
        self.package_edit.setText(package)
        self.load_history(term)

    def set_devices(self, devices: list[str]) -> None:
        current = self.resolve_device.currentData()
        self.resolve_device.blockSignals(True)
        while self.resolve_device.count() > 1:
            self.resolve_device.removeItem(1)
        for serial in devices:
            self.resolve_device.addItem(serial, serial)
        self.resolve_device.setCurrentIndex(max(0, self.resolve_device.findData(current)) if current else 0)
        self.resolve_device.blockSignals(False)

    @page_task
    async def load_history(self, name: str) -> None:
        if not name:
            self.history_view.clear()
            return
        items = await self.tasks.refresh("history", self.memory.appkb.alias_history, name, limit=100)
        change = self.tr("改动")
        # A time, a package or a change number is never broken across lines (`2026-12-0` / `1 19:14`).
        rows = [
            f"<tr><td {NOWRAP}>{html.escape(i.ts[:16].replace('T', ' '))}</td>"
            f"<td {NOWRAP}>{html.escape(actor_name(i.actor))}</td><td {NOWRAP}>{html.escape(event_name(i.type))}</td>"
            f"<td {NOWRAP}>{html.escape(kind_name(i.kind or ''))}<br>{html.escape(i.package or '')}</td>"
            f"<td {NOWRAP}>{change} {i.txn}{(' ↶ ' + str(i.undo_of)) if i.undo_of else ''}</td></tr>"
            for i in items
        ]
        table = "<table cellpadding='3'>" + "".join(rows) + "</table>"
        self.history_view.setHtml(table if rows else self.tr("没有历史"))
        self.history_loaded.emit(name)

    def _typed(self, text: str) -> None:
        """The probe's text changed: resolve it once typing pauses; an emptied box is cleared at once."""
        if text.strip():
            self._resolve_soon.start()
        else:
            self._resolve_soon.stop()
            self.resolve_output.clear()

    @page_task
    async def resolve(self) -> None:
        """Resolve what the box holds now (typing waits a moment first); an empty box shows nothing."""
        self._resolve_soon.stop()
        name, device = self.resolve_edit.text().strip(), self.resolve_device.currentData()
        if not name:
            self.resolve_output.clear()
            return
        result = await self.tasks.refresh("resolve", self.memory.appkb.resolve_app, name, device=device)
        if (self.resolve_edit.text().strip(), self.resolve_device.currentData()) != (name, device):
            return  # the box moved on while this was resolved: its own answer is on the way
        states = {
            "resolved": self.tr("可直接打开"),
            "ambiguous": self.tr("需要模型选择"),
            "unknown": self.tr("不认识"),
        }
        state = html.escape(states.get(result.state, result.state))
        reason = html.escape(resolve_reason(result.reason))
        head = labelled(f"<b>{state}</b>", with_note(html.escape(result.package or "—"), reason))
        installed = {None: "", True: self.tr("已安装"), False: self.tr("未安装")}
        rows = [
            f"<tr><td {NOWRAP}>{html.escape(c.package)}</td><td>{html.escape(c.label)}</td>"
            f"<td>{html.escape(c.name)}</td>"
            f"<td>{html.escape(evidence_name(c.evidence))}{' ✓' if c.strong else ''}</td>"
            f"<td {NOWRAP}>{c.similarity:.3f}</td><td {NOWRAP}>{c.prior:.3f}</td><td {NOWRAP}>{c.score:.3f}</td>"
            f"<td {NOWRAP}>{installed[c.installed]}</td></tr>"
            for c in result.candidates
        ]
        titles = (
            self.tr("包名"),
            self.tr("标准名"),
            self.tr("匹配到"),
            self.tr("证据"),
            self.tr("相似度"),
            self.tr("先验"),
            self.tr("得分"),
            "",
        )
        header = "".join(f"<th {NOWRAP}>{t}</th>" for t in titles)  # a number or a heading is never broken
        self.resolve_output.setHtml(f"<p>{head}</p><table cellpadding='3'><tr>{header}</tr>{''.join(rows)}</table>")
        self.resolved.emit(result)
