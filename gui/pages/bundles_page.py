"""Bundle folders: a tree of bundles and their documents, Markdown shown rendered, an editor.

Saving names the revision the editor was loaded from; if someone (an agent
over the socket, another window) saved in between, the conflict dialog shows
both versions side by side and the user reloads or overwrites knowingly.
When the open document changes underneath an unmodified editor, it simply
reloads; a modified one is flagged stale. The mirror folder opens in the
file manager; new documents are created with revision 0.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, ClassVar, TypedDict

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gui.lanes import Lanes, Tasks, page_action, page_task
from gui.pages.bundle_conflict import ConflictDialog
from gui.words import with_note
from service.errors import Conflict
from service.memory.api import MemoryApi
from service.memory.domain import Domain
from service.wire.desk import Bundle

ROLE = Qt.ItemDataRole.UserRole


class OpenDocument(TypedDict):
    """The document open in the editor, at the revision it was read."""

    bundle_id: str
    path: str
    revision: int
    content: str


class BundlesPage(QWidget):
    """Browse, read and edit bundle documents with revision checks."""

    domains: ClassVar[frozenset[Domain]] = frozenset({Domain.DESK})

    def title(self) -> str:
        """The page's name in the window's list."""
        return QCoreApplication.translate("MainWindow", "资料夹")

    def filter_widget(self) -> QWidget | None:
        """What Ctrl+F focuses."""
        return None

    def write_controls(self) -> tuple[QWidget, ...]:
        """What asks for a write: held disabled on a read-only home (`gui/read_only.py`)."""
        return (
            self.save_button,
            self.new_button,
        )

    tree_loaded = Signal(int)
    document_opened = Signal(str, str, int)  # bundle_id, path, revision
    saved = Signal(str, int)  # path, revision
    conflict_raised = Signal(object)  # the conflict's details
    save_failed = Signal(str)

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._failed)
        self.current: OpenDocument | None = None
        self.conflict_dialog: ConflictDialog | None = None
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([self.tr("资料夹 / 文档"), self.tr("修订")])
        self.tree.setColumnWidth(0, 260)
        self.tree.currentItemChanged.connect(lambda item, _old: self._selected(item))
        self.preview = QTextBrowser()
        self.preview.setOpenLinks(False)
        self.editor = QPlainTextEdit()
        self.editor.modificationChanged.connect(self._modified)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.preview, self.tr("预览"))
        self.tabs.addTab(self.editor, self.tr("编辑"))
        self.info = QLabel(self.tr("选择左边的文档。"))
        self.info.setWordWrap(True)
        self._order: list[str] = []  # the bundles' order as first shown (see _fill_tree)
        self._folders: dict[str, str] = {}  # each listed bundle's mirror folder (read with the tree)
        self.save_button = QPushButton(self.tr("保存"))
        # A click leaves the focus in the editor: the button is disabled once saved, and Qt would pass the
        # focus on to 新建文档…, whose dialog the next keystroke would open.
        self.save_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.save_button.clicked.connect(lambda: self.save())
        self.new_button = QPushButton(self.tr("新建文档…"))
        self.new_button.clicked.connect(self.ask_new_document)
        self.folder_button = QPushButton(self.tr("打开文件夹"))
        self.folder_button.clicked.connect(self.open_folder)
        self.reload_button = QPushButton(self.tr("刷新"))
        self.reload_button.clicked.connect(lambda: self.reload())

        # "已保存" beside the buttons once a save is committed, until the document is edited again.
        self.saved_label = QLabel()
        buttons = QHBoxLayout()
        for button in (self.save_button, self.new_button, self.folder_button, self.reload_button):
            buttons.addWidget(button)
        buttons.addWidget(self.saved_label)
        buttons.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.info)
        right_layout.addWidget(self.tabs, 1)
        right_layout.addLayout(buttons)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(right)
        self.splitter.setSizes([330, 670])
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)
        self._update_buttons()

    # -- the tree --------------------------------------------------------------------------

    @page_task
    async def reload(self) -> None:
        bundles, self._folders = await self.tasks.refresh("tree", self._read_tree)
        self._fill_tree(bundles)

    def _read_tree(self) -> tuple[list[Bundle], dict[str, str]]:
        """In the read lane: the bundles, and the folder each is mirrored to (what "open folder" opens, known
        before it is clicked: the GUI thread never waits on the service)."""
        bundles = self.memory.bundles.list_bundles()
        return bundles, {b.bundle_id: self.memory.bundles.bundle_directory(b.bundle_id) for b in bundles}

    def _fill_tree(self, bundles: list[Bundle]) -> None:
        # The service lists the most recently changed bundle first; a bundle shown already keeps its place,
        # so the one just saved does not jump away from under the person (new ones come first).
        shown = {bundle_id: i for i, bundle_id in enumerate(self._order)}
        bundles = sorted(bundles, key=lambda b: (b.bundle_id in shown, shown.get(b.bundle_id, 0)))
        self._order = [b.bundle_id for b in bundles]
        keep = (self.current["bundle_id"], self.current["path"]) if self.current else None
        self.tree.blockSignals(True)
        self.tree.clear()
        chosen = None
        kinds = {"schedule": self.tr("日程"), "project": self.tr("项目")}
        titles = Counter(bundle.title or bundle.key for bundle in bundles)
        for bundle in bundles:
            title = bundle.title or bundle.key
            if titles[title] > 1:  # bundles that share a title are told apart by their key
                title = with_note(title, bundle.key)
            top = QTreeWidgetItem([f"{kinds.get(bundle.kind, bundle.kind)} · {title}"])
            top.setToolTip(0, bundle.bundle_id)
            top.setData(0, ROLE, (bundle.bundle_id, None))
            self.tree.addTopLevelItem(top)
            runs = None
            for doc in bundle.documents:
                parent = top
                label = doc.path
                if label.startswith("runs/"):
                    if runs is None:
                        runs = QTreeWidgetItem([self.tr("运行记录")])
                        runs.setData(0, ROLE, (bundle.bundle_id, None))
                        top.addChild(runs)
                    parent, label = runs, label.split("/")[1]
                item = QTreeWidgetItem([label, str(doc.revision)])
                item.setData(0, ROLE, (bundle.bundle_id, doc.path))
                parent.addChild(item)
                if keep == (bundle.bundle_id, doc.path):
                    chosen = item
                    self._note_revision(doc.revision)
            top.setExpanded(True)
        if chosen is not None:
            self.tree.setCurrentItem(chosen)
        self.tree.blockSignals(False)
        self._update_buttons()
        if not bundles:
            self.info.setText(
                self.tr(
                    "还没有资料夹。定时任务第一次完成时（task.complete 带 schedule_id）会建立它的资料夹，"
                    "之后每次运行的记录和你写的说明都放在里面。"
                )
            )
        elif self.current is None:
            self.info.setText(self.tr("选择左边的文档。"))
        self.tree_loaded.emit(len(bundles))

    def _note_revision(self, revision: int) -> None:
        """The open document is now at `revision` in the store: reload it, or flag the edit stale."""
        if self.current is None or revision == self.current["revision"]:
            return
        if self.editor.document().isModified():
            self.info.setText(
                self.tr("{0} 已被别人改到修订 {1}；你的编辑基于修订 {2}，保存时会提示冲突。").format(
                    self.current["path"], revision, self.current["revision"]
                )
            )
        else:
            self.open_document(self.current["bundle_id"], self.current["path"])

    def _selected(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        bundle_id, path = item.data(0, ROLE)
        if path is not None:
            self.open_document(bundle_id, path)
        else:
            self.current_bundle = bundle_id
            self._update_buttons()

    # -- one document ----------------------------------------------------------------------

    @page_task
    async def open_document(self, bundle_id: str, path: str) -> None:
        bundle = await self.tasks.refresh("document", self.memory.bundles.get_bundle, bundle_id, path)
        doc = bundle.documents[0]
        self._show(bundle_id, path, doc.revision, doc.content, doc.file)

    def _show(self, bundle_id: str, path: str, revision: int, content: str, file_state: str = "same") -> None:
        self.current = {"bundle_id": bundle_id, "path": path, "revision": revision, "content": content}
        self.current_bundle = bundle_id
        self.saved_label.clear()
        if path.endswith(".md"):
            self.preview.setMarkdown(content)
        else:
            self.preview.setPlainText(content)
        if self.editor.toPlainText() != content:  # after a save it is the same: the cursor and scroll stay
            self.editor.setPlainText(content)
        self.editor.document().setModified(False)
        states = {
            "same": "",
            "missing": self.tr("（镜像文件缺失）"),
            "edited_outside": self.tr("（镜像文件在 Jiyi 之外被改过；下次保存会把那份另存）"),
        }
        self.info.setText(
            self.tr("{0} / {1} · 修订 {2}").format(bundle_id, path, revision) + states.get(file_state, "")
        )
        self._update_buttons()
        self.document_opened.emit(bundle_id, path, revision)

    def _modified(self, modified: bool) -> None:
        if modified:
            self.saved_label.clear()  # edited since the save it spoke of
        self._update_buttons()

    def _said_saved(self, revision: int) -> None:
        when = time.strftime("%H:%M:%S")
        self.saved_label.setText(self.tr("已保存（修订 {0}，{1}）").format(revision, when))

    def _update_buttons(self) -> None:
        self.save_button.setEnabled(self.current is not None and self.editor.document().isModified())
        has_bundle = getattr(self, "current_bundle", None) is not None
        self.new_button.setEnabled(has_bundle)
        self.folder_button.setEnabled(has_bundle)

    def save(self) -> None:
        """Save the editor against the revision it was loaded from."""
        if self.current is None:
            return
        self._put(self.editor.toPlainText(), self.current["revision"])

    @page_action
    async def _put(self, text: str, expected: int) -> None:
        assert self.current is not None
        bundle_id, path = self.current["bundle_id"], self.current["path"]
        self.save_button.setEnabled(False)
        try:
            result = await self.tasks.write(
                self.memory.bundles.put_bundle_document, bundle_id, path, text, expected_revision=expected, actor="user"
            )
        except Conflict as exc:
            if not exc.details:
                raise
            self._conflict(exc.details, text)
            return
        self._show(bundle_id, path, result["revision"], result["content"])
        self._said_saved(result["revision"])
        if self.tabs.currentWidget() is self.editor:
            self.editor.setFocus(Qt.FocusReason.OtherFocusReason)  # typing goes on where it was
        if result.get("outside_edit_kept"):
            self.info.setText(
                self.info.text() + self.tr("；文件在外部被改过的版本已另存为 {0}").format(result["outside_edit_kept"])
            )
        self.saved.emit(path, result["revision"])

    def _conflict(self, details: dict[str, Any], edited: str) -> None:
        stored = details.get("content") or ""
        dialog = ConflictDialog(details["path"], stored, int(details["revision"]), edited, self)
        self.conflict_dialog = dialog

        def decided(_code: int) -> None:
            if dialog.choice == "reload":
                self._show(details["bundle_id"], details["path"], int(details["revision"]), stored)
            elif dialog.choice == "overwrite":
                self._put(edited, int(details["revision"]))
            else:
                self._update_buttons()

        dialog.finished.connect(decided)
        self.conflict_raised.emit(details)
        dialog.open()

    def _failed(self, message: str) -> None:
        self.info.setText(self.tr("失败：{0}").format(message))
        self._update_buttons()
        self.save_failed.emit(message)

    # -- folders and new documents -----------------------------------------------------------

    def open_folder(self) -> bool:
        """Show the selected bundle's mirror folder in the file manager."""
        bundle_id = getattr(self, "current_bundle", None)
        if bundle_id is None or bundle_id not in self._folders:
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(self._folders[bundle_id])))

    def ask_new_document(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("新建文档"), self.tr("文件名（如 notes.md）："))
        if ok and name.strip():
            self.new_document(name.strip())

    @page_task
    async def new_document(self, name: str) -> None:
        """Create `name` (".md" added when missing) in the selected bundle, then open it."""
        bundle_id = getattr(self, "current_bundle", None)
        if bundle_id is None:
            return
        path = name if name.endswith((".md", ".json")) else f"{name}.md"
        title = path.rsplit(".", 1)[0]
        result = await self.tasks.write(
            self.memory.bundles.put_bundle_document, bundle_id, path, f"# {title}\n", expected_revision=0, actor="user"
        )
        self.reload()
        self._show(bundle_id, path, result["revision"], result["content"])
        self._said_saved(result["revision"])
        self.tabs.setCurrentWidget(self.editor)
        self.saved.emit(path, result["revision"])

    def restore_state(self, settings: QSettings) -> None:
        state = settings.value("bundles/splitter")
        if state is not None:
            self.splitter.restoreState(state)

    def save_state(self, settings: QSettings) -> None:
        settings.setValue("bundles/splitter", self.splitter.saveState())
