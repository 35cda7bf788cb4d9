"""Dream passes: folding arithmetic, eviction thresholds, merging, reconcile, dry runs and idempotence."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.config import load_config
from service.errors import InvalidInput
from service.memory.memory import Memory
from service.wire.results import DreamReport
from store.appkb.entry import AppKbEntry
from store.episodes.folding import category_of
from tests.conftest import put_entries

DAY = 86400.0


def open_memory(tmp_path: Path, **env: str) -> Memory:
    return Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash", **env}))


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Memory]:
    memory = open_memory(tmp_path, JIYI_EPISODE_KEEP="3", JIYI_EPISODE_ARCHIVE_DAYS="90")
    now = time.time()
    rows = [
        ("old-1", "订一张去上海的机票", now - 200 * DAY, True),
        ("old-2", "订酒店", now - 150 * DAY, False),
        ("mid-1", "发消息给妈妈", now - 40 * DAY, True),
        ("new-1", "播放周杰伦的歌", now - 3 * DAY, True),
        ("new-2", "打开蓝牙", now - 2 * DAY, True),
        ("new-3", "查看今天的日历", now - 1 * DAY, False),
    ]
    memory.runs.archive_episodes(
        [
            {
                "run_id": r,
                "goal_text": g,
                "ts_start": t - 60,
                "ts_end": t,
                "success": s,
                "apps": ["com.a.b"],
                "device_scope": "device:d1",
                "steps": 3,
            }
            for r, g, t, s in rows
        ]
    )
    yield memory
    memory.close()


def step(report: DreamReport, name: str) -> dict[str, Any]:
    return next(s for s in report["steps"] if s["step"] == name)


def test_categories_follow_the_reference_order() -> None:
    assert category_of("订一张机票然后买点东西") == "travel"  # travel comes before commerce
    assert category_of("Play some MUSIC") == "media"
    assert category_of("随便看看") == "other"


def test_folding_keeps_the_newest_and_adds_to_aggregates(small: Memory) -> None:
    preview = small.dream.run(dry_run=True)
    assert step(preview, "fold")["count"] == 3 and small.runs.count_episodes() == 6  # a dry run changes nothing
    report = small.dream.run()
    fold = step(report, "fold")
    assert fold["run_ids"] == ["mid-1", "old-1", "old-2"]
    aggregates = fold["aggregates"]
    # The reference's shape: keyed by category, each an `episode_aggregate`.
    assert aggregates["travel"]["episodes"] == 2 and aggregates["travel"]["successes"] == 1
    assert aggregates["travel"]["success_rate"] == 0.5
    assert (aggregates["travel"]["type"], aggregates["travel"]["schema_v"]) == ("episode_aggregate", 1)
    assert aggregates["communication"]["episodes"] == 1
    assert sorted(e.run_id for e in small.runs.list_episodes()) == ["new-1", "new-2", "new-3"]
    assert step(report, "index_reconcile")["removed"] == 3  # folded episodes leave the index
    again = small.dream.run()
    assert all(s.get("count", 0) == 0 and s.get("removed", 0) == 0 and s.get("added", 0) == 0 for s in again["steps"])
    # a later fold adds to the earlier aggregate
    small.runs.archive_episodes(
        [
            {
                "run_id": "older",
                "goal_text": "订火车票",
                "ts_end": time.time() - 365 * DAY,
                "success": True,
                "device_scope": "device:d1",
                "steps": 1,
            }
        ]
    )
    later = step(small.dream.run(), "fold")["aggregates"]
    assert later["travel"]["episodes"] == 3 and later["travel"]["successes"] == 2


def test_eviction_needs_both_weak_confidence_and_staleness_or_age(small: Memory) -> None:
    old = "2025-01-01T00:00:00+00:00"
    now = "2026-11-29T00:00:00+00:00"
    entries = [
        AppKbEntry("弱旧", "弱旧", "com.weak.old", "alias", "global", 0.4, 0, old, old),  # evicted: weak and unseen
        AppKbEntry("弱新", "弱新", "com.weak.new", "alias", "global", 0.4, 0, now, now),  # kept: seen lately
        AppKbEntry("弱失效", "弱失效", "com.weak.stale", "alias", "global", 0.4, 0, now, now, stale=True),  # evicted
        AppKbEntry("强旧", "强旧", "com.strong.old", "learned", "global", 0.9, 0, old, old),  # kept: 0.9
    ]
    put_entries(small.store, *entries, actor="import")
    assert step(small.dream.run(dry_run=True), "evict")["count"] == 2
    small.dream.run()
    assert {e.term for e in small.appkb.list_aliases()} == {"弱新", "强旧"}


def test_duplicates_are_merged_and_the_light_pass_never_deletes(small: Memory) -> None:
    t1, t2 = "2026-01-01T00:00:00+00:00", "2026-06-01T00:00:00+00:00"
    put_entries(
        small.store,
        AppKbEntry("WeChat", "微信", "com.tencent.mm", "learned", "global", 0.9, 2, t1, t1),
        AppKbEntry("wechat", "微信", "com.tencent.mm", "learned", "global", 0.9, 3, t2, t2),
        actor="import",
    )
    report = small.dream.run(full=False)
    assert [s["step"] for s in report["steps"]] == ["alias_overwrites", "merge"]
    [merged] = small.appkb.list_aliases(kind="learned")
    assert (merged.term, merged.success_count, merged.first_seen, merged.last_seen) == ("WeChat", 5, t1, t2)
    assert small.runs.count_episodes() == 6  # the light pass folds nothing


def test_reports_are_kept_and_off_means_off(small: Memory, tmp_path: Path) -> None:
    small.dream.run()
    small.dream.run(dry_run=True)
    reports = small.dream.reports()
    assert len(reports) == 1 and reports[0].pass_ == "full" and reports[0].summary
    with open_memory(tmp_path / "other", JIYI_DREAM="off") as off, pytest.raises(InvalidInput, match="JIYI_DREAM=off"):
        off.dream.run()


def test_auto_dream_corrects_after_each_run(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        wrong, right = "com.ss.android.ugc.aweme.lite", "com.ss.android.ugc.aweme"
        memory.runs.run_start("r1", "d1")
        ok = {"run_id": "r1", "result_class": "ok", "tool": "launch_app"}
        memory.runs.run_event({**ok, "step": 1, "app_package": wrong}, launch_name="抖抖")
        memory.runs.run_event({"run_id": "r1", "step": 2, "tool": "back", "result_class": "ok", "note": "开错了"})
        memory.runs.run_event({**ok, "step": 3, "app_package": right})
        memory.runs.run_finish("r1", {"success": True})
        assert [e.package for e in memory.appkb.list_aliases(kind="learned") if e.term == "抖抖"] == [right]
        assert memory.dream.reports()[0].pass_ == "light"
