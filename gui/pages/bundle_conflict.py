"""The dialog a stale save opens: the stored and the edited versions side by side, differences marked.

The user chooses knowingly: take the stored version (their edits are
dropped), overwrite it with theirs (saved against the stored revision), or
go back to editing.
"""

from __future__ import annotations

import difflib

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

STORED_MARK = QColor("#fde2e1")
EDITED_MARK = QColor("#dff3e3")


def changed_lines(stored: str, edited: str) -> tuple[list[int], list[int]]:
    """Line numbers (0-based) that differ: in `stored`, in `edited`."""
    left, right = stored.splitlines(), edited.splitlines()
    ours: list[int] = []
    theirs: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=left, b=right, autojunk=False).get_opcodes():
        if tag != "equal":
            ours.extend(range(i1, i2))
            theirs.extend(range(j1, j2))
    return ours, theirs


def _mark(view: QPlainTextEdit, lines: list[int], color: QColor) -> None:
    selections = []
    for number in lines:
        block = view.document().findBlockByNumber(number)
        if not block.isValid():
            continue
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(color)
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.format = fmt
        cursor = QTextCursor(block)
        selection.cursor = cursor
        selections.append(selection)
    view.setExtraSelections(selections)


class ConflictDialog(QDialog):
    """`choice` is "reload", "overwrite" or "" (keep editing) after it closes."""

    def __init__(
        self, path: str, stored: str, stored_revision: int, edited: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("保存冲突：{0}").format(path))
        self.choice = ""
        self.stored_view = QPlainTextEdit(stored)
        self.edited_view = QPlainTextEdit(edited)
        for view in (self.stored_view, self.edited_view):
            view.setReadOnly(True)
            view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.stored_lines, self.edited_lines = changed_lines(stored, edited)
        _mark(self.stored_view, self.stored_lines, STORED_MARK)
        _mark(self.edited_view, self.edited_lines, EDITED_MARK)
        explain = QLabel(
            self.tr(
                "保存时发现这份文档已被别人改过（现在是修订 {0}）。左边是已保存的版本，右边是你的编辑；"
                "不同的行已标出。请选择："
            ).format(stored_revision)
        )
        explain.setWordWrap(True)
        grid = QGridLayout()
        grid.addWidget(QLabel(self.tr("已保存（修订 {0}）").format(stored_revision)), 0, 0)
        grid.addWidget(QLabel(self.tr("你的编辑")), 0, 1)
        grid.addWidget(self.stored_view, 1, 0)
        grid.addWidget(self.edited_view, 1, 1)
        buttons = QDialogButtonBox()
        self.reload_button = buttons.addButton(self.tr("载入已保存的版本"), QDialogButtonBox.ButtonRole.RejectRole)
        self.overwrite_button = buttons.addButton(self.tr("用我的版本覆盖"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.keep_button = buttons.addButton(self.tr("继续编辑"), QDialogButtonBox.ButtonRole.ResetRole)
        self.reload_button.clicked.connect(lambda: self._choose("reload"))
        self.overwrite_button.clicked.connect(lambda: self._choose("overwrite"))
        self.keep_button.clicked.connect(lambda: self._choose(""))
        layout = QVBoxLayout(self)
        layout.addWidget(explain)
        layout.addLayout(grid, 1)
        layout.addWidget(buttons)
        self.resize(900, 520)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.done(QDialog.DialogCode.Accepted if choice else QDialog.DialogCode.Rejected)
