"""The episode archive's, the lessons' and recall's rows as the store answers them (see `store.core.rows`)."""

from __future__ import annotations

from typing import TypedDict

from msgspec import UNSET, UnsetType

from store.core.rows import Row

# -- episodes ----------------------------------------------------------------------------------


class Episode(Row, frozen=True, kw_only=True):
    """An archived run: the reference's `episode_outcome` record and whether it is revoked (`episode.list`).

    The archive keeps each record with its keys sorted, so its fields are in that order here (then `revoked`).
    The fields the reference added over time are `UNSET` on a record written before them (and left out of
    its JSON, as the record has none)."""

    apps: list[str]
    capabilities: dict[str, str] | UnsetType = UNSET
    day_of_week: int
    deliverable_path: str | UnsetType | None = UNSET
    device_scope: str
    goal_text: str
    injected_lessons: list[str] | UnsetType = UNSET
    injected_procedures: list[str] | UnsetType = UNSET
    reason: str
    run_id: str
    schema_v: int
    steps: int
    success: bool
    takeover: str | None
    time_of_day: str  # night / morning / afternoon / evening
    tokens_by_role: dict[str, int]
    tokens_total: int
    ts_end: float
    ts_start: float
    type: str  # "episode_outcome"
    verifier: str  # pass / fail / skipped
    warnings: int
    revoked: bool


class ToolEventRow(Row, frozen=True):
    """One tool receipt of a run's timeline."""

    step: int
    ts: float
    tool: str
    result_class: str
    app_package: str | None
    intent: str | None
    note: str | None


class EpisodeDetail(Episode, frozen=True, kw_only=True):
    """An archived run with its tool-event timeline, in step order (`episode.get`)."""

    events: list[ToolEventRow]


# -- lessons ---------------------------------------------------------------------------------


class Lesson(Row, frozen=True):
    """A lesson (or a procedure card imported from TaskWizard) and its status (`lesson.list`)."""

    lesson_id: str
    text: str
    apps: list[str]  # the packages it is about
    status: str  # proposed / approved / revoked (and TaskWizard's own)
    kind: str
    version: int
    created: str
    updated: str


class LessonRun(Row, frozen=True):
    """A run a lesson was learned from or given to; an unarchived run has only its id."""

    run_id: str
    archived: bool
    goal_text: str | UnsetType = UNSET
    ts_end: float | UnsetType = UNSET
    success: bool | UnsetType = UNSET


class LessonRuns(Row, frozen=True):
    """The runs a lesson was learned from and the runs it was given to (`lesson.runs`)."""

    learned_from: list[LessonRun]
    given_to: list[LessonRun]


# -- recall ------------------------------------------------------------------------------------


class DailyRecallPoint(Row, frozen=True):
    """One local day of scored shadow recall: its counters and rates (the recall page's charts)."""

    day: str  # YYYY-MM-DD, local
    evaluations: int
    recall_runs: int
    hits: int
    hit_at_1_count: int
    contaminated_runs: int
    package_true_positives: int
    package_predictions: int
    package_actuals: int
    hit_rate: float
    hit_at_1: float
    conditional_hit_rate: float
    contaminated_run_rate: float
    package_precision: float
    package_recall: float
    abstain_rate: float


class ReferenceEvaluation(TypedDict):
    """The reference's per-run evaluation, as its `latest` holds it (app lists sorted, rates to 6 decimals)."""

    hit: bool
    hit_at_1: bool
    conditional_hit: bool
    contaminated_run: bool
    false_hit: bool
    recalled_apps: list[str]
    actual_apps: list[str]
    intent_apps: list[str]
    matched_apps: list[str]
    package_true_positives: int
    package_predictions: int
    package_actuals: int
    package_precision: float
    package_recall: float
    precision_at_k: float
    recall_at_k: float


class Evaluation(ReferenceEvaluation):
    """The evaluation a `recall_evaluated` event keeps: the reference's, plus Jiyi's `top1_apps`."""

    top1_apps: list[str]
