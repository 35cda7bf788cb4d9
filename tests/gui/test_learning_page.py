"""The 学习 page on a real `Memory` with a grant: status and meters, the queue with the candidate's
quotations highlighted in the raw source, the owner's review, revoke and edit of adopted records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.learning_page import LearningPage
from gui.pages.learning_views import MARK, highlight
from service.config import load_config
from service.memory.memory import Memory
from tests.gui.conftest import Attach
from tests.service.learning_setup import write_grant


@pytest.fixture
def learning(tmp_path: Path) -> Iterator[Memory]:
    home = tmp_path / "home"
    write_grant(home)
    with Memory.open(load_config(home=home, env={})) as memory:
        yield memory


def propose(memory: Memory, interaction_id: str, user: str, content: str) -> None:
    """An extractor's work: the source remembered, leased and answered with one candidate."""
    memory.desk.remember_interaction(interaction_id, user_text=user, assistant_text="已记下")
    lease = memory.learning.extract_lease(f"lease-{interaction_id}")
    result = {"operation": "add", "kind": "fact.profile", "content": content, "quotations": [user]}
    assert memory.learning.extract_submit(lease["operation_id"], f"submit-{interaction_id}", result)["accepted"]


def test_highlight_marks_every_quotation_and_escapes_the_rest() -> None:
    assert (
        highlight("我<爱>喝茶，也爱喝茶", ["喝茶", "<爱>"]) == f"我{MARK}&lt;爱&gt;喝茶</span>，也爱{MARK}喝茶</span>"
    )
    assert highlight("原文", []) == "原文"


def test_the_owner_reviews_in_the_console_and_the_record_is_adopted(
    attach: Attach, qtbot: QtBot, learning: Memory, lanes: Lanes
) -> None:
    propose(learning, "i1", "我每天六点起床", "用户每天六点起床")
    page = LearningPage(attach(learning), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.status_loaded, timeout=5000):
        page.reload()
    assert page.meters["extractions"].value() == 1 and page.meters["extractions"].maximum() == 200
    assert "授权 learn-" in page.grant_label.text() and "指纹" in page.fingerprint_label.text()
    page.owner_mode.setChecked(True)
    assert not page.queue.approve_button.isHidden()
    qtbot.waitUntil(lambda: [r.state for r in page.queue.model.rows] == ["candidate"], timeout=5000)
    with qtbot.waitSignal(page.queue.detail_loaded, timeout=5000):
        page.queue.table.selectRow(0)
    assert (
        "<mark>我每天六点起床</mark>"
        in page.queue.detail.toHtml().replace("<span", "<mark").replace("</span>", "</mark>")
        or "我每天六点起床" in page.queue.detail.toPlainText()
    )
    assert page.queue.detail_html(learning.learning.intent(page.queue.model.rows[0].intent_id)).count(MARK) == 1
    qtbot.mouseClick(page.queue.approve_button, Qt.MouseButton.LeftButton)
    assert "理由" in page.queue.message.text() and learning.learning.list_records() == []  # a verdict needs a reason
    page.queue.reason_edit.setText("是我说的")
    with qtbot.waitSignal(page.queue.status_changed, timeout=5000):
        qtbot.mouseClick(page.queue.approve_button, Qt.MouseButton.LeftButton)
    [record] = learning.learning.list_records()
    assert record.content == "用户每天六点起床" and record.provenance["reviewer"] == "owner"
    quotas = learning.learning.status().quotas
    assert quotas is not None and quotas["reviews"].used == 1
    page.tabs.setCurrentWidget(page.records)
    qtbot.waitUntil(lambda: page.records.model.rowCount() == 1, timeout=5000)
    page.records.table.selectRow(0)
    assert "我每天六点起床" in page.records.detail.toPlainText()  # the quotation, in the provenance
    page.records.edit_box.setText("用户每天早上六点起床")
    with qtbot.waitSignal(page.records.status_changed, timeout=5000):
        qtbot.mouseClick(page.records.save_button, Qt.MouseButton.LeftButton)
    [edited] = learning.learning.list_records()
    assert edited.content == "用户每天早上六点起床" and edited.managed is False
    qtbot.waitUntil(lambda: bool(page.records.model.rows) and page.records.model.rows[0].version == 2, timeout=5000)
    page.records.table.selectRow(0)
    with qtbot.waitSignal(page.records.status_changed, timeout=5000):
        qtbot.mouseClick(page.records.revoke_button, Qt.MouseButton.LeftButton)
    assert learning.learning.list_records()[0].state == "revoked"
    fact_id = learning.learning.list_records()[0].target.removeprefix("fact:")
    assert learning.facts.get_fact(fact_id).status == "inactive"


def test_a_rejection_and_the_failure_history(attach: Attach, qtbot: QtBot, tmp_path: Path, lanes: Lanes) -> None:
    home = tmp_path / "home"
    write_grant(home)
    with Memory.open(load_config(home=home, env={})) as before:
        propose(before, "i1", "我喜欢爵士乐", "用户喜欢爵士乐")
        before.desk.remember_interaction("i2", user_text="我住在成都", assistant_text="好")
        before.learning.extract_lease("lease-i2")  # closing cancels this lease; it is kept as a failure
    learning = Memory.open(load_config(home=home, env={}))
    page = LearningPage(attach(learning), lanes)
    qtbot.addWidget(page)
    page.owner_mode.setChecked(True)
    with qtbot.waitSignal(page.status_loaded, timeout=5000):
        page.reload()
    qtbot.waitUntil(lambda: page.queue.model.rowCount() == 1, timeout=5000)
    page.queue.table.selectRow(0)
    page.queue.reason_edit.setText("不是长期偏好")
    with qtbot.waitSignal(page.queue.status_changed, timeout=5000):
        qtbot.mouseClick(page.queue.reject_button, Qt.MouseButton.LeftButton)
    assert learning.learning.queue("rejected")[0].source_id == "i1"
    assert learning.learning.list_records() == []
    qtbot.waitUntil(lambda: page.failures.model.rowCount() == 1, timeout=5000)
    assert "cancelled" in page.failures.model.rows[0].reason
    page.close()
    lanes.shutdown()
    learning.close()


def test_without_a_grant_the_page_says_how_to_turn_learning_on(
    attach: Attach, qtbot: QtBot, memory: Memory, lanes: Lanes
) -> None:
    page = LearningPage(attach(memory), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.status_loaded, timeout=5000):
        page.reload()
    assert "jiyi learn grant --example" in page.grant_label.text()
    assert page.meters["reviews"].format() == "无授权"


def test_the_records_table_pages_by_key(
    attach: Attach, qtbot: QtBot, learning: Memory, lanes: Lanes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adopted records come a page at a time, each further page asked after the last row shown: one adopted
    meanwhile (newest, so it sorts first) repeats no row."""
    monkeypatch.setattr("gui.pages.record_page.PAGE_SIZE", 2)
    for n, (said, content) in enumerate(
        [("我喜欢绿茶", "用户喜欢绿茶"), ("我喜欢红茶", "用户喜欢红茶"), ("我喜欢白茶", "用户喜欢白茶")]
    ):
        propose(learning, f"i{n}", said, content)
        intent = learning.learning.queue("candidate")[0].intent_id
        assert learning.learning.owner_review(intent, "approved", "是我说的").intent_state == "adopted"
    adopted = [r.id for r in learning.learning.list_records()]
    page = LearningPage(attach(learning), lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.status_loaded, timeout=5000):
        page.reload()
    page.tabs.setCurrentWidget(page.records)
    qtbot.waitUntil(lambda: page.records.model.rowCount() == 2, timeout=5000)
    assert page.records.model.canFetchMore()
    propose(learning, "i9", "我喜欢乌龙茶", "用户喜欢乌龙茶")
    intent = learning.learning.queue("candidate")[0].intent_id
    learning.learning.owner_review(intent, "approved", "是我说的")
    with qtbot.waitSignal(page.records.loaded, timeout=5000):
        page.records.model.fetchMore()
    assert [r.id for r in page.records.model.rows] == adopted and not page.records.model.canFetchMore()
