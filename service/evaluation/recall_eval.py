"""`jiyi eval recall`: measure shadow recall on a history of past runs and new tasks.

History rows (`goal<TAB>package`) become successful runs of that app on device
`eval` (steps 2, so they pass the index gate). For each query (`goal`,
`actual`), a run starts (shadow recall) and finishes with apps = [actual] and
steps 0, so it is scored but never joins the history. Prints the reference's
rates over the queries, plus `abstain_rate` and recall latency; with a
`has_history` column, hit@1 over the queries whose app has history too.

Calibration is prequential, as on a device: the history's leave-one-out is
computed first, then each query is recalled with the threshold chosen from
the history and the queries scored before it (never itself or later ones),
and its evaluation joins the calibration before the next query. The report
says which thresholds were used and where they came from; `calibrate=False`
uses the embedder's fixed threshold throughout, for comparison.

`history_sample` evaluates a device that has seen less: a reproducible random
sample of the history rows (by `seed`), with `has_history` worked out again
from the sample — how recall behaves while a device's past is still short.
"""

from __future__ import annotations

import dataclasses
import math
import random
import tempfile
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import NotRequired, TypedDict

import msgspec

from recall import calibration as calib
from recall.calibration import Observation
from service.config import Config, check_setting
from service.evaluation.percentile import percentile
from service.memory.memory import Memory
from service.wire.episodes import Evaluation
from service.wire.recall import RunTrace
from store.appkb.entry import is_package_name
from store.core.errors import InvalidInput
from store.core.tsv import read_tsv

DEVICE = "eval"
# The bundled paraphrase development set (resources/recall_dev_NOTICE.txt): `jiyi eval recall --set paraphrase`.
SETS = {"paraphrase": ("recall_dev_history.tsv", "recall_dev_queries.tsv")}


def bundled_set(name: str) -> tuple[Path, Path]:
    """The history and queries files of a bundled evaluation set."""
    if name not in SETS:
        raise InvalidInput(f"unknown evaluation set {name!r}; choose one of {', '.join(SETS)}")
    folder = resources.files("resources")
    history, queries = SETS[name]
    return Path(str(folder / history)), Path(str(folder / queries))


def read_history(path: Path) -> list[tuple[str, str]]:
    rows = []
    for number, row in read_tsv(path, ("goal", "package"), "history"):
        if not is_package_name(row["package"]):
            raise InvalidInput(f"history file {path}, line {number}: {row['package']!r} is not a package name")
        rows.append((row["goal"], row["package"]))
    return rows


def read_recall_queries(path: Path) -> list[dict[str, str]]:
    rows = []
    for number, row in read_tsv(path, ("goal", "actual"), "queries"):
        if not is_package_name(row["actual"]):
            raise InvalidInput(f"queries file {path}, line {number}: actual {row['actual']!r} is not a package name")
        rows.append(row)
    return rows


DETAIL_COLUMNS = (
    "goal",
    "actual",
    "has_history",
    "status",
    "recalled",
    "hit_at_1",
    "contaminated",
    "score",
    "vector",
    "ownership",
    "by",
    "confidence",
    "top_app",
    "runner_up",
    "margin",
    "threshold",
    "threshold_source",
)


def evaluate(
    memory: Memory,
    history: list[tuple[str, str]],
    queries: list[dict[str, str]],
    details: list[dict[str, object]] | None = None,
    *,
    calibrate: bool = True,
) -> RecallReport:
    """Archive the history, run every query through a run's lifecycle, report the totals.

    When `details` is a list, one row per query is appended to it (`DETAIL_COLUMNS`):
    what was recalled, whether it hit, and the candidate's scores and the past goal it came from.
    """
    memory.runs.archive_episodes(history_outcomes(history, time.time()))
    if calibrate:
        memory.calibration.calibrate(DEVICE)  # what the device's dream pass would have done by now
    else:
        memory.recall.thresholds = None  # the embedder's fixed threshold throughout
        memory.calibration.close()  # and nothing calibrates in the background
    since = time.time()
    latencies: list[float] = []
    with_history: list[bool] = []
    per_query: list[Evaluation | None] = []
    used: list[tuple[float, str]] = []
    decided: list[Decided] = []
    for i, query in enumerate(queries):
        if calibrate:
            memory.calibration.wait()  # the evaluations scored so far are in; this query is not
            now = memory.calibration.current(DEVICE)[0]
            used.append((now.threshold, now.source))
        else:
            used.append((memory.recall.engine.min_score, "fixed"))
        started = memory.runs.run_start(f"query-{i}", DEVICE, goal=query["goal"])
        latencies.append(float(started["recall"]["latency_ms"]))
        # The run launched the app the query was about: recall is scored against confirmed launches only.
        launch = {"run_id": f"query-{i}", "step": 1, "tool": "launch_app", "result_class": "ok"}
        memory.runs.run_event({**launch, "app_package": query["actual"]})
        finished = memory.runs.run_finish(f"query-{i}", {"success": True, "apps": [query["actual"]], "steps": 0})
        evaluation = finished["recall_evaluation"]
        per_query.append(evaluation)
        with_history.append(query.get("has_history", "1") != "0")
        decided.append(_decided(memory.recall.recall_trace(f"query-{i}"), evaluation, memory.recall.scoring))
        if details is not None:
            details.append(
                {
                    **_detail(memory, f"query-{i}", query, started["recall"]["status"], evaluation),
                    "threshold": used[-1][0],
                    "threshold_source": used[-1][1],
                }
            )
    memory.calibration.wait()
    totals = memory.recall.recall_statistics(since=since)["totals"]
    report: RecallReport = {
        "n": totals["evaluations"],
        "embedder": memory.config.embed_model,
        "scoring": memory.recall.scoring,
        "hit_at_1": totals["hit_at_1"],
        "hit_rate": totals["hit_rate"],
        "conditional_hit_rate": totals["conditional_hit_rate"],
        "contaminated_run_rate": totals["contaminated_run_rate"],
        "package_precision": totals["package_precision"],
        "package_recall": totals["package_recall"],
        "abstain_rate": totals["abstain_rate"],
        "latency_ms": {"p50": round(percentile(latencies, 50), 3), "p99": round(percentile(latencies, 99), 3)},
        "thresholds": thresholds_used(used, memory.config.recall_max_contamination if calibrate else None),
        "hindsight": hindsight(decided, with_history, memory.config.recall_max_contamination),
    }
    scored = [e for e, has in zip(per_query, with_history, strict=True) if has]
    if len(scored) != len(per_query):
        report["with_history"] = {
            "n": len(scored),
            "hit_at_1": round(sum(bool(e and e["hit_at_1"]) for e in scored) / len(scored), 4) if scored else None,
        }
    return report


# What one query's outcome would be at any threshold: its observation (None: the threshold did not decide it)
# and, for those, the hit@1 and contamination it had.
Decided = tuple[Observation | None, bool, bool]


def _decided(trace: RunTrace | None, evaluation: Evaluation | None, scoring: str) -> Decided:
    observation = calib.observation_of(msgspec.to_builtins(trace), scoring) if trace else None
    return observation, bool(evaluation and evaluation["hit_at_1"]), bool(evaluation and evaluation["contaminated_run"])


class Hindsight(TypedDict):
    """The best one threshold did on the queries (None: every threshold there was did worse than none)."""

    threshold: float | None
    hit_at_1: float
    contaminated_run_rate: float


class Latency(TypedDict):
    p50: float
    p99: float


class WithHistory(TypedDict):
    """hit@1 over the queries whose app the history holds (when some queries' app it does not)."""

    n: int
    hit_at_1: float | None


class HistorySample(TypedDict):
    rows: int  # sampled
    of: int  # in the history file
    seed: int


class RecallReport(TypedDict):
    """`evaluate`'s report: the shadow recall's totals over the queries, latency, the thresholds
    used and the best one in hindsight."""

    n: int
    embedder: str
    scoring: str
    # The statistics a report carries, as the reference names them.
    hit_at_1: float
    hit_rate: float
    conditional_hit_rate: float
    contaminated_run_rate: float
    package_precision: float
    package_recall: float
    abstain_rate: float
    latency_ms: Latency
    thresholds: ThresholdsUsed
    hindsight: Hindsight
    with_history: NotRequired[WithHistory]
    history_sample: NotRequired[HistorySample]  # `--history-sample`


class ThresholdsUsed(TypedDict):
    """What the queries were decided with (`thresholds_used`)."""

    calibrated: bool
    max_contamination: float | None
    first: float | None
    last: float | None
    min: float | None
    median: float | None
    max: float | None
    sources: dict[str, int]  # queries decided per threshold source


def hindsight(decided: Sequence[Decided], with_history: Sequence[bool], budget: float) -> Hindsight:
    """The best one threshold could have done on these queries, chosen after seeing them all (an upper
    reference for calibration, which may only look back): the highest hit@1 (over the queries with history)
    with contamination within `budget`."""
    scores = sorted({o.score for o, _, _ in decided if o is not None and o.score is not None}, reverse=True)
    n, with_n = len(decided), sum(with_history) or 1
    best: Hindsight = {"threshold": None, "hit_at_1": 0.0, "contaminated_run_rate": 0.0}
    for threshold in [*scores, math.inf]:
        hits = contaminated = 0
        for (obs, hit, dirty), has in zip(decided, with_history, strict=True):
            if obs is not None:
                taken = obs.score is not None and obs.score >= threshold
                hit, dirty = taken and obs.hit, taken and obs.contaminating
            hits += hit and has
            contaminated += dirty
        if n and contaminated / n <= budget and hits / with_n > best["hit_at_1"]:
            best = {
                "threshold": None if math.isinf(threshold) else threshold,
                "hit_at_1": round(hits / with_n, 4),
                "contaminated_run_rate": round(contaminated / n, 4),
            }
    return best


def thresholds_used(used: list[tuple[float, str]], budget: float | None) -> ThresholdsUsed:
    """What the queries were decided with: the budget, the thresholds' range and middle, the last one,
    and how many queries each source decided."""
    values = [t for t, _ in used]
    sources: dict[str, int] = {}
    for _, source in used:
        sources[source] = sources.get(source, 0) + 1
    return {
        "calibrated": budget is not None,
        "max_contamination": budget,
        "first": round(values[0], 4) if values else None,
        "last": round(values[-1], 4) if values else None,
        "min": round(min(values), 4) if values else None,
        "median": round(percentile(values, 50), 4) if values else None,
        "max": round(max(values), 4) if values else None,
        "sources": sources,
    }


def history_outcomes(history: list[tuple[str, str]], now: float) -> list[dict[str, object]]:
    """The history as successful past runs of one device, a day old, newest first."""
    return [
        {
            "run_id": f"history-{i}",
            "ts_start": now - 86400 - i,
            "ts_end": now - 86400 - i + 30,
            "device_scope": f"device:{DEVICE}",
            "goal_text": goal,
            "apps": [package],
            "success": True,
            "reason": "finished",
            "steps": 2,
            "verifier": "pass",
        }
        for i, (goal, package) in enumerate(history)
    ]


def _detail(
    memory: Memory, run_id: str, query: dict[str, str], status: str, ev: Evaluation | None
) -> dict[str, object]:
    trace = memory.recall.recall_trace(run_id)
    top = trace.recall.candidates[0] if trace and trace.recall.candidates else None
    sure = (trace.recall.confidence or None) if trace else None
    by = (top.goal or (f"mention {top.term}" if top.term else "")) if top else ""
    return {
        "goal": query["goal"],
        "actual": query["actual"],
        "has_history": query.get("has_history", "1") != "0",
        "status": status,
        "recalled": " ".join(ev["recalled_apps"] if ev else []),
        "hit_at_1": bool(ev and ev["hit_at_1"]),
        "contaminated": bool(ev and ev["contaminated_run"]),
        "score": top.score if top else None,
        "vector": top.vector if top else None,
        "ownership": top.ownership if top else None,
        "by": by,
        "confidence": sure.value if sure else None,
        "top_app": " ".join(sure.top_app if sure else []),
        "runner_up": " ".join(sure.runner_up if sure else []),
        "margin": sure.margin if sure else None,
    }


def write_details(path: Path, rows: list[dict[str, object]]) -> None:
    """The per-query rows as TSV, one line each (tabs and newlines in texts become spaces)."""

    def cell(value: object) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return str(int(value))
        return " ".join(str(value).split())

    lines = ["\t".join(DETAIL_COLUMNS)] + ["\t".join(cell(r[c]) for c in DETAIL_COLUMNS) for r in rows]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def sample_history(
    history: list[tuple[str, str]], queries: list[dict[str, str]], size: int, seed: int
) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """`size` history rows drawn at random (reproducibly, by `seed`; in file order), and the
    queries with `has_history` set again: whether the sample holds a past run of their app."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidInput(f"history sample must be a whole number of rows, 1 or more (got {size!r})")
    if size < len(history):
        picked = sorted(random.Random(seed).sample(range(len(history)), size))
        history = [history[i] for i in picked]
    seen = {package for _, package in history}
    return history, [{**q, "has_history": str(int(q["actual"] in seen))} for q in queries]


def run_eval(
    config: Config,
    history_path: Path,
    queries_path: Path,
    *,
    fresh_home: bool,
    embed_model: str | None = None,
    details_path: Path | None = None,
    history_sample: int | None = None,
    seed: int = 0,
    calibrate: bool = True,
    max_contamination: float | None = None,
    scoring: str | None = None,
) -> RecallReport:
    """Read the files (errors before anything opens), then evaluate in a fresh or the given home.

    `scoring` evaluates another confidence than JIYI_RECALL_SCORING's (recall.confidence)."""
    history = read_history(history_path)
    queries = read_recall_queries(queries_path)
    rows = len(history)
    if history_sample is not None:
        history, queries = sample_history(history, queries, history_sample, seed)
    if details_path is not None and (details_path.is_dir() or not details_path.parent.is_dir()):
        raise InvalidInput(f"--details {details_path}: not a file in an existing folder")
    details: list[dict[str, object]] | None = [] if details_path is not None else None
    values = dict(config.values)
    if max_contamination is not None:
        values["recall_max_contamination"] = check_setting(
            "recall_max_contamination", max_contamination, "--max-contamination"
        )
    if embed_model:
        values["embed_model"] = embed_model
    if scoring is not None:
        values["recall_scoring"] = check_setting("recall_scoring", scoring, "--scoring")
    values["memory_rag"] = "shadow" if values["memory_rag"] == "off" else values["memory_rag"]
    if not fresh_home:
        with Memory.open(dataclasses.replace(config, values=values)) as memory:
            report = evaluate(memory, history, queries, details, calibrate=calibrate)
    else:
        with tempfile.TemporaryDirectory(prefix="jiyi-eval-") as tmp:
            values["home"] = str(Path(tmp) / "home")
            values["database_url"] = values["database_password_file"] = ""  # its own file, never a shared server
            with Memory.open(Config(values, config.sources)) as memory:
                report = evaluate(memory, history, queries, details, calibrate=calibrate)
    if details_path is not None and details is not None:
        write_details(details_path, details)
    if history_sample is not None:
        report["history_sample"] = {"rows": len(history), "of": rows, "seed": seed}
    return report
