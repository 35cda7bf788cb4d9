"""How sure episode recall is of its top app: the number the device's threshold is held against.

Recall weighs one candidate per app (`EpisodeRecall.weigh`: vector + w × term
ownership). What it decides on is a *confidence* over those apps
(docs/recall.md, Confidence):

* `margin` (default): s1 + λ × (s1 − s2) — the top app's score plus part of
  its lead over the runner-up (λ per embedder, 0.5: measured against 0.25, 1
  and 2 on the paraphrase set and the instruction split). A task that
  reads like one past run of one app and like nothing of any other app is a
  safer answer than one whose two best apps are level; the raw top score
  cannot tell them apart. With a single app among the neighbours there is no
  runner-up and the lead counts as 0 (nothing says the app stands out).
* `top`: s1, the top app's score alone (Jiyi's scoring before the margin).
* `reference`: TaskWizard's hybrid score of the best single episode,
  0.75 × vector + 0.25 × keyword (shared/reference/taskwizard-memory.md
  §recall), apps ranked by it — kept for comparison (`jiyi eval recall
  --scoring reference`), without the reference's separate vector gate.

App mentions never go through this: a task that names its app recalls it
first, whatever any score says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Protocol, TypedDict, TypeVar, cast

SCORINGS = ("margin", "top", "reference")
DEFAULT_SCORING = "margin"
REFERENCE_VECTOR, REFERENCE_KEYWORD = 0.75, 0.25


class Weighed(Protocol):
    """What the confidence reads of a weighed candidate (`RecallCandidate`)."""

    @property
    def apps(self) -> list[str]: ...

    @property
    def score(self) -> float: ...

    @property
    def vector(self) -> float | None: ...

    @property
    def keyword(self) -> float | None: ...


C = TypeVar("C", bound=Weighed)


class ConfidenceJson(TypedDict):
    """`Confidence` as JSON (a recall trace keeps it)."""

    scoring: str
    value: float
    top_app: list[str]
    top: float
    runner_up: list[str]
    second: float | None
    margin: float
    lead_weight: float


@dataclass(frozen=True)
class Confidence:
    """The decision's evidence: the scoring, its value, the top app and the runner-up with their scores."""

    scoring: str
    value: float
    top_app: list[str]
    top: float
    runner_up: list[str]  # empty: no other app among the neighbours
    second: float | None
    margin: float  # top − second (0 without a runner-up)
    lead_weight: float = 1.0  # λ: how much of the margin counts (scoring `margin`)

    def to_dict(self) -> ConfidenceJson:
        return cast(ConfidenceJson, asdict(self))  # its fields, as they are


def reference_score(candidate: Weighed) -> float:
    """The reference's hybrid score of a candidate's episode: 0.75 × vector + 0.25 × keyword."""
    return REFERENCE_VECTOR * float(candidate.vector or 0.0) + REFERENCE_KEYWORD * float(candidate.keyword or 0.0)


def rank(weighed: Sequence[C], scoring: str) -> list[C]:
    """The candidates in the order `scoring` ranks apps (the weighed order, but by the hybrid for `reference`)."""
    if scoring == "reference":
        return sorted(weighed, key=lambda c: -reference_score(c))  # stable: ties keep the weighed order
    return list(weighed)


def confidence(ranked: Sequence[Weighed], scoring: str, lead_weight: float = 1.0) -> Confidence | None:
    """How sure recall is of `ranked[0]` (ranked by `rank`); None when nothing was weighed."""
    if scoring not in SCORINGS:
        raise ValueError(f"unknown recall scoring {scoring!r}; choose one of {', '.join(SCORINGS)}")
    if not ranked:
        return None
    of = reference_score if scoring == "reference" else (lambda c: float(c.score))
    top = of(ranked[0])
    second = of(ranked[1]) if len(ranked) > 1 else None
    margin = max(0.0, top - second) if second is not None else 0.0
    value = top + lead_weight * margin if scoring == "margin" else top
    return Confidence(
        scoring,
        round(value, 4),
        list(ranked[0].apps),
        round(top, 4),
        list(ranked[1].apps) if len(ranked) > 1 else [],
        None if second is None else round(second, 4),
        round(margin, 4),
        lead_weight if scoring == "margin" else 0.0,
    )
