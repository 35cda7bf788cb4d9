"""Each page declares the domains it shows and reloads itself on their changes; the window only lists pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from gui.pages.page import Page, shows_any
from service.memory.domain import EVERY_DOMAIN, Domain
from service.memory.memory import Memory
from service.ops import DECLARED
from store.projections import all_projections


@pytest.fixture
def window(qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path: Path) -> Iterator[MainWindow]:
    shown = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(shown)
    with qtbot.waitSignals([shown.recall_page.loaded, shown.overview_page.loaded], timeout=10_000):
        pass  # the first reads, which every page starts when the window opens
    yield shown
    shown.close()


def test_the_domains_are_the_logs_own() -> None:
    """A change names an event-log domain: each projection's domain is a `Domain`, and nothing else is."""
    assert {p.domain for p in all_projections()} == {d.value for d in Domain}


def test_every_page_is_listed_once_under_its_title_and_declares_its_domains(window: MainWindow) -> None:
    titles = [window.page_list.item(i).text() for i in range(window.page_list.count())]
    assert titles == [page.title() for page in window.pages]
    assert [window.stack.widget(i) for i in range(window.stack.count())] == list(window.pages)
    for page in window.pages:
        assert isinstance(page, Page)
        assert page.domains <= EVERY_DOMAIN, page


@pytest.mark.parametrize(
    ("domain", "shown_on"),
    [
        (Domain.RECALL, {"overview_page", "recall_page"}),
        (Domain.EXPERIENCE, {"overview_page", "appkb_page", "recall_page", "lessons_page", "upkeep_page"}),
        (
            Domain.DESK,
            {"overview_page", "bundles_page", "skills_page", "facts_page", "topics_page", "upkeep_page"},
        ),
        (Domain.LEARNING, {"overview_page", "learning_page"}),
        (Domain.APP_KB, {"overview_page", "appkb_page", "upkeep_page"}),
        (Domain.LESSONS, {"overview_page", "lessons_page"}),
    ],
)
def test_a_change_reaches_the_pages_that_show_its_domain(
    window: MainWindow, domain: Domain, shown_on: set[str]
) -> None:
    reached = {name for name in vars(window) if name.endswith("_page") and shows_any(getattr(window, name), {domain})}
    assert reached == shown_on


def test_the_recall_page_reloads_when_a_run_finishes(qtbot: QtBot, window: MainWindow, memory: Memory) -> None:
    """A finished run scores its recall: the recall page reads its statistics again (it once heard no change)."""
    with qtbot.waitSignal(window.recall_page.loaded, timeout=10_000):
        memory.runs.run_finish("r1", {"success": True, "goal_text": "打开微信"})


def test_a_desk_change_leaves_the_recall_page_as_it_is(qtbot: QtBot, window: MainWindow, memory: Memory) -> None:
    with (
        qtbot.assertNotEmitted(window.recall_page.loaded, wait=300),
        qtbot.waitSignal(window.facts_page.loaded, timeout=10_000),
    ):
        memory.desk.remember_interaction("i1", user_text="提醒我买牛奶")


def test_every_domain_a_write_may_change_is_shown_by_a_page(window: MainWindow) -> None:
    """What a write answers it changed (`changes`, its declaration's domains) is something a page reloads on."""
    written = set().union(*(op.changes for op in DECLARED.values() if op.kind == "write"))
    shown = set().union(*(page.domains for page in window.pages if page is not window.overview_page))
    assert written and written <= shown
