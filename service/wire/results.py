"""What the facade's operations answer as JSON objects, typed (`TypedDict`): the console, the CLI and the
socket read the keys the facade writes, and mypy checks both sides. Nothing here needs the database: a
command attached to a service decodes its answers into these.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from service.wire.episodes import DailyRecallPoint, Evaluation
from service.wire.recall import CalibrationCurve, DeviceCalibration
from service.wire.upkeep import DreamRecord, DreamStep

JsonObject = dict[str, Any]


class RecallSummary(TypedDict):
    """What a run's start says of its shadow recall (never what was recalled: that is logged only)."""

    mode: str
    status: str
    latency_ms: float


class LessonGiven(TypedDict):
    lesson_id: str
    text: str


class RunStarted(TypedDict):
    run_id: str
    device: str
    inventory: JsonObject | None
    recall: RecallSummary
    lessons: NotRequired[list[LessonGiven]]  # in `on` mode only


class RunEventReceipt(TypedDict):
    event: JsonObject
    archived: bool
    successes: int
    learned: list[JsonObject]
    evidence: list[str]


class RunFinished(TypedDict):
    run_id: str
    known: bool
    archived: bool
    indexed: bool
    episode: JsonObject | None
    recall_evaluation: Evaluation | None
    seconds: float | None


class IngestReport(TypedDict):
    runs: int
    events: int
    indexed: int  # runs through the quality gate, now in the vector index and the term counts
    seconds: float


class InteractionRemembered(TypedDict):
    interaction_id: str
    created: bool
    workday: str
    truncated: bool


class TaskCompleted(TypedDict):
    card: JsonObject
    changed: bool
    bundle_id: str | None
    bundle_paths: list[str]


class ConsolidationRecorded(TypedDict):
    kind: str
    workday: str | None
    ts: str
    deactivated_facts: list[str]


class DocumentWritten(TypedDict):
    bundle_id: str
    path: str
    revision: int
    changed: bool
    content: str
    outside_edit_kept: str | None  # what was kept of an edit made outside Jiyi, if any
    mirror_problem: str | None


class LeaseState(TypedDict):
    batch_id: str
    interactions: int
    expires_in_seconds: float


class MaintenanceStatus(TypedDict):
    now: str
    workday: str
    backlog: int
    oldest_unarchived: str | None
    last_activity: str | None
    idle_seconds: float | None
    idle_threshold_seconds: int
    should_consolidate: bool
    previous_workday: str
    previous_workday_needs_review: bool
    leases: list[LeaseState]


class MaintenancePlan(TypedDict):
    batch_id: str | None
    interactions: list[JsonObject]
    lease_expires_in: int
    open_topics: list[JsonObject]
    backlog: int


class RecallWindow(TypedDict):
    since: float | None
    until: float | None


class PackageStatistics(TypedDict):
    """One package's precision and recall over a window, and the name a device's inventory gives it."""

    package: str
    true_positives: int
    predictions: int
    actuals: int
    precision: float
    recall: float
    label: str | None  # None when no device names it


class RecallStatistics(TypedDict):
    mode: str
    embedder: str
    window: RecallWindow
    totals: JsonObject
    daily: list[DailyRecallPoint]
    packages: list[PackageStatistics]
    calibration: list[CalibrationCurve]  # each device's threshold: source, sample size, when, curve


# `pass` is a keyword, so this one is spelt in the functional form.
DreamReport = TypedDict(
    "DreamReport",
    {
        "ts": float,
        "pass": str,  # "full" or "light"
        "dry_run": bool,
        "steps": list[DreamStep],
        "changed": bool,
        "seq": NotRequired[int],  # a stored (real) pass only
    },
)


class HomeSize(TypedDict):
    """What `health` says of the home's size: `bytes` used (the last estimate), the budget (None: no budget)."""

    bytes: int
    budget_bytes: int | None
    over_budget: bool


class WriteTotals(TypedDict):
    """Totals since the store opened (times in milliseconds)."""

    transactions: int  # committed write transactions
    lock_wait_ms: float  # from BEGIN until the write lock was held (one round trip included)
    lock_held_ms: float  # from holding the lock until the commit returned
    statements: int  # round trips to a database server while holding it (0 on SQLite: no server)


class StoreCounts(TypedDict):
    """What `health` counts (once per change)."""

    schema_version: int
    app_kb_entries: int
    events: int
    episodes: int
    devices: list[str]
    desk: dict[str, int]
    home_size: HomeSize  # bytes used (an estimate), the budget, whether it is reached


class Health(StoreCounts):
    version: str
    pid: int
    home: str
    database: str
    rag_mode: str
    registry_apps: int
    active_runs: int
    abandoned_runs: int  # runs dropped unfinished because too many were under way
    archive_failures: int
    writes: WriteTotals  # this process's write transactions: the write lock waited for and held
    database_problem: str | None  # why writes are refused: the file damaged at open, moved away, replaced
    read_only: str | None  # why the home takes no writes (a read-only file system, a folder not yours to write)
    vector_index_problem: str | None  # the vector index missing (recall finds no past run by meaning)


class Overview(Health):
    embedder: str
    index: JsonObject
    desk_index: JsonObject  # the desk index: index_lag, open, running, problem
    recall_quality: JsonObject
    recall_calibration: list[DeviceCalibration]
    last_dream: DreamRecord | None
    errors: JsonObject
