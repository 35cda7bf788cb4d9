"""The one rule for out-of-order answers, shared by `Tasks.refresh` and `PagedTableModel`."""

from __future__ import annotations

from gui.freshness import Freshness


def test_an_answer_is_dropped_once_a_later_one_is_shown() -> None:
    fresh: Freshness[str] = Freshness()
    first, second = fresh.ask("q"), fresh.ask("q")
    assert fresh.is_current(second, "q")
    fresh.shown(second)
    assert not fresh.is_current(first, "q")


def test_an_answer_to_a_question_no_longer_asked_is_dropped_a_repeated_one_is_not() -> None:
    fresh: Freshness[str] = Freshness()
    old = fresh.ask("火锅")
    fresh.ask("咖啡")
    assert not fresh.is_current(old, "火锅")  # the filter changed since: nobody asks this any more
    again = Freshness[str]()
    early = again.ask("火锅")
    again.ask("火锅")  # the memory changed, the question did not
    assert again.is_current(early, "火锅")  # so a stream of changes cannot keep the view from updating
