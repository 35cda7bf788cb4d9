"""The settings dialog: recall mode and embedder (the home's config.toml), palette (this console).

Home settings take effect the next time the home is opened; the palette at once.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from gui.codes import read_only_words
from gui.i18n import LANGUAGES
from gui.theme import THEMES, apply_theme
from recall.embedders import CHOICES
from service.config import save_settings
from service.errors import JiyiError
from service.memory.api import MemoryApi


class SettingsDialog(QDialog):
    """Change what a person may change from the console."""

    saved = Signal(object)

    def __init__(self, memory: MemoryApi, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory, self.settings = memory, settings
        self.setWindowTitle(self.tr("设置"))
        self.home_label = QLabel(str(memory.home))
        self.home_label.setToolTip(self.tr("换一个状态目录：jiyi --home DIR 或 JIYI_HOME"))
        self.rag_combo = QComboBox()
        for value, label in (
            ("shadow", self.tr("影子（只记录，不给智能体）")),
            ("on", self.tr("开启（给智能体已批准的经验）")),
            ("off", self.tr("关闭")),
        ):
            self.rag_combo.addItem(label, value)
        self.rag_combo.setCurrentIndex(self.rag_combo.findData(memory.config.memory_rag))
        self.embed_combo = QComboBox()
        for choice in CHOICES.values():
            label = self.tr("{0}（仅供测试）").format(choice.label) if choice.tests_only else choice.label
            self.embed_combo.addItem(label, choice.id)
        self.embed_combo.setCurrentIndex(self.embed_combo.findData(memory.config.embed_model))
        self.theme_combo = QComboBox()
        for value, label in zip(THEMES, (self.tr("跟随系统"), self.tr("浅色"), self.tr("深色")), strict=True):
            self.theme_combo.addItem(label, value)
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(settings.value("ui/theme", "system"))))
        self.language_combo = QComboBox()
        for value, label in LANGUAGES.items():
            self.language_combo.addItem(label, value)
        self.language_combo.setCurrentIndex(max(0, self.language_combo.findData(settings.value("ui/language", "zh"))))
        self.note = QLabel(
            self.tr("回想模式和嵌入模型写入状态目录的 config.toml，下次打开时生效；换嵌入模型后请重建向量索引。")
        )
        self.note.setWordWrap(True)
        if memory.read_only is not None:  # config.toml lives in the home: nothing can be saved there
            why = read_only_words(memory.read_only)
            for combo in (self.rag_combo, self.embed_combo):
                combo.setEnabled(False)
                combo.setToolTip(why)
            self.note.setText(self.tr("回想模式和嵌入模型写在状态目录的 config.toml 里：{0}").format(why))
        form = QFormLayout()
        form.addRow(self.tr("状态目录"), self.home_label)
        form.addRow(self.tr("回想模式"), self.rag_combo)
        form.addRow(self.tr("嵌入模型"), self.embed_combo)
        form.addRow(self.tr("配色"), self.theme_combo)
        form.addRow(self.tr("语言"), self.language_combo)
        form.addRow(QLabel(self.tr("语言在下次打开时生效。")))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(buttons)

    def save(self) -> None:
        changes = {}
        if self.rag_combo.currentData() != self.memory.config.memory_rag:
            changes["memory_rag"] = self.rag_combo.currentData()
        if self.embed_combo.currentData() != self.memory.config.embed_model:
            changes["embed_model"] = self.embed_combo.currentData()
        try:
            if changes:
                save_settings(self.memory.home, changes)
        except JiyiError as exc:
            self.note.setText(str(exc))
            return
        self.settings.setValue("ui/language", str(self.language_combo.currentData()))
        theme = str(self.theme_combo.currentData())
        self.settings.setValue("ui/theme", theme)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
        self.saved.emit(changes)
        self.accept()
