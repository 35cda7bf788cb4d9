"""What the console says when it cannot open a home: the cause first, in Chinese, in the box's main text.

Each cause a person can act on has its sentence: a bad `config.toml` (the file,
the line and the parser's words), a home others may read, a home or file of
another user's, a home another process holds, a read-only folder with nothing
to read, a database that lost acknowledged changes, a newer schema. Anything
else is framed as "无法打开状态目录" with the service's own words after it.
The service's whole message is under 显示详情 as well.

One refusal the console can mend: a home others may read (plain `mkdir` makes
it 0755). `open_fixing` asks the person (修复 / 取消), makes it private as
`jiyi doctor --fix-permissions` does, and opens it. The question is asked
through a function (`Ask`) so that a test answers it without a modal loop.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QPushButton

from gui.codes import read_only_cause
from gui.opening import Opened, open_home
from service.config import Config, ConfigError
from service.errors import (
    ChangesMissing,
    HomeLocked,
    HomeReadOnly,
    JiyiError,
    NotYours,
    SchemaTooNew,
    TooOpen,
)
from service.home_permissions import fix_permissions

log = logging.getLogger("jiyi.gui")

TITLE = "记忆 Jiyi"
BOX_TEXT_PX = 520
_TOML_REASON = re.compile(r"not valid TOML: (?P<words>.+) \(column (?P<column>\d+)\)")  # as service/config.py words it


def what_name(what: str) -> str:
    """What a refusal names ("home", "database", "lock file" …, as `store.core.home` says) in Chinese."""
    names = {
        "home": QApplication.translate("Console", "状态目录"),
        "database": QApplication.translate("Console", "数据库"),
        "WAL file": QApplication.translate("Console", "数据库的 WAL 文件"),
        "shared-memory file": QApplication.translate("Console", "数据库的共享内存文件"),
        "lock file": QApplication.translate("Console", "锁文件"),
        "acknowledgement mark": QApplication.translate("Console", "确认标记文件"),
    }
    return names.get(what, what)


def refusal(exc: JiyiError) -> QMessageBox:
    """The box that says why the console cannot open the home: the cause in the main text, what to do below it,
    the service's own words under 显示详情."""
    box = QMessageBox(QMessageBox.Icon.Critical, TITLE, "")
    text, advice = _cause(exc)
    box.setText(text)
    if advice:
        box.setInformativeText(advice)
    box.setDetailedText(str(exc))
    _widen(box)
    return box


def _widen(box: QMessageBox) -> None:
    """Room for a path on one line: Qt's box is 400 px wide at most by default, breaking a home's path in two."""
    box.setStyleSheet(f"QLabel#qt_msgbox_label, QLabel#qt_msgbox_informativelabel {{ min-width: {BOX_TEXT_PX}px; }}")


def _cause(exc: JiyiError) -> tuple[str, str]:
    """(the cause, what to do) for `exc`, in the console's language."""
    if isinstance(exc, ConfigError):
        return _config_cause(exc)
    if isinstance(exc, TooOpen):
        text = QApplication.translate("Console", "{0} {1} 的权限是 {2:04o}，其他用户可以读取。").format(
            what_name(exc.what), exc.path, exc.mode
        )
        if not exc.fixable:
            return text, QApplication.translate(
                "Console", "它在只读的位置上，权限改不了：在可写的地方把它改为私有，或用 --home 选择另一个状态目录。"
            )
        home = exc.path if exc.what == "home" else exc.path.parent
        return text, QApplication.translate(
            "Console", "记忆只打开私有的状态目录。在终端运行 jiyi doctor --fix-permissions --home {0}。"
        ).format(home)
    if isinstance(exc, NotYours):
        text = QApplication.translate("Console", "{0} {1} 属于另一个用户（uid {2}），不是你的。").format(
            what_name(exc.what), exc.path, exc.owner
        )
        return text, QApplication.translate(
            "Console", "记忆只打开你自己的文件，也不会去改它。用 --home 选择你自己的状态目录。"
        )
    if isinstance(exc, HomeLocked):
        advice = QApplication.translate("Console", "关闭那个进程，或用 --home 选择另一个状态目录。")
        if exc.pid is None:
            return QApplication.translate("Console", "这个状态目录正被另一个记忆进程使用。"), advice
        return QApplication.translate("Console", "这个状态目录正被进程 {0}（{1}）使用，自 {2} 起。").format(
            exc.pid, exc.command, exc.since
        ), advice
    if isinstance(exc, HomeReadOnly):
        text = QApplication.translate("Console", "{0}，里面也没有记忆数据库可以查看。").format(
            read_only_cause(exc.reason)
        )
        return text, QApplication.translate("Console", "用 --home 或 JIYI_HOME 选择一个可写的文件夹。")
    if isinstance(exc, ChangesMissing):
        return _loss_cause(exc)
    if isinstance(exc, SchemaTooNew):
        return QApplication.translate("Console", "数据库是更新版本的记忆写的：{0}").format(exc), QApplication.translate(
            "Console", "升级记忆后再打开它。"
        )
    return QApplication.translate("Console", "无法打开状态目录：{0}").format(exc), ""


def _loss_cause(exc: ChangesMissing) -> tuple[str, str]:
    """A database that lacks what the home acknowledged: which database, what happened to it and how much is
    missing, then the two ways forward."""
    where = exc.location or QApplication.translate("Console", "数据库")
    if exc.missing is None:
        count = ""
    elif exc.exact:
        count = QApplication.translate("Console", "{0} 条").format(exc.missing)
    else:
        count = QApplication.translate("Console", "最多 {0} 条").format(exc.missing)
    if exc.kind == "database missing":
        text = QApplication.translate(
            "Console", "数据库 {0} 不见了或是空的，而这个状态目录在里面确认写入过 {1} 条事件。"
        ).format(where, exc.acknowledged)
    elif exc.kind == "another store":
        text = QApplication.translate(
            "Console", "数据库 {0} 是另一个存储的，不是这个状态目录确认写入过 {1} 条事件的那一个。"
        ).format(where, exc.acknowledged)
    elif exc.kind == "older copy" and count:
        text = QApplication.translate(
            "Console", "数据库 {0} 是旧副本（从备份恢复的？），缺少这个状态目录已确认写入的事件（{1}）。"
        ).format(where, count)
    elif exc.kind == "lost" and count and exc.exact:
        text = QApplication.translate(
            "Console", "数据库 {0} 缺少已确认写入的事件（{1}）：它的 WAL 文件可能在服务停止时被删掉、截断或损坏了。"
        ).format(where, count)
    elif exc.kind == "lost" and count:
        text = QApplication.translate(
            "Console", "数据库 {0} 缺少已确认写入的事件（{1}）：服务器可能从备份恢复过，或切换到了缺少它们的副本。"
        ).format(where, count)
    elif exc.kind is not None:
        text = QApplication.translate(
            "Console", "数据库 {0} 的历史和这个状态目录确认写入的不一致（第 {1} 条事件已不是原来那条）。"
        ).format(where, exc.acknowledged)
    elif count:
        text = QApplication.translate("Console", "数据库缺少 {0} 条已确认写入的事件。").format(exc.missing)
    else:
        text = QApplication.translate("Console", "数据库不是这个状态目录上次确认写入的那一个。")
    see = QApplication.translate("Console", "什么都没有改动。运行 jiyi doctor 查看，或从备份恢复数据库。")
    accept = QApplication.translate(
        "Console", "要明知缺失而继续，在终端运行 jiyi serve --accept-loss（会记入事件日志）。"
    )
    return text, f"{see}\n{accept}"


def _config_cause(exc: ConfigError) -> tuple[str, str]:
    """A bad setting: the file and the line when it is `config.toml`'s, and the parser's (or the check's) words."""
    if exc.path is None:
        return QApplication.translate("Console", "设置有误：{0}").format(exc.reason), QApplication.translate(
            "Console", "检查以 JIYI_ 开头的环境变量和命令行参数；每项设置见 docs/configuration.md。"
        )
    toml = _TOML_REASON.fullmatch(exc.reason)
    if exc.line is not None and toml:  # the parser's words stay as they are; where they apply is said first
        text = QApplication.translate("Console", "设置文件 {0} 第 {1} 行第 {2} 列不是有效的 TOML：{3}").format(
            exc.path, exc.line, toml["column"], toml["words"]
        )
    elif exc.line is None:
        text = QApplication.translate("Console", "设置文件 {0} 有误：{1}").format(exc.path, exc.reason)
    else:
        text = QApplication.translate("Console", "设置文件 {0} 第 {1} 行有误：{2}").format(
            exc.path, exc.line, exc.reason
        )
    return text, QApplication.translate("Console", "改正或删掉这一行，再打开记忆；每项设置见 docs/configuration.md。")


class PermissionQuestion(QMessageBox):
    """ "状态目录 … 的权限是 0755，其他用户可以读取。改为 0700？" with 修复 and 取消 (`fix_button`, `cancel_button`)."""

    def __init__(self, exc: TooOpen) -> None:
        super().__init__(QMessageBox.Icon.Warning, TITLE, "")
        private = 0o700 if exc.what == "home" else 0o600
        self.setText(
            QApplication.translate("Console", "{0} {1} 的权限是 {2:04o}，其他用户可以读取。改为 {3:04o}？").format(
                what_name(exc.what), exc.path, exc.mode, private
            )
        )
        what = QApplication.translate("Console", "修复会把状态目录改为 0700、其中的数据库文件改为 0600。")
        how = QApplication.translate("Console", "只改你自己的文件，不经过符号链接。")
        cli = QApplication.translate("Console", "在终端也可以运行 jiyi doctor --fix-permissions。")
        self.setInformativeText(f"{what}{how}\n{cli}")
        self.setDetailedText(str(exc))
        self.fix_button: QPushButton = self.addButton(
            QApplication.translate("Console", "修复"), QMessageBox.ButtonRole.AcceptRole
        )
        self.cancel_button: QPushButton = self.addButton(
            QApplication.translate("Console", "取消"), QMessageBox.ButtonRole.RejectRole
        )
        self.setDefaultButton(self.fix_button)
        self.setEscapeButton(self.cancel_button)
        _widen(self)


Ask = Callable[[PermissionQuestion], QAbstractButton | None]
"""Shows the question and returns the button the person clicked (None: the box was closed)."""


def ask_modally(question: PermissionQuestion) -> QAbstractButton | None:
    """The console's `Ask`: the box's own modal loop (the window is not shown yet; nothing else runs)."""
    question.exec()
    return question.clickedButton()


def open_fixing(config: Config, ask: Ask = ask_modally) -> Opened:
    """`open_home(config)`; a home others may read is first offered to be made private (asked through `ask`), then
    opened. Raises what `open_home` raises, and `TooOpen` itself when the person said 取消."""
    try:
        return open_home(config)
    except TooOpen as exc:
        if not exc.fixable:
            raise
        question = PermissionQuestion(exc)
        if ask(question) is not question.fix_button:
            raise
    for change in fix_permissions(config.home_path):
        log.info("made private, as the person asked: %s", change)
    return open_home(config)
