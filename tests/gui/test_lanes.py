"""The console's lanes on a real `Memory`: reads beside a held write, pages that close mid-fetch, failures shown."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes, Tasks, page_action
from gui.main_window import MainWindow
from gui.pages.appkb_page import PAGE_SIZE, AppKbPage
from gui.pages.episodes_page import EpisodesPage
from service.config import load_config
from service.errors import EnvironmentProblem
from service.memory.memory import Memory


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    """A home with a few runs and an App-KB, on the hash embedder (the model is not under test)."""
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")])
    runs = [
        {
            "run_id": f"r{i}",
            "goal_text": f"给妈妈发消息 {i}",
            "ts_end": time.time() - i,
            "success": True,
            "apps": ["com.tencent.mm"],
            "device_scope": "device:d1",
            "steps": 3,
        }
        for i in range(3)
    ]
    memory.runs.archive_episodes(runs)
    yield memory
    memory.close()


def held(gate: threading.Event, started: threading.Event, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, but it first says it started and then waits for `gate` (as a slow read or write would)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started.set()
        gate.wait(10)
        return fn(*args, **kwargs)

    return wrapper


def test_reads_go_on_while_a_rebuild_holds_the_write_lane(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    page = AppKbPage(hashed, lanes)
    qtbot.addWidget(page)
    gate, started = threading.Event(), threading.Event()

    def slow_progress(_done: int, _total: int) -> None:
        started.set()
        gate.wait(10)

    rebuild = page.tasks.start(page.tasks.write(hashed.recall.rebuild_vectors, progress=slow_progress))
    qtbot.waitUntil(started.is_set, timeout=10_000)
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.reload()  # a read, while the rebuild is under way in the write lane
    assert not rebuild.done() and sorted(r.term for r in page.model.rows) == ["微信", "淘宝"]
    gate.set()
    qtbot.waitUntil(rebuild.done, timeout=10_000)
    assert rebuild.result()["episodes"] == 3


def test_a_page_closed_while_its_fetch_is_in_flight_takes_no_result(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = AppKbPage(hashed, lanes)
    qtbot.addWidget(page)
    page.show()
    delivered: list[int] = []
    page.rows_loaded.connect(delivered.append)
    gate, started, read = threading.Event(), threading.Event(), threading.Event()
    real = hashed.appkb.list_aliases

    def listed(**kwargs: Any) -> Any:
        try:
            return held(gate, started, real)(**kwargs)
        finally:
            read.set()

    monkeypatch.setattr(hashed.appkb, "list_aliases", listed)
    fetch = page.reload()
    qtbot.waitUntil(started.is_set, timeout=5000)
    page.close()
    # A task's done callbacks (which take it off `pending`) run on the loop's next turn, not the moment it is done.
    qtbot.waitUntil(lambda: fetch.done() and page.tasks.pending == 0, timeout=5000)
    assert fetch.cancelled() and page.tasks.pending == 0
    gate.set()
    qtbot.waitUntil(read.is_set, timeout=5000)  # the store answered after the page had closed
    QApplication.processEvents()
    assert delivered == [] and page.model.rowCount() == 0
    page.show()  # opened again, the page loads as before
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.reload()
    assert page.model.rowCount() == 2


def test_a_page_destroyed_while_its_fetch_is_in_flight_is_left_alone(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = EpisodesPage(hashed, lanes)
    gate, started = threading.Event(), threading.Event()
    monkeypatch.setattr(hashed.runs, "list_episodes", held(gate, started, hashed.runs.list_episodes))
    fetch = page.reload()
    qtbot.waitUntil(started.is_set, timeout=5000)
    page.deleteLater()
    qtbot.waitUntil(fetch.done, timeout=5000)  # cancelled when the page went
    gate.set()
    assert fetch.cancelled()


def test_a_result_for_a_widget_gone_without_a_close_is_dropped(qtbot: QtBot, lanes: Lanes) -> None:
    owner = QWidget()
    shown: list[str] = []
    tasks = Tasks(owner, lanes, shown.append)
    gate, started = threading.Event(), threading.Event()

    async def load() -> None:
        shown.append(await tasks.read(held(gate, started, lambda: "rows")))

    work = tasks.start(load())
    qtbot.waitUntil(started.is_set, timeout=5000)
    owner.destroyed.disconnect()  # not told: the check on arrival must drop it on its own
    owner.deleteLater()
    qtbot.waitUntil(lambda: not _valid(owner), timeout=5000)
    gate.set()
    qtbot.waitUntil(work.done, timeout=5000)
    assert work.cancelled() and shown == []


def _valid(widget: QWidget) -> bool:
    import shiboken6

    return bool(shiboken6.isValid(widget))


def test_a_later_answer_shown_first_is_not_replaced_by_an_earlier_one(qtbot: QtBot, lanes: Lanes) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    tasks = Tasks(owner, lanes, lambda _m: None)
    shown: list[str] = []
    gate, started = threading.Event(), threading.Event()

    async def show(fetch: Callable[[], str]) -> None:
        shown.append(await tasks.refresh("list", fetch))

    first = tasks.start(show(held(gate, started, lambda: "first")))
    qtbot.waitUntil(started.is_set, timeout=5000)
    second = tasks.start(show(lambda: "second"))
    qtbot.waitUntil(second.done, timeout=5000)
    gate.set()
    qtbot.waitUntil(first.done, timeout=5000)
    assert shown == ["second"] and first.cancelled()


def test_an_answer_to_a_question_no_longer_asked_is_dropped_a_repeated_one_is_not(qtbot: QtBot, lanes: Lanes) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    tasks = Tasks(owner, lanes, lambda _m: None)
    shown: list[str] = []
    entered: list[threading.Event] = []  # one gate per read, in the order the reads began
    lock = threading.Lock()

    def search(text: str) -> str:
        gate = threading.Event()
        with lock:
            entered.append(gate)
        gate.wait(10)
        return text

    async def show(text: str) -> None:
        shown.append(await tasks.refresh("list", search, text))

    def ask(text: str) -> asyncio.Future[None]:
        count = len(entered) + 1
        asked = tasks.start(show(text))
        qtbot.waitUntil(lambda: len(entered) == count, timeout=5000)
        return asked

    old, new = ask("微"), ask("微信")
    entered[0].set()  # the answer for "微" arrives while "微信" is asked: nobody wants it any more
    qtbot.waitUntil(old.done, timeout=5000)
    entered[1].set()
    qtbot.waitUntil(new.done, timeout=5000)
    assert shown == ["微信"] and old.cancelled()
    # The same question again and again (the memory keeps changing): each answer is shown as it comes.
    first, second = ask("微信"), ask("微信")
    entered[2].set()
    qtbot.waitUntil(first.done, timeout=5000)
    assert shown == ["微信", "微信"]
    entered[3].set()
    qtbot.waitUntil(second.done, timeout=5000)
    assert shown == ["微信", "微信", "微信"]


def test_a_failed_read_reaches_the_page_and_the_window(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = MainWindow(hashed, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.episodes_page.model.rowCount() == 3, timeout=10_000)

    def full(*_a: object, **_k: object) -> None:
        raise EnvironmentProblem("database or disk is full")

    monkeypatch.setattr(hashed.runs, "list_episodes", full)
    with qtbot.waitSignal(window.episodes_page.failed, timeout=5000) as failed:
        window.episodes_page.reload()
    assert failed.args == ["database or disk is full"]
    assert "database or disk is full" in window.episodes_page.message.text()
    assert window.statusBar().currentMessage() == "出错了：database or disk is full"


def test_a_failed_revoke_is_shown_on_the_episodes_page(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = EpisodesPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.detail_shown, timeout=5000):
        page.show_run("r0")

    def refused(*_a: object, **_k: object) -> None:
        raise EnvironmentProblem("attempt to write a readonly database")

    monkeypatch.setattr(hashed.runs, "revoke_episode", refused)
    with qtbot.waitSignal(page.failed, timeout=5000):
        page.revoke_button.click()
    assert "readonly" in page.message.text() and hashed.runs.get_episode("r0")["revoked"] is False


def test_a_bug_is_shown_and_logged_with_its_traceback(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    page = AppKbPage(hashed, lanes)
    qtbot.addWidget(page)

    def broken(**_k: object) -> None:
        raise KeyError("kind")

    monkeypatch.setattr(hashed.appkb, "list_aliases", broken)
    caplog.errors_expected = True  # type: ignore[attr-defined]
    with qtbot.waitSignal(lanes.failed, timeout=5000) as failed:
        page.reload()
    assert failed.args == ["'kind'"] and "读取失败：'kind'" in page.count_label.text()
    bug = [r for r in caplog.records if r.name == "jiyi.gui" and r.levelno == logging.ERROR]
    assert len(bug) == 1 and bug[0].exc_info is not None and bug[0].exc_info[0] is KeyError


def test_a_failed_page_fetch_lets_the_table_load_more(
    qtbot: QtBot, memory: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.appkb.sync_inventory("d1", [(f"com.example.app{i:04d}", f"应用{i}") for i in range(PAGE_SIZE + 120)])
    page = AppKbPage(memory, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.reload()
    real, failures = memory.appkb.list_aliases, [EnvironmentProblem("database is locked")]

    def flaky(**kwargs: Any) -> Any:
        if kwargs.get("after") and failures:  # a further page (asked by key)
            raise failures.pop()
        return real(**kwargs)

    monkeypatch.setattr(memory.appkb, "list_aliases", flaky)
    with qtbot.waitSignal(page.load_failed, timeout=5000):
        page.model.fetchMore()
    qtbot.waitUntil(page.model.canFetchMore, timeout=5000)  # the failed fetch no longer blocks the next
    with qtbot.waitSignal(page.rows_loaded, timeout=5000):
        page.model.fetchMore()
    assert page.model.rowCount() == PAGE_SIZE + 120 and not page.model.canFetchMore()


def test_shutdown_finishes_the_writes_asked_for_drops_queued_reads_and_ends_its_threads(
    qtbot: QtBot, lanes: Lanes
) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    tasks = Tasks(owner, lanes, lambda _m: None)
    done: list[str] = []

    def step(name: str) -> None:
        done.append(name)

    # Each lane is busy until shutdown begins; behind them wait a write and a read.
    blockers: list[asyncio.Future[Any]] = [tasks.start(tasks.write(lanes.stopping.wait, 10))]
    blockers += [tasks.start(tasks.read(lanes.stopping.wait, 10)) for _ in range(2)]
    queued_write = tasks.start(tasks.write(step, "write"))
    queued_read = tasks.start(tasks.read(step, "read"))
    lanes.shutdown()
    assert done == ["write"]  # the write the person asked for is kept; the read nobody will see is not
    assert all(t.done() for t in [*blockers, queued_write, queued_read]) and tasks.pending == 0
    assert not [t for t in threading.enumerate() if t.name.startswith(("jiyi-read", "jiyi-write"))]
    later = tasks.start(_never(done))
    assert later.cancelled() and done == ["write"]  # nothing starts once the console is closing


async def _never(done: list[str]) -> None:
    done.append("started after shutdown")
    await asyncio.sleep(0)


class _Saver(QWidget):
    """A page whose save button's action is a `page_action` (it disables the button while it saves)."""

    def __init__(self, lanes: Lanes, gate: threading.Event) -> None:
        super().__init__()
        self.tasks = Tasks(self, lanes, lambda _m: None)
        self.gate, self.saved = gate, 0

    @page_action
    async def save(self) -> None:
        await self.tasks.write(self.gate.wait, 10)
        self.saved += 1


def test_a_control_action_started_again_while_it_runs_is_dropped(qtbot: QtBot, lanes: Lanes) -> None:
    """Tasks start on the loop's next turn, so a second click may come before the first step disabled the
    button: the second start of a `page_action` is dropped while the first runs, and the next one after runs."""
    gate = threading.Event()
    page = _Saver(lanes, gate)
    qtbot.addWidget(page)
    first, second = page.save(), page.save()  # a double click, both before the loop turns
    assert second.cancelled() and not first.done()
    gate.set()
    qtbot.waitUntil(first.done, timeout=5000)
    third = page.save()  # asked for right after the first returned: not dropped
    qtbot.waitUntil(third.done, timeout=5000)
    assert page.saved == 2 and not third.cancelled()
    unstarted = page.save()
    unstarted.cancel()  # cancelled before its first step: the action is free again
    qtbot.waitUntil(unstarted.done, timeout=5000)
    again = page.save()
    qtbot.waitUntil(again.done, timeout=5000)
    assert page.saved == 3
