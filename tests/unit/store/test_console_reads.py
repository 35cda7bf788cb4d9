"""The console's reads at 100k (docs/console-speed.md): the covering indexes schema 3 adds, on a new home and
on one migrated from schema 2, and the answers the pages get staying what they were without them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from store.core.database import Store
from store.core.migrations import CONSOLE_READ_INDEXES, SCHEMA_VERSION
from store.episodes import archive, recall_stats
from store.episodes.episode_filter import EpisodeFilter
from store.episodes.schema import EpisodeOutcome
from tests.conftest import open_store

DAY = 86400.0
GOALS = [
    "给妈妈发微信说露营装备",
    "在小红书搜索露营",
    "淘宝搜索帐篷灯",
    "在 Starbucks 点一杯 Latte",
    "Starbucks order latte macchiato for 老王",
    "在B站看周报",
    "b站搜索烧烤的视频",
    "营",
    "Order an AMERICANO",
    "电量 100% 时提醒",
    "打开 my_app 的设置",
    "路径 C:\\照片",
    "",
]
# CJK words and single characters, Latin words in any case, a character inside a word, and words no goal holds.
FILTERS = ["露营", "营", "帐篷灯", "latte", "LATTE", "Latte", "b站", "B站", "a", "星", "o", "不存在", "zzz", "Star"]
# What a filter box gets typed that LIKE would read as wildcards or its escape: matched as themselves.
FILTERS += ["%", "100%", "_", "y_a", "m_a", "\\", "C:\\", "%提醒", "\\%"]


def _fill(store: Store, runs: int = 240) -> None:
    """Episodes with those goals (several sharing one end time) and each run's scored recall, over 30 days."""
    rng = random.Random(11)
    start = 1_780_000_000.0
    records, traces = [], []
    for i in range(runs):
        ts_end = start + (i // 3) * (30 * DAY / runs)  # three runs per end time: the run id breaks the tie
        package = rng.choice(["com.a", "com.b", "com.c"])
        outcome = EpisodeOutcome.coerce(
            {
                "run_id": f"r{i:04d}",
                "ts_start": ts_end - 60,
                "ts_end": ts_end,
                "device_scope": "device:p1",
                "goal_text": rng.choice(GOALS),
                "apps": [package],
                "success": rng.random() < 0.7,
                "steps": rng.randint(1, 6),
            }
        )
        records.append(outcome.to_dict())
        recalled = [] if rng.random() < 0.2 else [rng.choice(["com.a", "com.b", "com.c"])]
        evaluation = recall_stats.evaluate(recalled, recalled, [package])
        traces.append({"run_id": f"r{i:04d}", "ts": ts_end, "mode": "shadow", "evaluation": evaluation})
    archive.record_many(store, records, actor="import")
    with store.atomic():
        store.append_many(recall_stats.DOMAIN, [("recall_evaluated", t) for t in traces], actor="system")


def _indexes(store: Store) -> dict[str, list[str]]:
    """The console's read indexes the database holds: name → columns."""
    tables = {table for table, _ in CONSOLE_READ_INDEXES.values()}
    found = {index.name: list(index.columns) for table in tables for index in store.db.get_indexes(table)}
    return {name: columns for name, columns in found.items() if name in CONSOLE_READ_INDEXES}


def _expected_indexes() -> dict[str, list[str]]:
    return {name: [c.strip() for c in columns.split(",")] for name, (_, columns) in CONSOLE_READ_INDEXES.items()}


def _reads(store: Store) -> dict[str, Any]:
    """Everything the episode browser and the recall page read, in full."""
    since, until = 1_780_000_000.0 + 5 * DAY, 1_780_000_000.0 + 20 * DAY
    out: dict[str, Any] = {
        "totals": recall_stats.statistics(store),
        "window": recall_stats.statistics(store, since, until),
        "daily": recall_stats.daily(store),
        "daily_window": recall_stats.daily(store, since, until),
        "packages": recall_stats.per_package(store),
        "packages_window": recall_stats.per_package(store, since, until),
        "first_page": archive.list_episodes(store, EpisodeFilter(), limit=201),
        "count": archive.count_episodes(store),
    }
    for word in FILTERS:
        f = EpisodeFilter(text=word)
        out[f"filter {word}"] = [r.run_id for r in archive.list_episodes(store, f, limit=1000)]
        out[f"count {word}"] = archive.count_episodes(store, f)
    return out


def _back_to_schema_2(store: Store) -> None:
    """Make `store` what a home of the previous release was: no read indexes, schema version 2."""
    for name in CONSOLE_READ_INDEXES:
        store.db.execute_sql(f"DROP INDEX IF EXISTS {name}")
    store.db.execute_sql("UPDATE schema_version SET version = 2")
    if store.db.backend != "postgresql":
        store.db.execute_sql("PRAGMA user_version = 2")


def test_a_new_home_has_the_read_indexes_at_the_current_schema(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION
    assert _indexes(store) == _expected_indexes()


def test_a_home_at_schema_2_migrates_in_place_and_reads_the_same(home: Path) -> None:
    store = open_store(home)
    _fill(store)
    _back_to_schema_2(store)
    assert store.schema_version == 2 and _indexes(store) == {}
    before = _reads(store)
    store.close()
    migrated = open_store(home)
    try:
        assert migrated.schema_version == SCHEMA_VERSION
        assert _indexes(migrated) == _expected_indexes()
        assert migrated.rebuilt_on_open == []  # the views were kept: only indexes were added
        assert _reads(migrated) == before
    finally:
        migrated.close()


def test_the_goal_filter_finds_what_a_substring_test_finds_newest_first(store: Store) -> None:
    _fill(store)
    rows = archive.list_episodes(store, EpisodeFilter(), limit=1000)
    assert len(rows) == 240
    for word in FILTERS:
        # LIKE's case folding: ASCII letters only (CJK has no case), on both back ends for these goals.
        expected = [r.run_id for r in rows if word.lower() in r.goal_text.lower()]
        f = EpisodeFilter(text=word)
        found = [r.run_id for r in archive.list_episodes(store, f, limit=1000)]
        assert found == expected, word
        assert archive.count_episodes(store, f) == len(expected), word
        pages = [archive.list_episodes(store, f, limit=7, offset=offset) for offset in range(0, 240, 7)]
        paged = [r.run_id for page in pages for r in page]
        assert paged == expected, word  # the browser's pages, one after another, neither repeat nor skip


def test_totals_from_the_daily_series_are_the_totals_even_with_a_time_no_day_holds(store: Store) -> None:
    _fill(store)
    evaluation = recall_stats.evaluate(["com.a"], ["com.a"], ["com.a"])
    since, until = 1_780_000_000.0 + 5 * DAY, 1_780_000_000.0 + 20 * DAY
    for start, end in ((None, None), (since, until)):
        days = recall_stats.daily(store, start, end)
        assert recall_stats.statistics(store, start, end, days=days) == recall_stats.statistics(store, start, end)
    # A clock gone wrong: a time in no local day (datetime cannot hold it), counted in the totals all the same.
    recall_stats.record_evaluation(store, {"run_id": "odd", "ts": 1e15, "evaluation": evaluation}, actor="system")
    days = recall_stats.daily(store)
    assert sum(d.evaluations for d in days) == 240
    assert (
        recall_stats.statistics(store, days=days)["evaluations"] == 241 == recall_stats.statistics(store)["evaluations"]
    )
