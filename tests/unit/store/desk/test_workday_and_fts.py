"""Workdays (03:30 Beijing) and the bigram full-text index."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from store.core.database import Store
from store.desk import fts
from store.desk.workday import days_between, previous_workday, workday_of


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 11, 29, 19, 29, 59, tzinfo=UTC), "2026-11-29"),  # 03:29:59 Beijing on the 30th
        (datetime(2026, 11, 29, 19, 29, 59, 999999, tzinfo=UTC), "2026-11-29"),  # the last instant before 03:30
        (datetime(2026, 11, 29, 19, 30, 0, tzinfo=UTC), "2026-11-30"),  # 03:30:00 Beijing
        (datetime(2026, 11, 30, 15, 59, tzinfo=UTC), "2026-11-30"),  # 23:59 Beijing
        (datetime(2026, 11, 30, 16, 1, tzinfo=UTC), "2026-11-30"),  # 00:01 Beijing the next day
        # The machine's zone does not matter: the same instant written in New York time.
        (datetime(2026, 11, 29, 14, 30, tzinfo=timezone(timedelta(hours=-5))), "2026-11-30"),
    ],
)
def test_workday_boundary_is_0330_beijing(moment: datetime, expected: str) -> None:
    assert workday_of(moment) == expected


def test_workday_arithmetic() -> None:
    assert previous_workday("2026-12-01") == "2026-11-30"
    assert days_between("2026-11-28", "2026-12-01") == 3


def test_tokens_are_cjk_bigrams_and_whole_words() -> None:
    assert fts.tokens("UFO 检查结果") == ["ufo", "检查", "查结", "结果"]
    assert fts.tokens("查") == ["查"]
    assert fts.tokens("Ｕｂｕｎｔｕ２４") == ["ubuntu24"]  # full width folded
    assert fts.query_terms("之前 UFO 检查怎么样了") == ["ufo", "检查", "查怎"]


def test_search_finds_a_rare_term_among_many_common_rows(store: Store) -> None:
    table = fts.FtsTable(store.db, "desk_interaction_fts")
    with store.db.atomic():
        for rowid in range(1, 3001):
            table.put(rowid, fts.index_text("今天 天气 怎么样 帮我 整理 会议"))
        table.put(3001, fts.index_text("UFO 检查 通过"))
    hits = table.search("之前 UFO 检查怎么样了", 5)
    assert hits[0].rowid == 3001
    # Only common terms: confined to an AND over recent rows, still answers.
    assert table.search("整理会议", 5)
    assert table.search("之前怎么样", 5) == []  # nothing but filler


def test_a_term_unknown_at_first_is_found_once_it_arrives(store: Store) -> None:
    table = fts.FtsTable(store.db, "desk_interaction_fts")
    with store.db.atomic():
        table.put(1, fts.index_text("天气 很好"))
    assert table.search("量子计算", 5) == []  # unknown now ...
    with store.db.atomic():
        table.put(2, fts.index_text("量子计算 的新闻"))
    assert [h.rowid for h in table.search("量子计算", 5)] == [2]  # ... and found at once afterwards
