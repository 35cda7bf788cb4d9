"""Folding old episodes into per-category aggregates (docs/cli.md, Dream).

Keep the newest `keep` episodes by (ts_end, run_id); fold the rest, and any
older than `archive_days`. A folded episode's category is the first keyword
list its casefolded goal matches, in the order travel, commerce,
communication, media, finance, system, productivity, else `other`; its
counts add to any earlier aggregate of that category. One `episode_archived`
record removes the folded runs from the view and sets every aggregate, in the
reference's shape: aggregates keyed by category, each an `episode_aggregate`
(`type`, `schema_v`, `task_category`, counts, unrounded `success_rate`, times).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypedDict

from store.core.database import Store
from store.core.models import tuples
from store.episodes.archive import DOMAIN, aggregates
from store.episodes.models import Episode

CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "travel",
        (
            "机票",
            "火车",
            "高铁",
            "酒店",
            "航班",
            "旅行",
            "出行",
            "打车",
            "导航",
            "地铁",
            "flight",
            "hotel",
            "trip",
            "taxi",
            "navigate",
        ),
    ),
    ("commerce", ("购买", "买", "下单", "购物车", "外卖", "商品", "店铺", "优惠", "buy", "order", "cart", "shop")),
    (
        "communication",
        ("消息", "聊天", "发送", "朋友圈", "短信", "电话", "邮件", "评论", "message", "chat", "send", "call", "email"),
    ),
    ("media", ("视频", "音乐", "歌", "直播", "电影", "小说", "播放", "video", "music", "song", "movie", "play")),
    ("finance", ("支付", "转账", "余额", "账单", "汇率", "银行", "股票", "理财", "pay", "transfer", "bank", "stock")),
    ("system", ("设置", "蓝牙", "wifi", "亮度", "闹钟", "音量", "通知", "settings", "bluetooth", "alarm", "volume")),
    (
        "productivity",
        ("文档", "日历", "笔记", "备忘", "日程", "表格", "会议", "document", "calendar", "note", "meeting"),
    ),
)


def category_of(goal: str) -> str:
    folded = goal.casefold()
    for name, words in CATEGORIES:
        if any(word in folded for word in words):
            return name
    return "other"


class AggregateRecord(TypedDict):
    """The reference's `episode_aggregate`: the folded episodes of one task category, in its field order."""

    type: str  # "episode_aggregate"
    schema_v: int
    task_category: str
    episodes: int
    successes: int
    success_rate: float
    ts_start: float
    ts_end: float


class FoldPlan(TypedDict):
    """The `episode_archived` record a fold appends (without `device_scopes`, which only its preview uses)."""

    type: str  # "episode_archived"
    schema_v: int
    ts: float
    run_ids: list[str]
    aggregates: dict[str, AggregateRecord]  # by category
    device_scopes: dict[str, str]  # each folded run's device


class FoldedRun(TypedDict):
    """What a person needs to recognise a run a fold takes."""

    run_id: str
    goal_text: str
    ts_end: float
    device_scope: str
    success: bool


def plan_folding(store: Store, *, keep: int, archive_days: int, now: float) -> FoldPlan | None:
    """The `episode_archived` record a fold would append now (None when nothing is due)."""
    cutoff = now - archive_days * 86400
    newest = Episode.select(Episode.run_id).order_by(Episode.ts_end.desc(), Episode.run_id.desc()).limit(keep)
    keep_ids = {str(row[0]) for row in tuples(newest)}
    due = [row for row in Episode.select() if row.run_id not in keep_ids or row.ts_end < cutoff]
    if not due:
        return None
    merged = {key.removeprefix("aggregate:"): aggregate_record(key, value) for key, value in aggregates(store).items()}
    for row in due:
        record = json.loads(row.record)
        name = category_of(str(record.get("goal_text", "")))
        agg = merged.setdefault(name, aggregate_record(name, {"ts_start": row.ts_start, "ts_end": row.ts_end}))
        agg["episodes"] += 1
        agg["successes"] += int(bool(row.success))
        agg["ts_start"] = min(agg["ts_start"], float(row.ts_start))
        agg["ts_end"] = max(agg["ts_end"], float(row.ts_end))
        agg["success_rate"] = agg["successes"] / agg["episodes"]
    return {
        "type": "episode_archived",
        "schema_v": 1,
        "ts": now,
        "run_ids": sorted(row.run_id for row in due),
        "aggregates": dict(sorted(merged.items())),
        "device_scopes": {row.run_id: row.device_scope for row in due},
    }


def aggregate_record(key: str, value: Mapping[str, object]) -> AggregateRecord:
    """The reference's `episode_aggregate` for category `key` (a leading `aggregate:` is dropped), in its
    field order, from `value`'s counts and times."""
    category = key.removeprefix("aggregate:")
    episodes = _count(value.get("episodes"))
    successes = min(episodes, _count(value.get("successes")))
    return {
        "type": "episode_aggregate",
        "schema_v": 1,
        "task_category": category,
        "episodes": episodes,
        "successes": successes,
        "success_rate": successes / episodes if episodes else 0.0,
        "ts_start": _time(value.get("ts_start")),
        "ts_end": _time(value.get("ts_end")),
    }


def _count(value: object) -> int:
    return max(0, value) if isinstance(value, int) and not isinstance(value, bool) else 0


def _time(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def fold(store: Store, record: Mapping[str, object], *, actor: str) -> int:
    """Append a planned fold (`plan_folding`'s record without `device_scopes`); returns its seq."""
    with store.atomic():
        return store.append(DOMAIN, "episode_archived", dict(record), actor=actor).seq


def describe_runs(store: Store, run_ids: list[str]) -> list[FoldedRun]:
    """What a person needs to recognise each of `run_ids`: goal, end time, device, outcome (newest first)."""
    rows = []
    for start in range(0, len(run_ids), 500):
        chunk = run_ids[start : start + 500]
        rows += tuples(
            Episode.select(
                Episode.run_id, Episode.goal_text, Episode.ts_end, Episode.device_scope, Episode.success
            ).where(Episode.run_id.in_(chunk))
        )
    found: list[FoldedRun] = [
        {"run_id": r, "goal_text": goal, "ts_end": end, "device_scope": scope, "success": bool(ok)}
        for r, goal, end, scope, ok in rows
    ]
    return sorted(found, key=lambda e: (-float(e["ts_end"]), e["run_id"]))
