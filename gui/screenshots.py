"""`jiyi screenshots`: render every console page offscreen to `<out>/<page>.png`.

Without --home, a demo home is made in a temporary folder first (hash
embedder, a few hundred runs), so the pictures always have data.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.config import Config


def take(config: Config, out: Path, *, fresh_home: bool, size: tuple[int, int] = (1400, 860)) -> list[Path]:
    """Render each page of the console on `config`'s home (or a fresh demo home) into `out`."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    from gui.main_window import MainWindow
    from service.demo.fill import make_demo
    from service.memory.memory import Memory

    app = QApplication.instance() or QApplication(sys.argv[:1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jiyi-shots-") as tmp:
        if fresh_home:
            values = dict(config.values)
            values["home"] = str(Path(tmp) / "home")
            config = Config(values, config.sources)
            make_demo(config, runs=600, embed_model="hash")
            values["embed_model"] = "hash"
            config = Config(values, config.sources)
        memory = Memory.open(config)
        try:
            window = MainWindow(memory, QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
            window.resize(*size)
            window.show()

            def wait(signal: Any, action: Callable[[], object]) -> None:
                loop = QEventLoop()
                signal.connect(lambda *_: loop.quit())
                QTimer.singleShot(15_000, loop.quit)
                action()
                loop.exec()

            saved = []
            shots: list[tuple[str, QWidget, list[tuple[Any, Callable[[], object]]]]] = [
                ("overview", window.overview_page, [(window.overview_page.loaded, window.overview_page.reload)]),
                (
                    "appkb",
                    window.appkb_page,
                    [
                        (window.appkb_page.rows_loaded, window.appkb_page.reload),
                        (window.appkb_page.editor.history_loaded, lambda: window.appkb_page.table.selectRow(0)),
                        (window.appkb_page.editor.resolved, lambda: _resolve(window, "威信")),
                    ],
                ),
                (
                    "episodes",
                    window.episodes_page,
                    [
                        (window.episodes_page.rows_loaded, window.episodes_page.reload),
                        (window.episodes_page.detail_shown, lambda: window.episodes_page.table.selectRow(0)),
                    ],
                ),
                (
                    "recall",
                    window.recall_page,
                    [
                        (window.recall_page.loaded, window.recall_page.reload),
                        (window.recall_page.day_shown, lambda: _last_day(window)),
                        (window.recall_page.probe.answered, lambda: _probe(window, "搜一下烧烤的做法")),
                    ],
                ),
                (
                    "bundles",
                    window.bundles_page,
                    [
                        (window.bundles_page.tree_loaded, window.bundles_page.reload),
                        (
                            window.bundles_page.document_opened,
                            lambda: window.bundles_page.open_document("schedule/ufo-daily", "preferences.md"),
                        ),
                    ],
                ),
                (
                    "skills",
                    window.skills_page,
                    [
                        (window.skills_page.loaded, lambda: window.skills_page.status_box.setCurrentIndex(0)),
                        (window.skills_page.loaded, lambda: _select_first(window.skills_page)),
                    ],
                ),
                (
                    "facts",
                    window.facts_page,
                    [
                        (window.facts_page.loaded, window.facts_page.reload),
                        (window.facts_page.loaded, lambda: _select_first(window.facts_page)),
                    ],
                ),
                (
                    "topics",
                    window.topics_page,
                    [
                        (window.topics_page.workdays_loaded, window.topics_page.reload),
                        (window.topics_page.topics_loaded, lambda: window.topics_page.day_table.selectRow(1)),
                        (window.topics_page.topic_loaded, lambda: window.topics_page.topic_table.selectRow(0)),
                    ],
                ),
                (
                    "maintenance",
                    window.maintenance_page,
                    [
                        (window.maintenance_page.reports_loaded, window.maintenance_page.reload),
                        (window.maintenance_page.preview_ready, window.maintenance_page.preview_dream),
                    ],
                ),
            ]
            for name, page, steps in shots:
                window.page_list.setCurrentRow(window.stack.indexOf(page))
                for signal, action in steps:
                    wait(signal, action)
                app.processEvents()
                path = out / f"{name}.png"
                window.grab().save(str(path))
                saved.append(path)
            window.close()
            window.background.shutdown()
            return saved
        finally:
            memory.close()


def _select_first(page: Any) -> None:
    """Select the first row; re-emit `loaded` so the caller's wait ends (selection loads nothing)."""
    page.table.selectRow(0)
    page.loaded.emit(page.model.rowCount())


def _resolve(window: object, name: str) -> None:
    editor = window.appkb_page.editor  # type: ignore[attr-defined]
    if editor.resolve_device.count() > 1:
        editor.resolve_device.setCurrentIndex(1)
    editor.resolve_edit.setText(name)
    editor.resolve()


def _probe(window: object, task: str) -> None:
    probe = window.recall_page.probe  # type: ignore[attr-defined]
    if not probe.device.currentText() and probe.device.count():
        probe.device.setCurrentIndex(0)
    probe.task.setText(task)
    probe.ask()


def _last_day(window: object) -> None:
    page = window.recall_page  # type: ignore[attr-defined]
    if page.days:
        page.show_day(page.days[-1]["day"])
    else:
        page.day_shown.emit("")
