"""Recall evaluations and their statistics (docs/recall.md), in the `recall` domain.

At run end the run's recall is scored against the apps really launched
(confirmed launch receipts only): `hit` = recalled ∩ actual ≠ ∅; `hit_at_1` =
top-1 ∩ actual ≠ ∅; `contaminated` = recalled − actual ≠ ∅; package TP =
|recalled ∩ actual|, predictions = |recalled|, actuals = |actual|. Each
evaluation is an event (`recall_evaluated`, with the whole trace); statistics
over any window, daily series and per-package precision/recall are read from
its view.

Also in the domain: `recall_stats_imported` (the reference's
`recall_stats.json`, whose counters are the starting point of the all-time
totals and of the exported file), `recall_selection_error` (one failure of
a recall namespace, so the `*_errors` counters survive a restart) and
`procedure_selected` (one procedure-card selection for a run, hit or not: the
reference's `procedure_*` counters, which it advances once per selection).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from peewee import SQL, fn

from store.core.database import Store
from store.core.dialect import dialect_of
from store.core.models import BaseModel, tuples
from store.core.projection import EventRecord
from store.episodes.local_days import local_days
from store.episodes.models import RecallBaseline, RecallErrorCount, RecallEval, RecallEvalApp, RecallProcedureCount
from store.episodes.rows import DailyRecallPoint, Evaluation, ReferenceEvaluation

DOMAIN = "recall"
COUNTERS = (
    "evaluations",
    "recall_runs",
    "hits",
    "hit_at_1_count",
    "contaminated_runs",
    "package_true_positives",
    "package_predictions",
    "package_actuals",
)
# The reference's per-namespace failure counters in `recall_stats.json`.
ERROR_KEYS = {"episode": "episode_errors", "app_alias": "app_alias_errors", "procedure": "procedure_errors"}
BASELINE = "taskwizard"
# The reference's procedure-card recall counters: the imported ones continued by Jiyi's own selections.
PROCEDURE_COUNTERS: tuple[str, ...] = ("procedure_runs", "procedure_hits", "procedure_candidates", "procedure_filtered")
PROCEDURE_COUNTERS += ("procedure_hit_rate", "procedure_reasons")
PROCEDURE_SELECTED = "procedure_selected"
# The keys of the reference's evaluation, as its `latest` holds them.
REFERENCE_EVALUATION = (
    "hit",
    "hit_at_1",
    "conditional_hit",
    "contaminated_run",
    "false_hit",
    "recalled_apps",
    "actual_apps",
    "intent_apps",
    "matched_apps",
    "package_true_positives",
    "package_predictions",
    "package_actuals",
    "package_precision",
    "package_recall",
    "precision_at_k",
    "recall_at_k",
)


def evaluate(
    recalled: Sequence[str], top1: Sequence[str], actual: Sequence[str], intent: Sequence[str] = ()
) -> Evaluation:
    """The reference's per-run evaluation (its keys, sorted app lists, rates to 6 decimals), plus Jiyi's
    `top1_apps`. `actual` must be the confirmed launches only; `intent` the apps the goal mentions."""
    return {**_scores(recalled, top1, actual, intent), "top1_apps": sorted(set(top1))}


def _scores(
    recalled: Sequence[str], top1: Sequence[str], actual: Sequence[str], intent: Sequence[str]
) -> ReferenceEvaluation:
    recalled_set, top1_set, actual_set = set(recalled), set(top1), set(actual)
    matched = recalled_set & actual_set
    hit = bool(matched)
    contaminated = bool(recalled_set - actual_set)
    precision = round(len(matched) / max(1, len(recalled_set)), 6)
    recall = round(len(matched) / max(1, len(actual_set)), 6)
    return {
        "hit": hit,
        "hit_at_1": bool(top1_set & actual_set),
        "conditional_hit": hit if recalled_set else False,
        "contaminated_run": contaminated,
        "false_hit": contaminated,
        "recalled_apps": sorted(recalled_set),
        "actual_apps": sorted(actual_set),
        "intent_apps": sorted(set(intent)),
        "matched_apps": sorted(matched),
        "package_true_positives": len(matched),
        "package_predictions": len(recalled_set),
        "package_actuals": len(actual_set),
        "package_precision": precision,
        "package_recall": recall,
        "precision_at_k": precision,
        "recall_at_k": recall,
    }


class RecallProjection:
    domain = DOMAIN
    version = 3
    models: Sequence[type[BaseModel]] = (
        RecallEval,
        RecallEvalApp,
        RecallBaseline,
        RecallErrorCount,
        RecallProcedureCount,
    )

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        run_id = payload.get("run_id")
        return run_id if isinstance(run_id, str) else None

    def apply(self, event: EventRecord) -> None:
        p = event.payload
        if event.type == "recall_stats_imported":
            if isinstance(p.get("stats"), dict):
                stats = json.dumps(p["stats"], ensure_ascii=False)
                RecallBaseline.replace(source=BASELINE, seq=event.seq, stats=stats).execute()
            return
        if event.type == "recall_selection_error":
            namespace = p.get("namespace")
            if isinstance(namespace, str) and namespace in ERROR_KEYS:
                RecallErrorCount.insert(namespace=namespace, count=1).on_conflict(
                    conflict_target=[RecallErrorCount.namespace],
                    update={RecallErrorCount.count: RecallErrorCount.count + 1},
                ).execute()
            return
        if event.type == PROCEDURE_SELECTED:
            selection = p.get("selection")
            if isinstance(selection, dict):
                for name, count in _procedure_step(selection).items():
                    RecallProcedureCount.insert(name=name, count=count).on_conflict(
                        conflict_target=[RecallProcedureCount.name],
                        update={RecallProcedureCount.count: RecallProcedureCount.count + count},
                    ).execute()
            return
        if event.type != "recall_evaluated":
            return
        run_id, ev = p.get("run_id"), p.get("evaluation")
        if not isinstance(run_id, str) or not isinstance(ev, dict):
            return
        RecallEval.replace(
            run_id=run_id,
            ts=float(p.get("ts", 0.0)),
            device_scope=str(p.get("device_scope", "")),
            mode=str(p.get("mode", "")),
            embedder=str(p.get("embedder", "")),
            recalled=int(bool(ev.get("recalled_apps"))),
            hit=int(bool(ev.get("hit"))),
            hit_at_1=int(bool(ev.get("hit_at_1"))),
            contaminated=int(bool(ev.get("contaminated_run"))),
            true_positives=int(ev.get("package_true_positives", 0)),
            predictions=int(ev.get("package_predictions", 0)),
            actuals=int(ev.get("package_actuals", 0)),
            trace=json.dumps(p, ensure_ascii=False, sort_keys=True),
        ).execute()
        RecallEvalApp.delete().where(RecallEvalApp.run_id == run_id).execute()
        recalled, actual = set(ev.get("recalled_apps", [])), set(ev.get("actual_apps", []))
        rows = [
            {"run_id": run_id, "package": pkg, "recalled": pkg in recalled, "actual": pkg in actual}
            for pkg in recalled | actual
        ]
        if rows:
            RecallEvalApp.insert_many(rows).execute()


def record_evaluation(store: Store, trace: Mapping[str, object], *, actor: str) -> int:
    """Append one run's scored recall (`trace` holds run_id, ts, mode, the recall and `evaluation`)."""
    with store.atomic():
        return store.append(DOMAIN, "recall_evaluated", dict(trace), actor=actor).seq


def _window(query: Any, since: float | None, until: float | None) -> Any:
    if since is not None:
        query = query.where(RecallEval.ts >= since)
    if until is not None:
        query = query.where(RecallEval.ts < until)
    return query


def _rates(c: Mapping[str, int]) -> dict[str, float]:
    n = c["evaluations"]
    return {
        "hit_rate": c["hits"] / n if n else 0.0,
        "hit_at_1": c["hit_at_1_count"] / n if n else 0.0,
        "conditional_hit_rate": c["hits"] / c["recall_runs"] if c["recall_runs"] else 0.0,
        "contaminated_run_rate": c["contaminated_runs"] / n if n else 0.0,
        "package_precision": c["package_true_positives"] / max(1, c["package_predictions"]),
        "package_recall": c["package_true_positives"] / max(1, c["package_actuals"]),
        "abstain_rate": (n - c["recall_runs"]) / n if n else 0.0,
    }


def baseline(store: Store) -> dict[str, object] | None:
    """The imported `recall_stats.json` (the newest import), or None."""
    row = RecallBaseline.get_or_none(RecallBaseline.source == BASELINE)
    if row is None:
        return None
    stats: dict[str, object] = json.loads(row.stats)
    return stats


def _counters(
    store: Store, since: float | None, until: float | None, days: Sequence[DailyRecallPoint] | None
) -> dict[str, int]:
    if days is not None:
        summed = {name: sum(int(getattr(d, name)) for d in days) for name in COUNTERS}
        # A time no local day can hold (a clock gone wrong) is in no day: then the sums are not the window's.
        if int(tuples(_window(RecallEval.select(fn.COUNT(SQL("*"))), since, until))[0][0]) == summed["evaluations"]:
            return summed
    row = _window(
        RecallEval.select(
            fn.COUNT(RecallEval.run_id),
            fn.SUM(RecallEval.recalled),
            fn.SUM(RecallEval.hit),
            fn.SUM(RecallEval.hit_at_1),
            fn.SUM(RecallEval.contaminated),
            fn.SUM(RecallEval.true_positives),
            fn.SUM(RecallEval.predictions),
            fn.SUM(RecallEval.actuals),
        ),
        since,
        until,
    )
    return {name: int(value or 0) for name, value in zip(COUNTERS, tuples(row)[0], strict=True)}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def statistics(
    store: Store,
    since: float | None = None,
    until: float | None = None,
    days: Sequence[DailyRecallPoint] | None = None,
) -> dict[str, object]:
    """Counters and rates over a window of evaluation times (epoch seconds). Without a window the counters
    imported from the reference are included (`imported_evaluations` says how many of them there are), with
    its procedure-card counters, and `errors`: recall failures per namespace (imported and Jiyi's own).

    `days`, the window's `daily` series when the caller has it, saves summing every evaluation again: its
    sums are the counters when it holds every evaluation of the window (one count tells)."""
    counters = _counters(store, since, until, days)
    extra: dict[str, object] = {}
    if since is None and until is None:
        imported = baseline(store) or {}
        if imported:
            counters = {name: counters[name] + _int(imported.get(name)) for name in COUNTERS}
            extra["imported_evaluations"] = _int(imported.get("evaluations"))
        extra.update(_with_procedures(imported, procedure_counts(store)))
        own = error_counts(store)
        extra["errors"] = {ns: own[ns] + _int(imported.get(key)) for ns, key in ERROR_KEYS.items()}
    return {**counters, **{k: round(v, 4) for k, v in _rates(counters).items()}, **extra}


def daily(store: Store, since: float | None = None, until: float | None = None) -> list[DailyRecallPoint]:
    """Per local day: counters and rates, oldest first (for charts).

    Summed in SQL over the counters' index, one range of it per local day (`local_days`): 100k evaluations
    are a few hundred rows, neither 100k trace documents read into Python nor 100k times turned into dates.
    Each day's sums are one subquery (an array), so no back end sorts 100k rows to group them.
    """
    array = dialect_of(store.db).json_array
    days = []
    ranges = local_days(_day_numbers(store, since, until), since, until)
    for start in range(0, len(ranges), _DAYS_PER_QUERY):
        chunk = ranges[start : start + _DAYS_PER_QUERY]
        values = ", ".join(["(?, ?, ?)"] * len(chunk))
        rows = store.db.execute_sql(
            f"WITH days (day, lo, hi) AS (VALUES {values})"
            f" SELECT day, (SELECT {array}({_SUMS}) FROM recall_eval WHERE ts >= lo AND ts < hi) FROM days",
            [value for day in chunk for value in day],
        ).fetchall()
        for day, sums in rows:
            counts = [int(v or 0) for v in (sums if isinstance(sums, list) else json.loads(sums))]
            if counts[0]:
                days.append(_point(str(day), dict(zip(COUNTERS, counts, strict=True))))
    return days


def _point(day: str, c: Mapping[str, int]) -> DailyRecallPoint:
    rates = {k: round(v, 4) for k, v in _rates(c).items()}
    return DailyRecallPoint(
        day=day,
        evaluations=c["evaluations"],
        recall_runs=c["recall_runs"],
        hits=c["hits"],
        hit_at_1_count=c["hit_at_1_count"],
        contaminated_runs=c["contaminated_runs"],
        package_true_positives=c["package_true_positives"],
        package_predictions=c["package_predictions"],
        package_actuals=c["package_actuals"],
        hit_rate=rates["hit_rate"],
        hit_at_1=rates["hit_at_1"],
        conditional_hit_rate=rates["conditional_hit_rate"],
        contaminated_run_rate=rates["contaminated_run_rate"],
        package_precision=rates["package_precision"],
        package_recall=rates["package_recall"],
        abstain_rate=rates["abstain_rate"],
    )


_DAYS_PER_QUERY = 300  # three bound values a day: well under either back end's cap
_SUMS = (
    "COUNT(*), SUM(recalled), SUM(hit), SUM(hit_at_1), SUM(contaminated),"
    " SUM(true_positives), SUM(predictions), SUM(actuals)"
)


def _day_numbers(store: Store, since: float | None, until: float | None) -> Iterable[int]:
    """Whole UTC days since the epoch covering the window's evaluations: every day from the first to the last
    (two probes of the counters' index). A span of over `_MAX_SPAN_DAYS` (a clock gone wrong) is narrowed to
    the days that hold evaluations, by a pass over the index (truncated on SQLite, rounded on PostgreSQL:
    `local_days` allows for both)."""
    # Two queries: SQLite answers a lone MIN or MAX from the index's end, both at once by reading all of it.
    first = tuples(_window(RecallEval.select(fn.MIN(RecallEval.ts)), since, until))[0][0]
    last = tuples(_window(RecallEval.select(fn.MAX(RecallEval.ts)), since, until))[0][0]
    if first is None or last is None:
        return []
    low, high = math.floor(first / 86400), math.floor(last / 86400)
    if high - low <= _MAX_SPAN_DAYS:
        return range(low, high + 1)
    number = SQL("CAST(ts / 86400 AS BIGINT)")
    named = _window(RecallEval.select(number), since, until).where(RecallEval.ts.between(*_NAMEABLE))
    return [int(r[0]) for r in tuples(named.group_by(SQL("1")))]


# The times a `datetime` can hold (years 1 to 9999): a local day can be named for nothing else.
_NAMEABLE = (-62_135_596_800.0 + 2 * 86400, 253_402_300_799.0 - 2 * 86400)


_MAX_SPAN_DAYS = 40 * 366


class PackageRecall(TypedDict):
    """One package's precision and recall over a window (the facade adds the name a device gives it)."""

    package: str
    true_positives: int
    predictions: int
    actuals: int
    precision: float
    recall: float


def per_package(store: Store, since: float | None = None, until: float | None = None) -> list[PackageRecall]:
    """Precision and recall per package over the window, most evaluated first."""
    query = RecallEvalApp.select(
        RecallEvalApp.package,
        fn.SUM(RecallEvalApp.recalled.cast("INTEGER") * RecallEvalApp.actual.cast("INTEGER")),
        fn.SUM(RecallEvalApp.recalled.cast("INTEGER")),
        fn.SUM(RecallEvalApp.actual.cast("INTEGER")),
    ).group_by(RecallEvalApp.package)
    if since is not None or until is not None:
        query = query.where(RecallEvalApp.run_id.in_(_window(RecallEval.select(RecallEval.run_id), since, until)))
    # Without a window every row counts: each evaluation's apps are written and replaced with it (`apply`).
    rows = tuples(query)
    out: list[PackageRecall] = [
        {
            "package": str(package),
            "true_positives": int(tp or 0),
            "predictions": int(pred or 0),
            "actuals": int(act or 0),
            "precision": round(int(tp or 0) / max(1, int(pred or 0)), 4),
            "recall": round(int(tp or 0) / max(1, int(act or 0)), 4),
        }
        for package, tp, pred, act in rows
    ]
    return sorted(out, key=lambda r: (-(r["predictions"] + r["actuals"]), r["package"]))


def runs_between(store: Store, since: float, until: float, limit: int = 200) -> list[dict[str, object]]:
    """The evaluated runs of a window with their traces (recalled vs actual apps), newest first."""
    query = _window(RecallEval.select(), since, until).order_by(RecallEval.ts.desc()).limit(limit)
    return [json.loads(row.trace) for row in query]


def trace_of(store: Store, run_id: str) -> dict[str, object] | None:
    """One run's recall trace and evaluation (None when it had no scored recall)."""
    row = RecallEval.get_or_none(RecallEval.run_id == run_id)
    if row is None:
        return None
    trace: dict[str, object] = json.loads(row.trace)
    return trace


def latest(store: Store) -> dict[str, object] | None:
    """The newest run's stored evaluation (None when no run was scored)."""
    row = RecallEval.select().order_by(RecallEval.ts.desc()).first()
    if row is None:
        return None
    evaluation: dict[str, object] = json.loads(row.trace)["evaluation"]
    return evaluation


def _procedure_step(selection: Mapping[str, object]) -> dict[str, int]:
    """What one selection adds to the procedure counters (the reference's `update_procedure_recall_stats`)."""
    reason = str(selection.get("reason") or "unknown")
    return {
        "runs": 1,
        "hits": int(bool(selection.get("lesson_id"))),
        "candidates": _int(selection.get("candidates")),
        "filtered": _int(selection.get("filtered")),
        f"reason:{reason}": 1,
    }


def record_procedure_selection(
    store: Store, run_id: str, point: str, selection: Mapping[str, object], *, actor: str
) -> int:
    """Count one procedure-card selection for a run (`selection`: the reference's `ProcedureSelection.to_dict()`;
    `point`: `run_start`, `run_start_mention` or `app_launched`), hit or not."""
    payload: dict[str, object] = {"run_id": run_id, "point": point, "selection": dict(selection)}
    with store.atomic():
        return store.append(DOMAIN, PROCEDURE_SELECTED, payload, actor=actor).seq


class ProcedureCounts(TypedDict):
    """Jiyi's own procedure-card selections, in the reference's counters."""

    procedure_runs: int
    procedure_hits: int
    procedure_candidates: int
    procedure_filtered: int
    procedure_reasons: dict[str, int]  # selections per reason


def procedure_counts(store: Store) -> ProcedureCounts | None:
    """Jiyi's own procedure counters, in the reference's keys (`procedure_reasons` a histogram); None when
    Jiyi selected no card yet."""
    rows: dict[str, int] = {row.name: row.count for row in RecallProcedureCount.select()}
    if not rows.get("runs"):
        return None
    return {
        "procedure_runs": rows["runs"],
        "procedure_hits": rows.get("hits", 0),
        "procedure_candidates": rows.get("candidates", 0),
        "procedure_filtered": rows.get("filtered", 0),
        "procedure_reasons": {k.removeprefix("reason:"): v for k, v in sorted(rows.items()) if k.startswith("reason:")},
    }


def _with_procedures(imported: Mapping[str, object], own: ProcedureCounts | None) -> dict[str, object]:
    """The imported procedure counters (as imported) plus Jiyi's own, with the hit rate over both."""
    out = {k: imported[k] for k in PROCEDURE_COUNTERS if k in imported}
    if own is None:
        return out
    runs = _int(imported.get("procedure_runs")) + own["procedure_runs"]
    hits = _int(imported.get("procedure_hits")) + own["procedure_hits"]
    out["procedure_runs"], out["procedure_hits"] = runs, hits
    out["procedure_candidates"] = _int(imported.get("procedure_candidates")) + own["procedure_candidates"]
    out["procedure_filtered"] = _int(imported.get("procedure_filtered")) + own["procedure_filtered"]
    given = imported.get("procedure_reasons")
    reasons: dict[str, object] = dict(given) if isinstance(given, dict) else {}
    for reason, count in own["procedure_reasons"].items():
        reasons[reason] = _int(reasons.get(reason)) + count
    out["procedure_reasons"] = reasons
    out["procedure_hit_rate"] = round(hits / runs, 6)
    return out


def accumulate_procedure(
    current: Mapping[str, object], selection: Mapping[str, object], run_id: object
) -> dict[str, object]:
    """The reference's scorecard after one more procedure-card selection (its update rule)."""
    step = _procedure_step(selection)
    runs = _int(current.get("procedure_runs")) + 1
    hits = _int(current.get("procedure_hits")) + step["hits"]
    given = current.get("procedure_reasons")
    reasons: dict[str, object] = dict(given) if isinstance(given, dict) else {}
    reason = str(selection.get("reason") or "unknown")
    reasons[reason] = _int(reasons.get(reason)) + 1
    return {
        **current,
        "procedure_runs": runs,
        "procedure_hits": hits,
        "procedure_candidates": _int(current.get("procedure_candidates")) + step["candidates"],
        "procedure_filtered": _int(current.get("procedure_filtered")) + step["filtered"],
        "procedure_hit_rate": round(hits / runs, 6),
        "procedure_reasons": reasons,
        "latest_procedure": {"run_id": run_id, **selection},
    }


def record_selection_error(store: Store, namespace: str, error: str, *, actor: str) -> int:
    """Count one failure of a recall namespace (`episode`, `app_alias`, `procedure`), as an event."""
    if namespace not in ERROR_KEYS:
        raise ValueError(f"unknown recall namespace {namespace!r}")
    with store.atomic():
        return store.append(DOMAIN, "recall_selection_error", {"namespace": namespace, "error": error}, actor=actor).seq


def error_counts(store: Store) -> dict[str, int]:
    """Recall failures per namespace, as persisted (Jiyi's own; the imported ones are in `baseline`)."""
    counts = dict.fromkeys(ERROR_KEYS, 0)
    counts.update({row.namespace: row.count for row in RecallErrorCount.select()})
    return counts


def accumulate(current: Mapping[str, object], evaluation: Mapping[str, object], run_id: object) -> dict[str, object]:
    """The reference's scorecard after one more evaluation: counters, rates to 6 decimals, the
    `false_hits` aliases and `latest` (its update rule, so an export continues its file exactly)."""
    n = _int(current.get("evaluations")) + 1
    hits = _int(current.get("hits")) + int(bool(evaluation.get("hit")))
    at_1 = _int(current.get("hit_at_1_count")) + int(bool(evaluation.get("hit_at_1")))
    dirty = _int(current.get("contaminated_runs", current.get("false_hits", 0))) + int(
        bool(evaluation.get("contaminated_run", evaluation.get("false_hit")))
    )
    runs = _int(current.get("recall_runs")) + int(bool(evaluation.get("recalled_apps")))
    tp = _int(current.get("package_true_positives")) + _int(evaluation.get("package_true_positives"))
    predictions = _int(current.get("package_predictions")) + _int(evaluation.get("package_predictions"))
    actuals = _int(current.get("package_actuals")) + _int(evaluation.get("package_actuals"))
    return {
        **current,
        "evaluations": n,
        "recall_runs": runs,
        "hits": hits,
        "hit_at_1_count": at_1,
        "contaminated_runs": dirty,
        "package_true_positives": tp,
        "package_predictions": predictions,
        "package_actuals": actuals,
        "hit_rate": round(hits / n, 6),
        "hit_at_1": round(at_1 / n, 6),
        "conditional_hit_rate": round(hits / max(1, runs), 6),
        "contaminated_run_rate": round(dirty / n, 6),
        "package_precision": round(tp / max(1, predictions), 6),
        "package_recall": round(tp / max(1, actuals), 6),
        "precision_at_k": round(tp / max(1, predictions), 6),
        "recall_at_k": round(tp / max(1, actuals), 6),
        "false_hits": dirty,
        "false_hit_rate": round(dirty / n, 6),
        "latest": {"run_id": run_id, **evaluation},
    }


def reference_evaluation(evaluation: Mapping[str, object]) -> ReferenceEvaluation:
    """A stored evaluation in the reference's shape (scored again from its app lists, so evaluations kept
    before that shape come out the same)."""
    return _scores(
        _apps(evaluation.get("recalled_apps")),
        _apps(evaluation.get("top1_apps")),
        _apps(evaluation.get("actual_apps")),
        _apps(evaluation.get("intent_apps")),
    )


def _apps(value: object) -> list[str]:
    """A stored evaluation's app list (packages; nothing else a list could hold)."""
    return [app for app in value if isinstance(app, str)] if isinstance(value, list) else []


def stats_file(store: Store) -> dict[str, object]:
    """The reference's `recall_stats.json` (schema_v 2): the imported file's object (procedure counters and
    all) continued by each of Jiyi's evaluations and procedure-card selections in log order, with the persisted
    `*_errors` counters added.
    Nothing evaluated or failed since an import gives back the imported object unchanged."""
    imported = baseline(store) or {}
    current: dict[str, object] = dict(imported) if imported.get("schema_v") == 2 else {}
    for event in store.events(DOMAIN, types=["recall_evaluated", PROCEDURE_SELECTED]):
        if event.type == PROCEDURE_SELECTED:
            selection = event.payload.get("selection")
            if isinstance(selection, dict):
                current = accumulate_procedure(current, selection, event.payload.get("run_id"))
            continue
        evaluation = event.payload.get("evaluation")
        if isinstance(evaluation, dict):
            current = accumulate(current, reference_evaluation(evaluation), event.payload.get("run_id"))
    for namespace, count in error_counts(store).items():
        if count:
            key = ERROR_KEYS[namespace]
            current[key] = _int(current.get(key)) + count
    current["schema_v"] = 2
    return current
