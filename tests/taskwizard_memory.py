"""A TaskWizard `memory/` directory written the way TaskWizard's own code writes it, for interchange tests.

Standard library only and no Jiyi code, so a test compares Jiyi against the
reference's formats rather than against itself. The formats (from
`phone_agent/v2/experience.py`, `appkb.py`, `recall.py`, `evolution.py`):

- `experience/events.jsonl`: one record per line, keys in schema field order,
  `json.dumps(record, ensure_ascii=False)`; `episodes.json` is the replay
  (last outcome per run wins, an `episode_archived` drops its runs and sets
  every `aggregate:<category>`), `indent=2, sort_keys=True` plus a newline.
- `app_kb/events.jsonl`: `json.dumps(event, ensure_ascii=False, sort_keys=True)`;
  `kb.json` the entries sorted by (scope, kind, normalized term, package).
- `experience/recall_stats.json` (at the root in older directories): the schema_v 2
  scorecard accumulated run by run, rates rounded to 6 decimals, `indent=2, sort_keys=True`;
  the procedure-card counters accumulated per selection (`procedure_update`).
- `lessons/events.jsonl`: `json.dumps(event, ensure_ascii=False, sort_keys=True)`;
  `lessons.json` the current version of each lesson sorted by (created_ts, lesson_id).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUTCOME_FIELDS = (
    "type",
    "schema_v",
    "run_id",
    "ts_start",
    "ts_end",
    "time_of_day",
    "day_of_week",
    "device_scope",
    "goal_text",
    "apps",
    "success",
    "reason",
    "steps",
    "tokens_total",
    "tokens_by_role",
    "warnings",
    "takeover",
    "verifier",
    "capabilities",
    "injected_lessons",
    "injected_procedures",
    "deliverable_path",
)
EVENT_FIELDS = (
    "type",
    "schema_v",
    "run_id",
    "step",
    "ts",
    "tool",
    "result_class",
    "app_package",
    "device_scope",
    "intent",
    "note",
)
NEWER_FIELDS = ("capabilities", "injected_lessons", "injected_procedures", "deliverable_path")
T0 = 1_764_000_000.0
DEVICE = "device:emu-5554"

GOALS = [
    ("打开微信给妈妈发消息", ["com.tencent.mm"]),
    ("联系 13800138000 问快递到哪了", ["com.android.contacts"]),
    ("在淘宝买一包纸巾", ["com.taobao.taobao"]),
    ("订一张去上海的机票", ["ctrip.android.view"]),
    ("打开设置调亮度", ["com.android.settings"]),
    ("看一下支付宝这个月的账单", ["com.eg.android.AlipayGphone"]),
    ("用美团点一份外卖", ["com.sankuai.meituan"]),
    ("播放周杰伦的歌", ["com.tencent.qqmusic"]),
    ("查明天的天气", []),
    ("在小红书搜火锅", ["com.xingin.xhs"]),
]


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)


def _view(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def outcome(index: int, *, legacy: bool = False) -> dict[str, Any]:
    goal, apps = GOALS[index % len(GOALS)]
    start = T0 + index * 600.0
    success = index % 3 != 1
    record: dict[str, Any] = {
        "type": "episode_outcome",
        "schema_v": 1,
        "run_id": f"run-{index:03d}",
        "ts_start": start,
        "ts_end": start + 42.5,
        "time_of_day": ("night", "morning", "afternoon", "evening")[index % 4],
        "day_of_week": index % 7,
        "device_scope": DEVICE,
        "goal_text": goal,
        "apps": list(apps),
        "success": success,
        "reason": "finished" if success else "model_stopped",
        "steps": 2 + index % 5,
        "tokens_total": 900 + index,
        "tokens_by_role": {"actor": 800 + index, "verifier": 100},
        "warnings": index % 2,
        "takeover": None,
        "verifier": "pass" if success else "fail",
    }
    if not legacy:
        record["capabilities"] = {"app_kb": "active", "memory_rag": "shadow"}
        record["injected_lessons"] = []
        record["injected_procedures"] = [LESSON_IDS[0]] if index % 4 == 0 else []
        record["deliverable_path"] = None
    return {k: record[k] for k in OUTCOME_FIELDS if k in record}


def tool_event(
    run: int, step: int, tool: str, *, package: str | None = None, note: str | None = None
) -> dict[str, Any]:
    return {
        "type": "experience_event",
        "schema_v": 1,
        "run_id": f"run-{run:03d}",
        "step": step,
        "ts": T0 + run * 600.0 + step * 3.25,
        "tool": tool,
        "result_class": "ok" if tool != "tap" or step % 2 else "error",
        "app_package": package,
        "device_scope": DEVICE,
        "intent": f"第{step}步",
        "note": note,
    }


def aggregate(category: str, episodes: int, successes: int, start: float, end: float) -> dict[str, Any]:
    return {
        "type": "episode_aggregate",
        "schema_v": 1,
        "task_category": category,
        "episodes": episodes,
        "successes": successes,
        "success_rate": successes / episodes if episodes else 0.0,
        "ts_start": start,
        "ts_end": end,
    }


def experience_records(runs: range) -> list[dict[str, Any]]:
    """Tool events and an outcome per run: a launch receipt, a custom plugin tool, a 支付密码 note."""
    records: list[dict[str, Any]] = []
    for run in runs:
        apps = GOALS[run % len(GOALS)][1]
        records.append(tool_event(run, 1, "launch_app", package=apps[0] if apps and run % 5 else None))
        records.append(tool_event(run, 2, "plugin_lookup-v2" if run % 3 == 0 else "tap", note="输入支付密码前停下"))
        records.append(outcome(run, legacy=run % 4 == 1))
    return records


def replay_experience(lines: list[str]) -> dict[str, Any]:
    """TaskWizard's `episodes.json` for these lines."""
    view: dict[str, Any] = {}
    for line in lines:
        record = json.loads(line)
        if record["type"] == "episode_outcome":
            view[record["run_id"]] = record
        elif record["type"] == "episode_archived":
            for run_id in record["run_ids"]:
                view.pop(run_id, None)
            for key in [k for k in view if k.startswith("aggregate:")]:
                view.pop(key)
            for category, value in record["aggregates"].items():
                view[f"aggregate:{category}"] = dict(value)
    return view


# -- App-KB ------------------------------------------------------------------------------------------


def entry(term: str, package: str, kind: str, scope: str = "global", **extra: Any) -> dict[str, Any]:
    base = {
        "term": term,
        "label": term,
        "package": package,
        "kind": kind,
        "scope": scope,
        "confidence": 0.9 if kind == "learned" else 1.0,
        "success_count": 0,
        "first_seen": "2026-11-01T08:00:00+00:00",
        "last_seen": "2026-11-01T08:00:00+00:00",
        "stale": False,
    }
    base.update(extra)
    return base


def appkb_events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for i, (term, package) in enumerate(
        (("微信", "com.tencent.mm"), ("淘宝", "com.taobao.taobao"), ("设置", "com.android.settings"))
    ):
        events.append(
            {"op": "upsert", "entry": entry(term, package, "device", DEVICE), "ts": f"2026-11-01T08:00:0{i}+00:00"}
        )
    events.append(
        {
            "op": "upsert",
            "entry": entry("小红薯", "com.xingin.xhs", "learned", success_count=1),
            "evidence_note": "implicit: run<run-009>",
            "ts": "2026-11-01T08:01:00+00:00",
        }
    )
    events.append(
        {
            "op": "tool_observed",
            "run_id": "run-000",
            "step": 1,
            "tool": "launch_app",
            "success": True,
            "term": "微信",
            "package": "com.tencent.mm",
            "ts": "2026-11-01T08:02:00+00:00",
        }
    )
    user = entry("老婆的微信", "com.tencent.mm", "user")
    events.append(
        {"op": "alias_user_set", "entry": user, "changed": True, "replaced": [], "ts": "2026-11-01T08:03:00+00:00"}
    )
    events.append(
        {"op": "alias_user_set", "entry": user, "changed": False, "replaced": [], "ts": "2026-11-01T08:04:00+00:00"}
    )
    events.append({"op": "alias_forgotten", "term": "不存在", "removed": [], "ts": "2026-11-01T08:05:00+00:00"})
    events.append(
        {
            "op": "mark_stale",
            "entry": entry("淘宝", "com.taobao.taobao", "device", DEVICE, stale=True),
            "ts": "2026-11-01T08:06:00+00:00",
        }
    )
    return events


def _norm(term: str) -> str:
    return "".join(unicodedata.normalize("NFKC", term).split()).casefold()


def replay_appkb(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """TaskWizard's `kb.json` for these events (the ops the fixture uses)."""
    entries: dict[tuple[str, str, str, str], dict[str, Any]] = {}

    def drop_global(term: str) -> None:
        for key, value in list(entries.items()):
            if (
                value["scope"] == "global"
                and value["kind"] in ("learned", "user")
                and _norm(value["term"]) == _norm(term)
            ):
                del entries[key]

    for event in events:
        op = event["op"]
        if event.get("audit_only"):  # an alias change a compaction kept for the record: not replayed
            continue
        if op == "delete":
            e = event["entry"]
            entries.pop((e["term"], e["package"], e["kind"], e["scope"]), None)
        elif op in ("upsert", "mark_stale"):
            e = event["entry"]
            entries[(e["term"], e["package"], e["kind"], e["scope"])] = e
        elif op == "alias_user_set":
            e = event["entry"]
            drop_global(e["term"])
            entries[(e["term"], e["package"], e["kind"], e["scope"])] = e
        elif op == "alias_forgotten":
            drop_global(event["term"])
    return sorted(entries.values(), key=lambda e: (e["scope"], e["kind"], _norm(e["term"]), e["package"]))


class AppKbLog:
    """An App-KB log written as TaskWizard's `AppKnowledgeStore` (`phone_agent/v2/appkb.py`) and its dream's
    `consolidate` (`phone_agent/v2/dream.py`) write it, each operation appending to `events`:

    - `upsert` keeps the earlier `first_seen` of an entry it replaces;
    - `sync_device` upserts one device entry per installed app (term = label), keeping its `first_seen`,
      `success_count` and `last_success`;
    - `set_user_alias` drops the term's global learned and user entries and logs `alias_user_set`;
    - `forget_alias` drops them and logs `alias_forgotten` (`removed` lists what went);
    - `delete` logs one `delete` per entry it removes;
    - `compact` (a full dream) merges entries sharing package, label and provenance, deletes stale or unused
      entries below 0.5 confidence, then rewrites the log as one `upsert` per entry (sorted, stamped with the
      compaction's time) followed by every alias change of the old log, marked `audit_only`.

    Times are TaskWizard's `datetime.now(timezone.utc).isoformat()`, from a clock that moves a second a call.
    """

    def __init__(self, events: list[dict[str, Any]], start: str = "2026-11-01T08:00:00") -> None:
        self.events = events
        self._now = datetime.fromisoformat(start).replace(tzinfo=UTC)

    def now(self) -> str:
        self._now += timedelta(seconds=1, microseconds=123)
        return self._now.isoformat()

    def entries(self) -> dict[tuple[str, str, str, str], dict[str, Any]]:
        return {(e["term"], e["package"], e["kind"], e["scope"]): e for e in replay_appkb(self.events)}

    def upsert(self, entry_: dict[str, Any], evidence_note: str | None = None) -> None:
        old = self.entries().get((entry_["term"], entry_["package"], entry_["kind"], entry_["scope"]))
        candidate = dict(entry_)
        if old is not None:
            candidate["first_seen"] = min(old["first_seen"], candidate["first_seen"])
        event: dict[str, Any] = {"op": "upsert", "entry": candidate, "ts": self.now()}
        if evidence_note:
            event["evidence_note"] = evidence_note
        self.events.append(event)

    def sync_device(self, serial: str, labels: list[tuple[str, str]]) -> None:
        stamp = self.now()
        for package, label in labels:
            old = self.entries().get((label, package, "device", f"device:{serial}"))
            candidate = entry(label, package, "device", f"device:{serial}", first_seen=stamp, last_seen=stamp)
            if old is not None:
                candidate.update(first_seen=old["first_seen"], success_count=old["success_count"])
                if old.get("last_success"):
                    candidate["last_success"] = old["last_success"]
            self.upsert(candidate)

    def learn(self, term: str, package: str, run: str) -> None:
        stamp = self.now()
        learned = entry(term, package, "learned", success_count=1, first_seen=stamp, last_seen=stamp)
        self.upsert(learned, evidence_note=f"implicit: run<{run}>")

    def _same_term(self, term: str) -> list[dict[str, Any]]:
        return [
            e
            for e in self.entries().values()
            if e["scope"] == "global" and e["kind"] in ("learned", "user") and _norm(e["term"]) == _norm(term)
        ]

    def set_user_alias(self, term: str, package: str) -> None:
        stamp = self.now()
        matches = self._same_term(term)
        first = min((e["first_seen"] for e in matches), default=stamp)
        user = entry(term, package, "user", first_seen=first, last_seen=stamp)
        replaced = [{"kind": e["kind"], "package": e["package"]} for e in matches]
        self.events.append({"op": "alias_user_set", "entry": user, "changed": True, "replaced": replaced, "ts": stamp})

    def forget_alias(self, term: str) -> None:
        removed = [{"kind": e["kind"], "package": e["package"]} for e in self._same_term(term)]
        self.events.append({"op": "alias_forgotten", "term": term, "removed": removed, "ts": self.now()})

    def delete(self, term: str, package: str) -> None:
        for e in [e for e in self.entries().values() if e["term"] == term and e["package"] == package]:
            self.events.append({"op": "delete", "entry": e, "ts": self.now()})

    def compact(self) -> None:
        stamp = self.now()
        groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for e in self.entries().values():
            provenance = "mutable_alias" if e["kind"] in ("learned", "user") else e["kind"]
            groups.setdefault((e["package"], e["label"], provenance), []).append(e)
        kept = []
        for group in groups.values():
            winner = dict(max(group, key=lambda e: (e["kind"] == "user", e["confidence"], e["success_count"])))
            winner["first_seen"] = min(e["first_seen"] for e in group)
            winner["success_count"] = sum(e["success_count"] for e in group)
            if not (winner["stale"] and winner["confidence"] < 0.5):
                kept.append(winner)
        kept.sort(key=lambda e: (e["scope"], e["kind"], _norm(e["term"]), e["package"]))
        audit = [
            {**e, "audit_only": True}
            for e in self.events
            if e["op"] in ("alias_overwritten", "alias_user_set", "alias_forgotten")
        ]
        self.events[:] = [{"op": "upsert", "entry": e, "ts": stamp} for e in kept] + audit


# -- recall scorecard ---------------------------------------------------------------------------------


def evaluation(recalled: list[str], top1: list[str], actual: list[str], intent: list[str]) -> dict[str, Any]:
    """TaskWizard's `evaluate_recall` result."""
    r, t, a = set(recalled), set(top1), set(actual)
    matched = r & a
    return {
        "hit": bool(matched),
        "hit_at_1": bool(t & a),
        "conditional_hit": bool(matched) if r else False,
        "contaminated_run": bool(r - a),
        "false_hit": bool(r - a),
        "recalled_apps": sorted(r),
        "actual_apps": sorted(a),
        "intent_apps": sorted(set(intent)),
        "matched_apps": sorted(matched),
        "package_true_positives": len(matched),
        "package_predictions": len(r),
        "package_actuals": len(a),
        "package_precision": round(len(matched) / max(1, len(r)), 6),
        "package_recall": round(len(matched) / max(1, len(a)), 6),
        "precision_at_k": round(len(matched) / max(1, len(r)), 6),
        "recall_at_k": round(len(matched) / max(1, len(a)), 6),
    }


def update_stats(current: dict[str, Any], ev: dict[str, Any], run_id: str) -> dict[str, Any]:
    """TaskWizard's `update_recall_stats` step."""
    n = current.get("evaluations", 0) + 1
    hits = current.get("hits", 0) + int(ev["hit"])
    at1 = current.get("hit_at_1_count", 0) + int(ev["hit_at_1"])
    dirty = current.get("contaminated_runs", 0) + int(ev["contaminated_run"])
    runs = current.get("recall_runs", 0) + int(bool(ev["recalled_apps"]))
    tp = current.get("package_true_positives", 0) + ev["package_true_positives"]
    pred = current.get("package_predictions", 0) + ev["package_predictions"]
    act = current.get("package_actuals", 0) + ev["package_actuals"]
    updated = dict(current)
    updated.update(
        {
            "evaluations": n,
            "recall_runs": runs,
            "hits": hits,
            "hit_at_1_count": at1,
            "contaminated_runs": dirty,
            "package_true_positives": tp,
            "package_predictions": pred,
            "package_actuals": act,
            "hit_rate": round(hits / n, 6),
            "hit_at_1": round(at1 / n, 6),
            "conditional_hit_rate": round(hits / max(1, runs), 6),
            "contaminated_run_rate": round(dirty / n, 6),
            "package_precision": round(tp / max(1, pred), 6),
            "package_recall": round(tp / max(1, act), 6),
            "precision_at_k": round(tp / max(1, pred), 6),
            "recall_at_k": round(tp / max(1, act), 6),
            "false_hits": dirty,
            "false_hit_rate": round(dirty / n, 6),
            "latest": {"run_id": run_id, **ev},
            "schema_v": 2,
        }
    )
    return updated


def procedure_update(current: dict[str, Any], selection: dict[str, Any], run_id: str | None) -> dict[str, Any]:
    """TaskWizard's `update_procedure_recall_stats` step for one card selection (`ProcedureSelection.to_dict()`)."""
    runs = current.get("procedure_runs", 0) + 1
    hits = current.get("procedure_hits", 0) + int(bool(selection.get("lesson_id")))
    reasons = dict(current.get("procedure_reasons", {}) or {})
    reason = str(selection.get("reason") or "unknown")
    reasons[reason] = reasons.get(reason, 0) + 1
    updated = dict(current)
    updated.update(
        {
            "procedure_runs": runs,
            "procedure_hits": hits,
            "procedure_candidates": current.get("procedure_candidates", 0) + int(selection.get("candidates", 0) or 0),
            "procedure_filtered": current.get("procedure_filtered", 0) + int(selection.get("filtered", 0) or 0),
            "procedure_hit_rate": round(hits / runs, 6),
            "procedure_reasons": reasons,
            "latest_procedure": {"run_id": run_id, **selection},
            "schema_v": 2,
        }
    )
    return updated


def recall_stats(evaluations: int) -> dict[str, Any]:
    """A scorecard after `evaluations` runs (hits, misses, abstentions, contamination), two episode
    selection errors, one procedure error and procedure-card counters."""
    stats: dict[str, Any] = {}
    for i in range(evaluations):
        apps = GOALS[i % len(GOALS)][1]
        actual = list(apps) if i % 5 else []
        recalled = [] if i % 7 == 3 else list(apps) if i % 3 else [*apps, "com.ss.android.ugc.aweme"]
        stats = update_stats(
            stats, evaluation(recalled, recalled[:1], actual, apps[:1] if i % 2 else []), f"run-{i:03d}"
        )
    stats["episode_errors"] = 2
    stats["procedure_errors"] = 1
    stats.update(
        {
            "procedure_runs": evaluations,
            "procedure_hits": 3,
            "procedure_candidates": 11,
            "procedure_filtered": 4,
            "procedure_hit_rate": round(3 / evaluations, 6),
            "procedure_reasons": {"below_threshold": evaluations - 5, "no_candidates": 2, "selected": 3},
            "latest_procedure": {
                "run_id": f"run-{evaluations - 1:03d}",
                "lesson_id": LESSON_IDS[0],
                "reason": "selected",
            },
            "schema_v": 2,
        }
    )
    return stats


# -- lessons and procedure cards ----------------------------------------------------------------------

LESSON_IDS = ["les_0123456789abcdef", "les_fedcba9876543210", "les_00112233445566aa", "les_aabbccddeeff0011"]


def lesson(index: int, status: str, *, kind: str = "rule", version: int = 1, text: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "lesson_id": LESSON_IDS[index],
        "schema_v": 1,
        "version": version,
        "status": status,
        "text": text or f"第{index}条经验：先确认页面再点击",
        "scope": {"device": None, "app": "com.tencent.mm" if index % 2 else None, "app_version": None},
        "evidence": [{"run_id": f"run-{index:03d}", "note": "成功"}],
        "support_count": 1,
        "task_keys": ["open_app"],
        "conflicts": [],
        "created_ts": T0 + index * 10.0,
        "source": "distill",
        "kind": kind,
        "steps": ["打开应用", "搜索目标"] if kind == "procedure" else [],
        "pitfalls": "别点广告" if kind == "procedure" else None,
        "app_scope": "com.tencent.mm" if kind == "procedure" else None,
    }
    return record


def lesson_events() -> list[dict[str, Any]]:
    """Every status: proposed, needs_review, auto_approved, approved, revoked, a demotion and a supersession."""
    ts = T0 + 5000.0
    events = [
        {"type": "lesson_proposed", "schema_v": 1, "ts": ts, "lesson": lesson(0, "auto_approved", kind="procedure")},
        {
            "type": "lesson_proposed",
            "schema_v": 1,
            "ts": ts + 1,
            "lesson": lesson(1, "needs_review"),
            "grade": "needs_review",
            "grade_basis": "证据不足",
            "fact_sheet": {"runs": 1},
        },
        {"type": "lesson_proposed", "schema_v": 1, "ts": ts + 2, "lesson": lesson(2, "proposed")},
        {"type": "lesson_proposed", "schema_v": 1, "ts": ts + 3, "lesson": lesson(3, "proposed")},
        {"type": "lesson_approved", "schema_v": 1, "ts": ts + 4, "lesson_id": LESSON_IDS[2], "version": 1},
        {
            "type": "lesson_revoked",
            "schema_v": 1,
            "ts": ts + 5,
            "lesson_id": LESSON_IDS[3],
            "version": 1,
            "reason": "过时",
        },
        {
            "type": "lesson_superseded",
            "schema_v": 1,
            "ts": ts + 6,
            "lesson_id": LESSON_IDS[1],
            "from_version": 1,
            "lesson": lesson(1, "proposed", version=2, text="第1条经验：改写后的版本"),
        },
        {
            "type": "lesson_demoted",
            "schema_v": 1,
            "ts": ts + 7,
            "lesson_id": LESSON_IDS[0],
            "version": 1,
            "reason": "证据已归档",
        },
    ]
    return events


def replay_lessons(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """TaskWizard's `lessons.json` for these events."""
    current: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event["type"]
        if kind == "lesson_proposed":
            current.setdefault(event["lesson"]["lesson_id"], dict(event["lesson"]))
        elif kind == "lesson_superseded":
            current[event["lesson_id"]] = dict(event["lesson"])
        else:
            item = current[event["lesson_id"]]
            if kind == "lesson_approved":
                item["status"] = "approved"
            elif kind == "lesson_revoked":
                item["status"] = "revoked"
            elif kind == "lesson_demoted":
                item["status"] = "needs_review" if item["kind"] == "procedure" else "proposed"
    return sorted(current.values(), key=lambda item: (item["created_ts"], item["lesson_id"]))


# -- the directory ------------------------------------------------------------------------------------


@dataclass
class TaskWizardMemory:
    """A `memory/` directory and the lines it holds, appended to as TaskWizard would."""

    root: Path
    experience: list[str] = field(default_factory=list)
    appkb: list[dict[str, Any]] = field(default_factory=list)
    lessons: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    stats_file: str = "experience/recall_stats.json"  # "recall_stats.json" in directories of older versions

    @property
    def files(self) -> tuple[str, ...]:
        """The files that round-trip byte for byte (FILES, with the scorecard where this directory has it)."""
        return (*FILES[:4], self.stats_file)

    def write(self) -> Path:
        (self.root / "experience").mkdir(parents=True, exist_ok=True)
        (self.root / "app_kb").mkdir(exist_ok=True)
        (self.root / "lessons").mkdir(exist_ok=True)
        (self.root / "experience" / "events.jsonl").write_text("".join(x + "\n" for x in self.experience), "utf-8")
        (self.root / "experience" / "episodes.json").write_text(_view(replay_experience(self.experience)), "utf-8")
        kb_lines = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in self.appkb)
        (self.root / "app_kb" / "events.jsonl").write_text(kb_lines, "utf-8")
        (self.root / "app_kb" / "kb.json").write_text(_view(replay_appkb(self.appkb)), "utf-8")
        (self.root / self.stats_file).write_text(_view(self.stats), "utf-8")
        lesson_lines = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in self.lessons)
        (self.root / "lessons" / "events.jsonl").write_text(lesson_lines, "utf-8")
        (self.root / "lessons" / "lessons.json").write_text(_view(replay_lessons(self.lessons)), "utf-8")
        state = {"last_ts_end": T0 + 4000.0, "last_run_id": "run-005"}
        (self.root / "lessons" / "distill_state.json").write_text(_view(state), "utf-8")
        return self.root

    def append_runs(self, runs: range) -> None:
        """More runs, appended to the experience log (and the view rewritten), as the agent does."""
        self.experience += [_dump(r) for r in experience_records(runs)]

    def fold(self, run_ids: list[str], aggregates: dict[str, dict[str, Any]]) -> None:
        self.experience.append(
            _dump(
                {
                    "type": "episode_archived",
                    "schema_v": 1,
                    "ts": T0 + 90_000.0,
                    "run_ids": run_ids,
                    "aggregates": aggregates,
                }
            )
        )


def taskwizard_memory(
    root: Path, runs: int = 12, *, stats_file: str = "experience/recall_stats.json"
) -> TaskWizardMemory:
    """A memory directory with `runs` runs (some legacy), a fold, an App-KB, a scorecard of `runs`
    evaluations (at `stats_file`) and lessons in every status."""
    memory = TaskWizardMemory(root / "memory", stats_file=stats_file)
    memory.append_runs(range(runs))
    memory.fold(
        ["run-000", "run-002"],
        {
            "communication": aggregate("communication", 2, 2, T0 - 9000.0, T0 - 8000.0),
            "other": aggregate("other", 1, 0, T0 - 7000.0, T0 - 7000.0),
        },
    )
    memory.appkb = appkb_events()
    memory.stats = recall_stats(runs)
    memory.lessons = lesson_events()
    memory.write()
    return memory


FILES = (
    "app_kb/events.jsonl",
    "app_kb/kb.json",
    "experience/events.jsonl",
    "experience/episodes.json",
    "experience/recall_stats.json",
)
