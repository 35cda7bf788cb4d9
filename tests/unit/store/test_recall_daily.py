"""Recall quality per local day, summed in SQL: the same days and counters as going through every row."""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections.abc import Iterator
from datetime import datetime

import pytest

from store.core.database import Store
from store.episodes import recall_stats
from store.episodes.local_days import local_days

DAY = 86400.0


@pytest.fixture(params=["UTC", "Asia/Shanghai", "America/New_York", "Asia/Kathmandu"])
def time_zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The process's local time zone for the test: none, +8, one whose offset changes on 2026-03-08, +5:45."""
    if sys.platform == "win32":
        pytest.skip("sets the time zone with time.tzset (Unix only)")
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


def test_daily_sums_each_local_day_as_python_would(store: Store, time_zone: str) -> None:
    rng = random.Random(3)
    start = datetime(2026, 3, 1).timestamp()  # local midnight: evaluations fall on both sides of day edges
    expected: dict[str, dict[str, int]] = {}
    for i in range(300):
        ts = start + rng.uniform(0, 20 * DAY) if i % 10 else start + (i // 10) * DAY - 1  # a second before midnight
        actual = [rng.choice(["a.b", "c.d", "e.f"])]
        recalled = [] if rng.random() < 0.2 else [rng.choice(["a.b", "c.d", "e.f"])]
        evaluation = recall_stats.evaluate(recalled, recalled, actual)
        recall_stats.record_evaluation(
            store, {"run_id": f"r{i}", "ts": ts, "mode": "shadow", "evaluation": evaluation}, actor="system"
        )
        day = datetime.fromtimestamp(ts).date().isoformat()
        c = expected.setdefault(day, dict.fromkeys(recall_stats.COUNTERS, 0))
        c["evaluations"] += 1
        c["recall_runs"] += int(bool(recalled))
        c["hits"] += int(evaluation["hit"])
        c["hit_at_1_count"] += int(evaluation["hit_at_1"])
        c["contaminated_runs"] += int(evaluation["contaminated_run"])
        c["package_true_positives"] += evaluation["package_true_positives"]
        c["package_predictions"] += evaluation["package_predictions"]
        c["package_actuals"] += evaluation["package_actuals"]
    days = recall_stats.daily(store)
    assert [d.day for d in days] == sorted(expected)
    for d in days:
        assert {k: getattr(d, k) for k in recall_stats.COUNTERS} == expected[d.day], d.day
        assert d.hit_at_1 == round(expected[d.day]["hit_at_1_count"] / expected[d.day]["evaluations"], 4)
    window = recall_stats.daily(store, since=start + 5 * DAY, until=start + 6 * DAY)
    assert [d.day for d in window] == [datetime.fromtimestamp(start + 5 * DAY).date().isoformat()]


def test_local_days_cover_every_second_once_across_a_clock_change(time_zone: str) -> None:
    start = datetime(2026, 3, 6).timestamp()
    days = local_days([int(start // 86400) + k for k in range(4)])
    for (_, _, end), (_, begin, _) in itertools.pairwise(days):
        assert end == begin  # contiguous: no second counted twice or lost
    for offset in range(0, 4 * 86400, 1800):
        ts = start + offset
        [(name, _, _)] = [d for d in days if d[1] <= ts < d[2]]
        assert name == datetime.fromtimestamp(ts).date().isoformat()


def test_local_days_keep_to_the_window_and_skip_impossible_times() -> None:
    since, until = datetime(2026, 5, 1, 12).timestamp(), datetime(2026, 5, 3, 6).timestamp()
    days = local_days([int(since // 86400), int(until // 86400), 10**15], since, until)
    assert days[0][1] == since and days[-1][2] == until
    assert [d[0] for d in days] == ["2026-05-01", "2026-05-02", "2026-05-03"]
