"""Per-device calibration of episode recall's threshold (docs/recall.md, Calibration).

Recall abstains below a threshold. A fixed one suits one history length only,
so each device earns its own from its scored shadow recalls: every run's top
episode candidate, with its score and whether its apps were really launched,
is an `Observation`. Lowering the threshold recalls more, right and wrong;
contamination is the share of runs that would recall an app not launched,
over all the runs the threshold decides.

A device's own evaluations decide (`within_budget`), and the budget is a
promise about the runs the device really has: its contamination over its
scored runs so far and as many runs again (`HORIZON_RUNS` at least) must stay
within the budget, at the upper bound (`Z` standard errors, one-sided 84 %)
of what the runs ahead may bring. Those so far are known: the runs its
thresholds really let contamination through for, and those that recalled an
app not launched only because the task named it (an `Account`: the recall
page's contaminated runs, all of them). Those ahead are predicted from the
evaluations (each tells what any threshold would have done with it), beside
the share of runs the task's own naming contaminated so far (no threshold
decides those, so the threshold is held to what they leave of the budget),
with the margin that what few of them can tell calls for:
the spread of the next runs' count at a rate known from that many (the
beta-binomial of a Jeffreys prior), never the measured rate itself. So few
evaluations give a stricter threshold and more of them let it loosen as far
as they show is safe; a device that really let more through than its
budget's share is held to less until it is back, and one that stayed well
within spends what it kept — the budget is spent, not undershot — slowly:
what it kept counts for at most a quarter of the budget over the runs
ahead (`SPEND`), so a stretch of the device's runs never sees much more than
its budget. Every threshold is chosen from the runs scored before the ones
it decides (prequential).

Until a device has `MIN_EVALUATIONS` scored runs, a prior decides instead,
unless its own evaluations already show that prior's threshold contaminates
over the budget (`shown_over`: their lower bound, `Z_EVIDENCE`, is over it;
then they decide at once): the same choice made over a leave-one-out of its
past successful runs (`decide`, anchored at the embedder's fixed threshold:
loosened to the loosest one whose Wilson upper bound at `Z_LOOSEN` is within
the budget, tightened only when the contamination at the fixed threshold is
over the budget by its lower bound at `Z_TIGHTEN`). It may make the
threshold stricter; looser only where the history is mostly one run per app
(`SINGLES_TO_LOOSEN` of its runs are their app's only one): on histories
with variants of the same task a run's sibling is almost always there,
unlike for a new task, so leave-one-out is over-optimistic, while on one run
per app it sees mostly runs with no relevant history left and errs the safe
way. With fewer than `MIN_LEAVE_ONE_OUT` past runs the embedder's fixed
threshold is the prior.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TypedDict, cast

from recall.confidence import DEFAULT_SCORING

# Standard errors of the one-sided bounds (docs/recall.md, Calibration): what a device's contamination over its runs
# is held to (the bound the curve shows: one standard error, 84 %) and how clearly its evaluations must show the
# prior over the budget to overrule it early (two: a few unlucky runs do not); the leave-one-out prior's own guards.
Z = 1.0
Z_EVIDENCE = 2.0
Z_LOOSEN = 0.5
Z_TIGHTEN = 1.0
MIN_EVALUATIONS = 30
HORIZON_RUNS = 60  # the fewest runs ahead a device's budget is kept over, beside those it has had (`projected`)
SPEND = 1.25  # what a device kept of its budget is spent at most at this many times the budget over the runs ahead
MIN_LEAVE_ONE_OUT = 30
SINGLES_TO_LOOSEN = 0.5  # the share of past runs that are their app's only one, for leave-one-out to loosen
SINGLES_TIGHTEN = False  # whether such a leave-one-out may also tighten (measured: docs/recall.md, Calibration)
RECENT = 1000  # the evaluations a device is calibrated on, newest
CURVE_POINTS = 60
SOURCES = ("evaluations", "leave-one-out", "default")


@dataclass(frozen=True)
class Observation:
    """One decision the threshold makes: the best episode candidate's score and what it would have done.

    `score` None: nothing could be recalled (no past run came close), so no threshold recalls anything.
    `contaminating`: recalling its apps would make the run contaminated — one of them was not launched, and
    the apps the task names (recalled whatever the threshold) did not already make it so.
    """

    score: float | None
    hit: bool
    contaminating: bool


@dataclass(frozen=True)
class CurvePoint:
    """What a threshold would have done over the observations: rates over all of them."""

    threshold: float
    hit_at_1: float
    contamination: float
    bound: float  # the contamination's upper bound, what the budget is held against
    recalled: int


class CurvePointJson(TypedDict):
    threshold: float
    hit_at_1: float
    contamination: float
    bound: float
    recalled: int


class CalibrationJson(TypedDict):
    """`Calibration` as JSON: its fields, the curve's points as objects."""

    device: str
    embedder: str
    threshold: float
    source: str
    sample_size: int
    budget: float
    computed_at: float
    curve: list[CurvePointJson]


@dataclass(frozen=True)
class Calibration:
    """A device's threshold, where it came from, over how many runs, and the curve it was read from."""

    device: str
    embedder: str
    threshold: float
    source: str  # one of SOURCES
    sample_size: int
    budget: float
    computed_at: float
    curve: list[CurvePoint] = field(default_factory=list)

    def to_dict(self) -> CalibrationJson:
        return cast(CalibrationJson, asdict(self))  # its fields, as they are (the curve's points as objects)

    @classmethod
    def from_dict(cls, data: CalibrationJson) -> Calibration:
        return cls(
            device=data["device"],
            embedder=data["embedder"],
            threshold=data["threshold"],
            source=data["source"],
            sample_size=data["sample_size"],
            budget=data["budget"],
            computed_at=data["computed_at"],
            curve=[CurvePoint(**point) for point in data.get("curve", [])],
        )


def upper_bound(k: int, n: int, z: float | None = None) -> float:
    """The Wilson score interval's upper end for `k` events in `n` trials (1 when `n` is 0); `z`: `Z`."""
    z = Z if z is None else z
    if n <= 0:
        return 1.0
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return min(1.0, (centre + spread) / (1 + z2 / n))


def lower_bound(k: int, n: int, z: float = Z_TIGHTEN) -> float:
    """The Wilson score interval's lower end for `k` events in `n` trials (0 when `n` is 0)."""
    if n <= 0:
        return 0.0
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, (centre - spread) / (1 + z2 / n))


def _ranked(observations: Iterable[Observation]) -> list[Observation]:
    return sorted((o for o in observations if o.score is not None), key=lambda o: -(o.score or 0.0))


def loosest(
    observations: Sequence[Observation], budget: float, z: float | None = None, *, bound: str = "upper"
) -> float | None:
    """The lowest score whose contamination bound, recalling everything at or above it, is within `budget`.

    `bound` "upper" (default): the Wilson upper bound must be within (safe to
    recall this much); "lower": the lower bound (not yet shown to be over).
    None when even the best-scored run alone breaks the budget (recall nothing).
    Contamination only grows as the threshold falls, so one pass from the top finds it.
    """
    n = len(observations)
    chosen: float | None = None
    contaminated = 0
    ranked = _ranked(observations)
    for i, obs in enumerate(ranked):
        contaminated += obs.contaminating
        tied = i + 1 < len(ranked) and ranked[i + 1].score == obs.score
        if tied:
            continue  # a threshold takes all runs of one score or none
        if bound == "upper":
            over = upper_bound(contaminated, n, z)
        else:
            over = lower_bound(contaminated, n, Z_TIGHTEN if z is None else z)
        if over > budget:
            break
        chosen = obs.score
    return chosen


@dataclass(frozen=True)
class Account:
    """What a device's recalls really did: of its last `scored` runs, `contaminated` recalled an app that was
    neither launched nor named by the task (its thresholds let that through: `contaminated`), and `named` more
    recalled an app not launched only because the task named it (`named_alone`: whatever the threshold)."""

    contaminated: float
    scored: int
    named: int = 0


def neutral(observations: Sequence[Observation], budget: float) -> Account:
    """An account with nothing kept and nothing owed: as many runs as observations, at exactly the budget."""
    return Account(budget * len(observations), len(observations))


def projected(k: int, n: int, account: Account, budget: float, z: float = Z, spend: float = SPEND) -> float:
    """The upper bound (`z` standard errors) of a device's contamination over its scored runs and as many runs
    again (`HORIZON_RUNS` at least) when a threshold that would have contaminated `k` of its `n` evaluations
    decides the runs ahead: the account's runs as they were (what they kept of the `budget` counting for at most
    `spend` − 1 of it over the runs ahead), the ones ahead at the beta-binomial's spread (a Jeffreys prior
    updated by the evaluations: the rate's uncertainty and the runs' own noise), each also contaminated by the
    task's own naming at the share the account's runs were."""
    ahead = max(account.scored, HORIZON_RUNS)
    counted = max(account.contaminated + account.named, budget * account.scored - (spend - 1) * budget * ahead)
    named = account.named / account.scored if account.scored else 0.0
    rate = min(1.0, (k + 0.5) / (n + 1) + named)
    spread = math.sqrt(ahead * rate * (1 - rate) * (n + 1 + ahead) / (n + 2))
    return min(1.0, (counted + ahead * rate + z * spread) / (account.scored + ahead))


def within_budget(
    observations: Sequence[Observation],
    budget: float,
    account: Account | None = None,
    z: float = Z,
    spend: float = SPEND,
) -> float:
    """The loosest threshold whose `projected` contamination is within `budget` (see the module docstring); one
    above every score when none is. `account` None: `neutral`."""
    account = neutral(observations, budget) if account is None else account
    n = len(observations)
    chosen: float | None = None
    contaminated = 0
    ranked = _ranked(observations)
    for i, obs in enumerate(ranked):
        contaminated += obs.contaminating
        if i + 1 < len(ranked) and ranked[i + 1].score == obs.score:
            continue  # a threshold takes all runs of one score or none
        if projected(contaminated, n, account, budget, z, spend) > budget:
            break
        chosen = obs.score
    return chosen if chosen is not None else above_all(observations)


def evidence_decides(observations: Sequence[Observation], prior: float, budget: float) -> bool:
    """Whether a device's own evaluations choose its threshold rather than its `prior`: from `MIN_EVALUATIONS` of
    them, or earlier when they show the prior's threshold over the budget (`shown_over`)."""
    return len(observations) >= MIN_EVALUATIONS or shown_over(observations, prior, budget)


def shown_over(observations: Sequence[Observation], threshold: float, budget: float, z: float = Z_EVIDENCE) -> bool:
    """Whether the observations show `threshold` contaminating over `budget`: the lower bound of the rate of runs
    it would recall an app not launched for is over it."""
    dirty = sum(o.contaminating for o in observations if o.score is not None and o.score >= threshold)
    return lower_bound(dirty, len(observations), z) > budget


def decide(observations: Sequence[Observation], budget: float, default: float) -> float:
    """The threshold leave-one-out observations earn, anchored at the embedder's `default` (the prior, see the
    module's docstring)."""
    safe = loosest(observations, budget, Z_LOOSEN)
    if safe is not None and safe < default:
        return safe
    n = len(observations)
    at_default = sum(o.contaminating for o in observations if o.score is not None and o.score >= default)
    if lower_bound(at_default, n, Z_TIGHTEN) <= budget:
        return default
    tighter = loosest(observations, budget, Z_TIGHTEN, bound="lower")
    return tighter if tighter is not None else above_all(observations)


def curve(
    observations: Sequence[Observation],
    z: float | None = None,
    points: int = CURVE_POINTS,
    keep: float | None = None,
    account: Account | None = None,
    budget: float = 0.0,
) -> list[CurvePoint]:
    """hit@1, contamination and its bound at thresholds from the best score down (about `points` of them,
    and the one at `keep`, the chosen threshold, whatever the spacing). The bound: with a device's `account`,
    its `projected` contamination against `budget` (what its threshold is held to); without, the Wilson upper
    bound."""
    n = len(observations)
    ranked = _ranked(observations)
    if not n or not ranked:
        return []
    out: list[CurvePoint] = []
    hits = contaminated = 0
    step = max(1, math.ceil(len(ranked) / points))
    for i, obs in enumerate(ranked):
        hits += obs.hit
        contaminated += obs.contaminating
        last = i + 1 == len(ranked)
        if not last and (ranked[i + 1].score == obs.score or ((i + 1) % step and obs.score != keep)):
            continue
        out.append(
            CurvePoint(
                round(float(obs.score or 0.0), 4),
                round(hits / n, 4),
                round(contaminated / n, 4),
                round(
                    upper_bound(contaminated, n, z)
                    if account is None
                    else projected(contaminated, n, account, budget, Z if z is None else z),
                    4,
                ),
                i + 1,
            )
        )
    return out


def above_all(observations: Sequence[Observation]) -> float:
    """A threshold that recalls none of the observations (just above the best score)."""
    best = max((o.score for o in observations if o.score is not None), default=0.0)
    return round(best + 1e-4, 6)


def choose(
    device: str,
    embedder: str,
    observations: Sequence[Observation],
    source: str,
    budget: float,
    now: float,
    default: float,
    *,
    may_loosen: bool | None = None,
    may_tighten: bool = True,
    account: Account | None = None,
) -> Calibration:
    """The calibration a set of observations gives, with its curve.

    A device's own evaluations (`source` "evaluations"): `within_budget`, with the device's `account` (None:
    `neutral`). A leave-one-out: `decide`, anchored at `default`; `may_loosen` False: never looser than
    `default` (None: False unless its history is mostly one run per app, the caller says so), `may_tighten`
    False: never stricter."""
    if source == "evaluations":
        account = neutral(observations, budget) if account is None else account
        threshold = within_budget(observations, budget, account)
    else:
        threshold = decide(observations, budget, default)
        if not (source != "leave-one-out" if may_loosen is None else may_loosen):
            threshold = max(threshold, default)
        if not may_tighten:
            threshold = min(threshold, default)
    points = curve(observations, keep=threshold, account=account, budget=budget)
    return Calibration(device, embedder, round(threshold, 6), source, len(observations), budget, now, points)


def singles_share(apps_of_runs: Sequence[Sequence[str]]) -> float:
    """The share of past runs whose app has no other past run (0 for none): how far a history is one per app."""
    counts: dict[tuple[str, ...], int] = {}
    for apps in apps_of_runs:
        counts[tuple(apps)] = counts.get(tuple(apps), 0) + 1
    runs = sum(counts.values())
    return sum(n for n in counts.values() if n == 1) / runs if runs else 0.0


def fixed(device: str, embedder: str, threshold: float, budget: float, now: float, sample_size: int = 0) -> Calibration:
    """The embedder's own threshold, for a device with too little evidence yet."""
    return Calibration(device, embedder, threshold, "default", sample_size, budget, now)


def contaminated(trace: Mapping[str, object]) -> bool:
    """Whether a scored shadow recall really recalled an app that was neither launched nor named by the task:
    contamination its threshold let through. An app the task names is recalled whatever the threshold (seed
    000), so a run whose agent then launched another one (or none) is no evidence about the threshold."""
    evaluation = trace.get("evaluation")
    if not isinstance(evaluation, dict):
        return False

    def apps(key: str) -> set[str]:
        found = evaluation.get(key)
        return {a for a in found if isinstance(a, str)} if isinstance(found, list) else set()

    return bool(apps("recalled_apps") - apps("actual_apps") - apps("intent_apps"))


def named_alone(trace: Mapping[str, object]) -> bool:
    """Whether a scored shadow recall recalled an app not launched only because the task named it: a contaminated
    run on the recall page that no threshold decided (it counts against the budget all the same)."""
    evaluation = trace.get("evaluation")
    return isinstance(evaluation, dict) and bool(evaluation.get("contaminated_run")) and not contaminated(trace)


def observation_of(trace: Mapping[str, object], scoring: str = DEFAULT_SCORING) -> Observation | None:
    """The observation a scored shadow recall holds, or None when the threshold did not decide it.

    It is the recall's confidence in its top app (recall.confidence; kept in
    the trace whether recalled or not) against the apps really launched. A
    trace weighed by another `scoring` is left out (its numbers are on
    another scale), and so is one from before the confidence was kept —
    except for the `top` scoring, whose number is the best episode
    candidate's score among those weighed. A recall decided by the task
    naming its app, with no episode candidate, is left out; one with no
    candidate at all is kept (no threshold would have recalled anything).
    Where the apps the task names were not launched, the run is contaminated
    whatever the threshold (`named_alone` counts it), so its top app would
    add none.
    """
    recall = trace.get("recall")
    evaluation = trace.get("evaluation")
    if not isinstance(recall, dict) or not isinstance(evaluation, dict) or recall.get("degraded"):
        return None  # a recall by the words alone (the embedding server down) had no threshold to decide
    actual = {a for a in evaluation.get("actual_apps", []) if isinstance(a, str)}
    named = evaluation.get("intent_apps")
    already = isinstance(named, list) and any(isinstance(a, str) and a not in actual for a in named)
    if isinstance(recall.get("confidence"), dict):
        sure = recall["confidence"]
        value = sure.get("value")
        if sure.get("scoring") != scoring or not isinstance(value, int | float) or isinstance(value, bool):
            return None
        apps = {a for a in sure.get("top_app", []) if isinstance(a, str)}
        return Observation(float(value), bool(apps & actual), bool(apps - actual) and not already)
    weighed = recall.get("considered")
    if weighed is None:
        if recall.get("status") != "ok":
            return None
        weighed = recall.get("candidates") or []
    if not isinstance(weighed, list):
        return None
    episodes = [c for c in weighed if isinstance(c, dict) and c.get("source") == "episode"]
    if not episodes:
        if any(isinstance(c, dict) and c.get("source") == "mention" for c in weighed):
            return None
        return Observation(None, False, False)
    if "confidence" not in recall and scoring != "top":
        return None  # from before the confidence was kept: only the top score is known
    top = episodes[0]
    apps = {a for a in top.get("apps", []) if isinstance(a, str)}
    score = top.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return None
    return Observation(float(score), bool(apps & actual), bool(apps - actual) and not already)
