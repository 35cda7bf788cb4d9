"""The console's main window: a page list, the pages, and a status bar.

The pages run their work in the window's `Lanes`; a failure on any page is
also shown in the status bar. Closing the window cancels the pages' work (the
writes under way still finish; whoever made the lanes drains them).

A console whose home is still opening (its private service starting) shows the window at once, its pages
to come (`MainWindow(None, …, home=…)`); `open_memory` brings them. The pages' modules are imported only
then, or after the window's first paint (`first_painted`), whichever comes first.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPaintEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from gui.changes import ChangeFeed
from gui.codes import read_only_words
from gui.lanes import Lanes, Tasks, page_task
from gui.pages.page import KeepsState, Page, follow
from gui.read_only import Writes, WritesHeld
from gui.service_keeper import ServiceKeeper
from gui.words import field_html, semicolon_list
from service import __version__
from service.errors import JiyiError
from service.memory.api import MemoryApi
from service.remote.private import PrivateService

if TYPE_CHECKING:
    from gui.pages.all_pages import PageWidget
    from gui.settings_dialog import SettingsDialog

# The window's size until the person sizes it (`main/geometry` then keeps theirs); a window manager keeps it
# within a smaller screen.
DEFAULT_SIZE = QSize(1200, 760)


def load_pages() -> None:
    """Import every page's module and the remote memory (the window does, after its first paint, while its
    service starts: see the module's docstring)."""
    import gui.pages.all_pages  # noqa: F401
    import service.remote.memory  # noqa: F401  # the facade's bound calls: the store's rows, ~0.4 s of CPU


class MainWindow(QMainWindow):
    """Hosts the pages over one `Memory`, working in `lanes`; remembers its geometry in `settings`."""

    service_status_shown = Signal(object)  # attached: the service's `service.status`, as the status bar shows it
    first_painted = Signal()  # the window is on the screen (queued: emitted after its first paint ends)
    _painted_now = Signal()

    def __init__(
        self,
        memory: MemoryApi | None,
        settings: QSettings,
        lanes: Lanes,
        parent: QWidget | None = None,
        *,
        home: Path | None = None,
    ) -> None:
        """The window over `memory`; with `memory` None, the window of the console whose `home` is opening,
        its pages to come with `open_memory`."""
        super().__init__(parent)
        # Set by whoever opened the home (gui/opening.py): the console's own `jiyi serve`.
        self.private_service: PrivateService | None = None
        self._close_confirmed = False  # closing was asked for with work under way, and the person said close
        self.close_question: QMessageBox | None = None
        self.keeper: ServiceKeeper | None = None
        self.settings = settings
        self.lanes = lanes
        self.tasks = Tasks(self, lanes, self.show_failure)
        self.pages: tuple[PageWidget, ...] = ()  # none until the memory is open
        self.writes_held: WritesHeld | None = None
        self._painted = False
        self._painted_now.connect(self.first_painted, Qt.ConnectionType.QueuedConnection)
        # Qt adds the application's display name (记忆 Jiyi) after a window's title itself.
        self.setWindowTitle(str(memory.home if memory is not None else home))

        self.page_list = QListWidget()
        self.stack = QStackedWidget()
        self.starting_label = QLabel(self.tr("正在启动记忆服务…"))  # where the pages go, until they come
        self.starting_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.starting_label)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.page_list)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([170, 1030])
        self.setCentralWidget(self.splitter)

        self._build_status_bar()
        self._build_actions()
        self._restore_geometry()
        if memory is not None:
            self.open_memory(memory)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self._painted_now.emit()

    def open_memory(self, memory: MemoryApi) -> None:
        """Show the pages over `memory` (at once, or when the home of a console that was starting is open)."""
        from gui.pages.all_pages import (
            AppKbPage,
            BundlesPage,
            EpisodesPage,
            FactsPage,
            LearningPage,
            LessonsPage,
            OverviewPage,
            RecallPage,
            SkillsPage,
            TopicsPage,
            UpkeepPage,
        )
        from service.remote.memory import RemoteMemory  # as the pages: after the first paint

        self.memory = memory
        # Attached, when the service goes away for good, the console starts a private one in its place.
        if isinstance(memory, RemoteMemory):
            self.keeper = ServiceKeeper(memory.config)
        lanes = self.lanes
        self.overview_page = OverviewPage(memory, lanes)
        self.appkb_page = AppKbPage(memory, lanes)
        self.episodes_page = EpisodesPage(memory, lanes)
        self.recall_page = RecallPage(memory, lanes)
        self.lessons_page = LessonsPage(memory, lanes)
        self.bundles_page = BundlesPage(memory, lanes)
        self.skills_page = SkillsPage(memory, lanes)
        self.facts_page = FactsPage(memory, lanes)
        self.topics_page = TopicsPage(memory, lanes)
        self.learning_page = LearningPage(memory, lanes)
        self.upkeep_page = UpkeepPage(memory, lanes)
        # The pages in the order the list shows them; everything the window does with a page loops over this.
        self.pages = (
            self.overview_page,
            self.appkb_page,
            self.episodes_page,
            self.recall_page,
            self.lessons_page,
            self.bundles_page,
            self.skills_page,
            self.facts_page,
            self.topics_page,
            self.learning_page,
            self.upkeep_page,
        )
        self.stack.removeWidget(self.starting_label)
        self.starting_label.deleteLater()
        for page in self.pages:
            self.page_list.addItem(page.title())
            self.stack.addWidget(page)
        self.recall_page.run_requested.connect(self.open_run)
        self.lessons_page.run_requested.connect(self.open_run)
        self.page_list.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.page_list.setCurrentRow(0)

        self.home_label.setText(self.tr("状态目录：{0}").format(memory.home))
        self.version_label.setText(f"v{__version__} · schema {memory.schema_version}")
        self.service_label.setText("")  # said again by `update_service_status`, for the memory now open
        self._service_timer.start(5000)
        self.update_service_status()
        for action in (self.settings_action, self.about_action, self.find_action, self.refresh_action):
            action.setEnabled(True)
        self._follow_changes()
        self._restore_pages_state()
        self.read_only_label.setVisible(memory.read_only is not None)
        if memory.read_only is not None:
            self.read_only_label.setToolTip(read_only_words(memory.read_only))
        self.writes_held = self._hold_writes()
        for page in self.pages:
            page.reload()

    def _build_status_bar(self) -> None:
        """The home, the service's state, the version and schema; failures of the pages' work."""
        self.home_label = QLabel(self.tr("状态目录：{0}").format(self.windowTitle()))
        self.statusBar().addWidget(self.home_label, 1)
        # A read-only home says so where the mode is said, first: the reason in full in its tooltip.
        self.read_only_label = QLabel(self.tr("只读"))
        self.read_only_label.setStyleSheet("color: #9a6700; font-weight: bold;")
        self.read_only_label.setVisible(False)  # until the memory opens (`open_memory`)
        self.statusBar().addPermanentWidget(self.read_only_label)
        self.mode_label = QLabel()
        self.statusBar().addPermanentWidget(self.mode_label)
        self.service_label = QLabel(self.tr("正在启动记忆服务…"))
        self.statusBar().addPermanentWidget(self.service_label)
        self.version_label = QLabel(f"v{__version__}")
        self.statusBar().addPermanentWidget(self.version_label)
        self._service_timer = QTimer(self)
        self._service_timer.timeout.connect(self.update_service_status)
        self.lanes.failed.connect(self.show_failure)
        self.statusBar().messageChanged.connect(lambda shown: None if shown else self.statusBar().setToolTip(""))

    def _hold_writes(self) -> WritesHeld | None:
        """On a read-only home: every page's write controls disabled, the reason as their tooltip."""
        if self.memory.read_only is None:
            return None
        held = WritesHeld(read_only_words(self.memory.read_only), self)
        for page in self.pages:
            if isinstance(page, Writes):
                held.hold(page.write_controls())
        return held

    def _follow_changes(self) -> None:
        """Refresh the pages when the memory changes (an agent's write or the console's), and the shortcuts."""
        self.changes = ChangeFeed(self.memory, parent=self)
        for page in self.pages:
            follow(page, self.changes)  # each page reloads on the domains it shows

    def _build_actions(self) -> None:
        """The menu (settings, refresh, about, quit) and the shortcuts: Ctrl+F, F5, Ctrl+Q."""
        menu = self.menuBar().addMenu(self.tr("记忆"))
        self.settings_action = menu.addAction(self.tr("设置…"))
        self.settings_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Preferences))
        self.settings_action.triggered.connect(self.open_settings)
        self.find_action = menu.addAction(self.tr("筛选当前页"))
        self.find_action.setShortcut(QKeySequence("Ctrl+F"))
        self.find_action.triggered.connect(self.focus_filter)
        self.refresh_action = menu.addAction(self.tr("刷新当前页"))
        self.refresh_action.setShortcut(QKeySequence("F5"))
        self.refresh_action.triggered.connect(self.refresh_page)
        menu.addSeparator()
        self.about_action = menu.addAction(self.tr("关于记忆…"))
        self.about_action.triggered.connect(self.open_about)
        for action in (self.settings_action, self.about_action, self.find_action, self.refresh_action):
            action.setEnabled(False)  # until the pages come (`open_memory`)
        self.quit_action = menu.addAction(self.tr("退出"))
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.request_close)  # the last window closed ends the console

    def open_settings(self) -> SettingsDialog:
        """The settings dialog (returned so callers and tests can drive it)."""
        from gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.memory, self.settings, self)
        dialog.open()
        return dialog

    def open_run(self, run_id: str) -> None:
        """To the episode browser, showing one run (from a link on another page)."""
        self.page_list.setCurrentRow(self.stack.indexOf(self.episodes_page))
        self.episodes_page.follow_run(run_id)  # selected in the list, as a link on the page itself does

    def current_page(self) -> QWidget | None:
        return self.stack.currentWidget()

    def focus_filter(self) -> None:
        """Ctrl+F: into the current page's filter (a page without one: the App-KB's search box)."""
        if not self.pages:
            return
        page = self.current_page()
        target = page.filter_widget() if isinstance(page, Page) else None
        if target is None:
            self.page_list.setCurrentRow(self.stack.indexOf(self.appkb_page))
            target = self.appkb_page.search_edit
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if isinstance(target, QLineEdit):
            target.selectAll()

    def refresh_page(self) -> None:
        """F5: read the current page again from memory."""
        page = self.current_page()
        if isinstance(page, Page):
            page.reload()

    def open_about(self) -> QMessageBox:
        """The About box: version, home, schema version, and whether this console owns the home or is attached."""
        if self.private_service is not None:
            mode = self.tr("私有服务 {0}（这个控制台启动的进程 {1}）").format(
                self.memory.attached_to, self.private_service.pid
            )
        elif self.memory.attached_to is not None:
            mode = self.tr("已连接到服务 {0}").format(self.memory.attached_to)
        else:
            mode = self.tr("本地（这个控制台打开了状态目录）")
        text = "".join(
            field_html(label, value)
            for label, value in (
                (self.tr("版本"), __version__),
                (self.tr("状态目录"), str(self.memory.home)),
                (self.tr("数据库结构版本"), str(self.memory.schema_version)),
                (self.tr("模式"), mode),
            )
        )
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("关于记忆 Jiyi"), "", parent=self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText("<h3>" + html.escape(self.tr("记忆 Jiyi")) + "</h3>" + text)
        box.open()  # not exec(): the console's loop and its pages' work go on while it is shown
        return box

    def update_service_status(self) -> None:
        """Which mode (私有服务 / 已连接到服务 / 本地), the service's state, socket path, agents, requests a minute.

        Attached, the counts are the service's (`service.status`), asked in the read lane: the text
        changes when the answer comes.
        """
        from service.remote.memory import RemoteMemory  # imported by then: the memory is open

        attached = self.memory.attached_to
        private = self.private_service
        if attached is not None:
            self.mode_label.setText(self.tr("私有服务") if private is not None else self.tr("已连接到服务"))
            if private is not None and not private.running:
                self.service_label.setText(
                    self.tr("私有服务已退出（{0}）：{1}").format(private.process.returncode, private.last_words())
                )
            elif isinstance(self.memory, RemoteMemory) and not self.memory.connected:
                self.service_label.setText(self.tr("与服务 {0} 的连接已断开，正在重连…").format(attached))
                if self.keeper is not None and self.keeper.problem:
                    self.service_label.setText(
                        self.service_label.text() + " · " + self.tr("私有服务未能启动：{0}").format(self.keeper.problem)
                    )
            elif isinstance(self.memory, RemoteMemory):
                if not self.service_label.text():  # until the service's counts come (their tooltip names it too)
                    self.service_label.setToolTip(self.tr("服务进程 {0}").format(self.memory.service_pid))
                    self.service_label.setText(self.tr("{0} · 服务进程 {1}").format(attached, self.memory.service_pid))
                self._ask_service()
            else:
                self.service_label.setText(str(attached))
            self._keep_served()
            return
        # A window over a memory it was given (the pages' tests): no service of its own to show.
        self.mode_label.setText(self.tr("本地"))
        self.service_label.setText(self.tr("服务未启动"))

    def _keep_served(self) -> None:
        """Attached: start a private service when no service has answered for a while (gui/service_keeper.py)."""
        from service.remote.memory import RemoteMemory

        if self.keeper is None or not isinstance(self.memory, RemoteMemory):
            return
        served = self.memory.connected and (self.private_service is None or self.private_service.running)
        if self.keeper.due(served):
            self._take_over()

    @page_task
    async def _take_over(self) -> None:
        keeper = self.keeper
        assert keeper is not None
        keeper.starting = True
        try:
            started = await self.tasks.write(keeper.take_over)  # seconds; no write reaches a service meanwhile
        finally:
            keeper.starting = False
        if started is not None:
            self.private_service = started  # stopped when the console closes, as the first one would be
        self.update_service_status()

    def _show_service(self, path: Path, status: Mapping[str, Any]) -> None:
        """ "服务 PATH · 智能体 2 个，40 次/分钟 · 控制台连接 3 个", the same whether this console hosts the service
        or not; the tooltip has every kind's connections and requests.

        Agents and consoles are counted apart: a console polls the service and follows its changes, and
        counted with the agents an idle console alone read as 3 connections and 15–68 requests a minute."""
        by_kind, requests = status.get("by_kind") or {}, status.get("requests_by_kind")
        agents = int(by_kind.get("agent", 0)) + int(by_kind.get("worker", 0))
        if requests is None:  # a service older than protocol 1.7 counts every client's requests together
            rate = self.tr("全部客户端 {0} 次/分钟").format(status.get("requests_last_minute", 0))
        else:
            rate = self.tr("{0} 次/分钟").format(int(requests.get("agent", 0)) + int(requests.get("worker", 0)))
            self.service_label.setToolTip(self._service_tip(by_kind, requests))
        self.service_label.setText(
            self.tr("服务 {0} · 智能体 {1} 个，{2} · 控制台连接 {3} 个").format(
                path, agents, rate, int(by_kind.get("console", 0))
            )
        )

    def _service_tip(self, by_kind: Mapping[str, Any], requests: Mapping[str, Any]) -> str:
        """Each kind of client on a line: its connections and its requests of the last minute."""
        names = {
            "agent": self.tr("智能体"),
            "worker": self.tr("工作进程"),
            "console": self.tr("控制台"),
            "command": self.tr("命令"),
        }
        lines = [
            self.tr("{0}：{1} 个连接，最近一分钟 {2} 次请求").format(
                name, int(by_kind.get(kind, 0)), int(requests.get(kind, 0))
            )
            for kind, name in names.items()
        ]
        from service.remote.memory import RemoteMemory

        if isinstance(self.memory, RemoteMemory):
            lines.append(self.tr("服务进程 {0}").format(self.memory.service_pid))
        return "\n".join(lines)

    @page_task
    async def _ask_service(self) -> None:
        """Attached: the service's connections and requests (`service.status`), shown when they come."""
        from service.remote.memory import RemoteMemory

        memory = self.memory
        assert isinstance(memory, RemoteMemory)
        try:
            status = await self.tasks.refresh("service", memory.service_status)
        except JiyiError:
            # Gone meanwhile (the notice reader tells, next time), or a service older than `service.status`.
            self.service_label.setText(self.tr("{0} · 服务进程 {1}").format(memory.socket_path, memory.service_pid))
            return
        self._show_service(memory.socket_path, status)
        self.service_status_shown.emit(status)

    def show_failure(self, message: str) -> None:
        """A page's work failed: say so in the status bar (the page shows it too), cut with "…" where the status
        bar's own labels begin rather than running into them; the whole message in the status bar's tooltip."""
        text = self.tr("出错了：{0}").format(message)
        bar = self.statusBar()
        shown = [w for w in (self.read_only_label, self.mode_label, self.service_label) if w.isVisible()]
        room = min((w.x() for w in shown), default=bar.width()) - 2 * bar.fontMetrics().averageCharWidth()
        bar.showMessage(bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(room, 80)), 15_000)
        bar.setToolTip(text)

    def _restore_geometry(self) -> None:
        """The size and place the person left the window at; else `DEFAULT_SIZE`. Bytes
        `restoreGeometry` cannot read (emptied, damaged, hand-edited) count as none: the window would keep its
        size hint, about 360×230, and cut the navigation list."""
        geometry = self.settings.value("main/geometry")
        if not (isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)):
            self.resize(DEFAULT_SIZE)
        splitter = self.settings.value("main/splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def _restore_pages_state(self) -> None:
        for page in self.pages:
            if isinstance(page, KeepsState):
                page.restore_state(self.settings)

    def work_closing_stops(self) -> list[str]:
        """The work under way that closing the console would stop, in words.

        In its own home or with its private service, closing stops whatever runs there. Attached to a
        service that stays, it stops only a rebuild this console started (it cancels the job it follows);
        an import and a job someone else started run on in the service.
        """
        if not self.pages:
            return []  # the home is still opening: the private service starting stops with the console
        shared = self.memory.attached_to is not None and self.private_service is None
        work = [self.upkeep_page.work_under_way(others=not shared)]
        if not shared:
            work.append(self.appkb_page.work_under_way())
        return [w for w in work if w]

    def request_close(self) -> None:
        """Close, asking first when closing would stop work under way (Ctrl+Q, the window's close button)."""
        work = [] if self._close_confirmed else self.work_closing_stops()
        if not work:
            self._close_confirmed = True
            self.close()
            return
        if self.close_question is not None and self.close_question.isVisible():
            self.close_question.raise_()
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("关闭记忆 Jiyi？"),
            self.tr("还有工作在进行：{0}。关闭会停下它，已经完成的部分会保留。").format(semicolon_list(work)),
            parent=self,
        )
        close = box.addButton(self.tr("仍然关闭"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(self.tr("继续工作"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)

        def answered() -> None:
            if box.clickedButton() is close:
                self._close_confirmed = True
                self.close()

        box.finished.connect(answered)
        box.open()  # not exec(): the work it asks about goes on while it is shown
        self.close_question = box

    def closeEvent(self, event: QCloseEvent) -> None:
        # The window's close button asks first when work is under way; a signal or a program's close() does not.
        if event.spontaneous() and not self._close_confirmed and self.work_closing_stops():
            event.ignore()
            self.request_close()
            return
        self.settings.setValue("main/geometry", self.saveGeometry())
        self.settings.setValue("main/splitter", self.splitter.saveState())
        for page in self.pages:
            if isinstance(page, KeepsState):
                page.save_state(self.settings)
        self.settings.sync()
        self.lanes.cancel(under=self)
        super().closeEvent(event)
