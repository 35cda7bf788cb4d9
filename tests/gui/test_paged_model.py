"""The paged table model: listings keep their filters, stale pages are dropped, a failed fetch frees the model."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.paged_model import PagedTableModel


class Model(PagedTableModel[str]):
    COLUMNS = ("name",)


def test_a_fetch_that_fails_or_is_cancelled_does_not_stop_further_fetches(qtbot: QtBot, lanes: Lanes) -> None:
    model = Model()
    asked: list[int] = []
    fetches: list[asyncio.Future[None]] = []

    def fetcher(offset: int) -> asyncio.Future[None]:
        asked.append(offset)
        fetches.append(lanes.loop.create_future())
        return fetches[-1]

    model.fetcher = fetcher
    model.show(model.begin("all"), ["a", "b"], has_more=True)
    model.fetchMore()
    assert asked == [2] and not model.canFetchMore()  # one fetch at a time
    fetches[0].set_exception(OSError("database is locked"))
    qtbot.waitUntil(model.canFetchMore, timeout=2000)
    model.fetchMore()
    fetches[1].cancel()
    qtbot.waitUntil(model.canFetchMore, timeout=2000)
    model.fetchMore()
    assert model.extend(model.listing, ["c"], has_more=False)  # type: ignore[arg-type]
    fetches[2].set_result(None)
    qtbot.waitUntil(lambda: fetches[2].done(), timeout=2000)
    assert asked == [2, 2, 2] and model.rows == ["a", "b", "c"] and not model.canFetchMore()


def test_a_listing_keeps_its_query_and_older_listings_are_dropped() -> None:
    model = Model()
    first = model.begin({"text": "微"})
    second = model.begin({"text": "微信"})
    assert model.show(second, ["微信"], has_more=True) and model.listing is second
    assert not model.show(first, ["微信", "微博"], has_more=False)  # answered late: the newer one stays
    assert model.rows == ["微信"] and model.listing.query == {"text": "微信"}
    assert not model.extend(first, ["微博"], has_more=False)  # a page of a listing no longer shown
    third = model.begin({"text": "淘"})
    assert model.extend(second, ["微信读书"], has_more=False)  # the shown listing goes on until the next arrives
    assert model.show(third, ["淘宝"], has_more=False) and model.rows == ["淘宝"]


def test_a_listing_whose_filters_changed_since_is_dropped_but_a_repeated_one_is_shown() -> None:
    model = Model()
    typed = model.begin({"text": "微"})
    model.begin({"text": "微信"})  # the person typed on before the first answer came
    assert not model.show(typed, ["微信", "微博"], has_more=False) and model.rows == []
    again = model.begin({"text": "微信"})  # the memory changed: the same question once more
    asked = model.begin({"text": "微信"})
    assert model.show(again, ["微信"], has_more=False)  # an answer to what is still asked: shown
    assert model.show(asked, ["微信", "微信读书"], has_more=False) and model.listing is asked
