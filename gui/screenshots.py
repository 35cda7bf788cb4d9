"""`jiyi screenshots`: render every console page offscreen to `<out>/<page>.png`.

Without --home, a demo home is made in a temporary folder first (hash
embedder, a few hundred runs), so the pictures always have data.

With --attach the console is a client of a running `jiyi serve`, as on a
desktop where the service is installed (the README's pictures): the one that
serves the home, or else one started here on a socket in the temporary folder
and stopped (SIGTERM) when the pictures are taken. The status bar then shows
the attached mode, the socket and the service's process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from service.config import Config, load_config
from service.memory.api import MemoryApi

SERVE_START_S = 60.0  # a demo home's service opens in a few seconds; a stuck one is an error, not a hang


def demo_config(config: Config, home: Path, *, runs: int) -> Config:
    """Fill a demo home at `home` and return the settings to open it with: `config`'s, on that home,
    with the demo's hash embedder and its learning grant (without the grant the 学习 page would say
    learning is off beside the demo's queue)."""
    from service.demo.fill import make_demo

    values = dict(config.values)
    values["home"] = str(home)
    make_demo(Config(values, config.sources), runs=runs, embed_model="hash")
    values["embed_model"] = "hash"
    return Config(values, config.sources, load_config(home=home).learning)


def take(
    config: Config, out: Path, *, fresh_home: bool, attach: bool = False, size: tuple[int, int] = (1400, 860)
) -> list[Path]:
    """Render each page of the console on `config`'s home (or a fresh demo home) into `out`; with `attach`,
    the console is attached to a running `jiyi serve` (started for the pictures when none serves the home)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gui.fonts import add_shipped_fonts
    from service.memory.memory import Memory

    app = QApplication.instance() or QApplication(sys.argv[:1])
    add_shipped_fonts()  # a frozen build's CJK font: the pictures are of Chinese pages
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jiyi-shots-") as tmp:
        if fresh_home:
            config = demo_config(config, Path(tmp) / "home", runs=600)
        with contextlib.ExitStack() as stack:
            memory: MemoryApi
            if attach:
                memory = stack.enter_context(_attached(config, Path(tmp), demo=fresh_home))
                if fresh_home:
                    stack.enter_context(_an_agent(memory))
            else:
                memory = Memory.open(config)
                stack.callback(memory.close)
            return _take(app, memory, out, Path(tmp), size)


def _take(app: Any, memory: MemoryApi, out: Path, tmp: Path, size: tuple[int, int]) -> list[Path]:
    """The window on `memory`, each page brought to a telling state and grabbed."""
    import qasync
    from PySide6.QtCore import QSettings

    from gui.lanes import Lanes
    from gui.main_thread_gc import MainThreadCollector
    from gui.main_window import MainWindow

    loop = qasync.QEventLoop(app)
    lanes = Lanes(loop)
    collector = MainThreadCollector()  # as the console does: no Qt destructor in a lane's thread
    collector.start()
    problems: list[str] = []  # a picture of a console that failed is no picture: fail loudly
    loop.set_exception_handler(lambda _loop, context: problems.append(str(context.get("message"))))
    lanes.failed.connect(problems.append)
    try:
        window = MainWindow(memory, QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat), lanes)
        window.resize(*size)
        window.show()
        saved: list[Path] = loop.run_until_complete(_shoot(window, out))
        window.close()
        if problems:
            raise RuntimeError("the console failed while the pictures were taken: " + "; ".join(problems))
        return saved
    finally:
        lanes.shutdown()
        collector.stop()
        loop.close()


@contextlib.contextmanager
def _an_agent(memory: MemoryApi) -> Iterator[None]:
    """An agent connected to the demo's service while the pictures are taken, as on a desktop in use: the
    status bar counts it."""
    from service.client import JiyiClient

    assert memory.attached_to is not None
    with JiyiClient(memory.attached_to, timeout=10) as agent:
        agent.request("health")  # connected, and said so; it stays open until the pictures are taken
        yield


@contextlib.contextmanager
def _attached(config: Config, tmp: Path, *, demo: bool) -> Iterator[MemoryApi]:
    """The home's memory through the service that serves it: a running one, else a private `jiyi serve`
    started here on a socket in `tmp` (as the console starts one) and stopped afterwards."""
    from service.remote.attach import find_service
    from service.remote.memory import RemoteMemory
    from service.remote.private import PrivateService

    found = find_service(config)
    private: PrivateService | None = None
    if found is None:
        values, sources = dict(config.values), dict(config.sources)
        values["socket"] = str(tmp / "jiyi.sock")
        if demo:  # the demo home's vectors were made by the hash embedder
            values["embed_model"], sources["embed_model"] = "hash", "flag"
        config = Config(values, sources)
        private, health = PrivateService.start(config, timeout_s=SERVE_START_S)
        found = (private.socket_path, health)
    memory = RemoteMemory(config, *found)
    try:
        yield memory
    finally:
        memory.close()
        if private is not None:
            private.stop(grace_s=30)


async def _shoot(window: Any, out: Path) -> list[Path]:
    """Bring each page to a telling state, step by step (each step waits for the signal it causes), and grab it."""
    saved = []
    for name, page, steps in _shots(window):
        window.page_list.setCurrentRow(window.stack.indexOf(page))
        for signal, action in steps:
            await _after(signal, action)
        # Let Qt lay out and paint what the steps filled in. Not processEvents(): it would run
        # other tasks' steps inside this one's.
        await asyncio.sleep(0.2)
        path = out / f"{name}.png"
        window.grab().save(str(path))
        saved.append(path)
    return saved


async def _after(signal: Any, action: Callable[[], object], timeout_s: float = 15.0) -> None:
    """Do `action` and wait until `signal` fires (or `timeout_s` passes: the picture is taken as it is)."""
    fired = asyncio.get_running_loop().create_future()

    def note(*_args: object) -> None:
        if not fired.done():
            fired.set_result(None)

    signal.connect(note)
    try:
        if action() is False:  # nothing to do on this home: no signal will come
            return
        await asyncio.wait_for(fired, timeout_s)
    except TimeoutError:
        pass
    finally:
        signal.disconnect(note)


def _shots(window: Any) -> list[tuple[str, Any, list[tuple[Any, Callable[[], object]]]]]:
    """Each page, and the steps that fill it: (the signal to wait for, the action that causes it).

    A table rather than logic, one entry per page: long because the console has many pages.
    """
    return [
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
            "lessons",
            window.lessons_page,
            [
                (window.lessons_page.loaded, lambda: window.lessons_page.status_box.setCurrentIndex(0)),
                (window.lessons_page.runs_shown, lambda: window.lessons_page.table.selectRow(0)),
            ],
        ),
        (
            "bundles",
            window.bundles_page,
            [
                (window.bundles_page.tree_loaded, window.bundles_page.reload),
                (
                    window.bundles_page.document_opened,
                    lambda: _open_a_document(window),
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
            "learning",
            window.learning_page,
            [
                (window.learning_page.status_loaded, window.learning_page.reload),
                (window.learning_page.queue.loaded, lambda: window.learning_page.owner_mode.setChecked(True)),
                (window.learning_page.queue.detail_loaded, lambda: window.learning_page.queue.table.selectRow(0)),
            ],
        ),
        (
            "upkeep",
            window.upkeep_page,
            [
                (window.upkeep_page.reports_loaded, window.upkeep_page.reload),
                (window.upkeep_page.preview_ready, window.upkeep_page.preview_dream),
            ],
        ),
    ]


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


def _open_a_document(window: Any) -> bool:
    """Open the demo's schedule preferences when the home has them, else the first document there is;
    False when the home has no bundle document at all (any home may be pictured)."""
    from PySide6.QtWidgets import QTreeWidgetItemIterator

    from gui.pages.bundles_page import ROLE

    page = window.bundles_page
    documents = []
    items = QTreeWidgetItemIterator(page.tree)
    while items.value():
        bundle_id, path = items.value().data(0, ROLE)
        if path is not None:
            documents.append((bundle_id, path))
        items += 1
    if not documents:
        return False
    wanted = ("schedule/ufo-daily", "preferences.md")
    page.open_document(*(wanted if wanted in documents else documents[0]))
    return True


def _last_day(window: object) -> None:
    page = window.recall_page  # type: ignore[attr-defined]
    if page.days:
        page.show_day(page.days[-1].day)
    else:
        page.day_shown.emit("")
