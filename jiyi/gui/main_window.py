"""The console's main window: a page list, the pages, and a status bar."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QListWidget, QMainWindow, QSplitter, QStackedWidget, QWidget

from jiyi import __version__
from jiyi.gui.background import Background
from jiyi.gui.changes import ChangeFeed
from jiyi.gui.pages.appkb_page import AppKbPage
from jiyi.service.memory import Memory


class MainWindow(QMainWindow):
    """Hosts the pages over one `Memory`; remembers its geometry in `settings`."""

    def __init__(self, memory: Memory, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.settings = settings
        self.background = Background()
        self.setWindowTitle(self.tr("记忆 Jiyi — {0}").format(memory.store.home))

        self.page_list = QListWidget()
        self.stack = QStackedWidget()
        self.appkb_page = AppKbPage(memory, self.background)
        self._add_page(self.tr("应用库 App-KB"), self.appkb_page)
        self.page_list.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.page_list.setCurrentRow(0)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.page_list)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([170, 1030])
        self.setCentralWidget(self.splitter)

        self.home_label = QLabel(self.tr("状态目录：{0}").format(memory.store.home))
        self.statusBar().addWidget(self.home_label, 1)
        self.statusBar().addPermanentWidget(QLabel(f"v{__version__} · schema {memory.store.schema_version}"))

        self.changes = ChangeFeed(memory, parent=self)
        self.changes.changed.connect(lambda _domains: self.appkb_page.reload())
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.appkb_page.search_edit.setFocus)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self, self.appkb_page.reload)

        self._restore_state()
        self.appkb_page.reload()

    def _add_page(self, title: str, page: QWidget) -> None:
        self.page_list.addItem(title)
        self.stack.addWidget(page)

    def _restore_state(self) -> None:
        geometry = self.settings.value("main/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 760)
        splitter = self.settings.value("main/splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue("main/geometry", self.saveGeometry())
        self.settings.setValue("main/splitter", self.splitter.saveState())
        self.settings.sync()
        self.background.shutdown()
        super().closeEvent(event)
