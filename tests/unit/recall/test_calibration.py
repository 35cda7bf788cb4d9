"""Choosing a device's threshold from its scored recalls: the guard, the loosest threshold, the curve."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from recall.calibration import (
    HORIZON_RUNS,
    SPEND,
    Account,
    Calibration,
    Observation,
    choose,
    contaminated,
    curve,
    decide,
    evidence_decides,
    loosest,
    lower_bound,
    named_alone,
    neutral,
    observation_of,
    projected,
    shown_over,
    singles_share,
    upper_bound,
    within_budget,
)


def right(score: float) -> Observation:
    return Observation(score, True, False)


def wrong(score: float) -> Observation:
    return Observation(score, False, True)


def test_the_wilson_bound_is_above_the_rate_and_tightens_with_more_runs() -> None:
    assert upper_bound(0, 0) == 1.0
    few, many = upper_bound(1, 10), upper_bound(10, 100)
    assert few > many > 0.10  # the same 10 % is less certain over 10 runs than over 100
    assert upper_bound(0, 30, z=1.645) < 0.10 < upper_bound(0, 5, z=1.645)  # five clean runs prove little
    assert lower_bound(1, 10) < 0.10 < lower_bound(5, 20) and lower_bound(0, 0) == 0.0
    assert upper_bound(100, 100) == pytest.approx(1.0)


def test_the_loosest_threshold_within_budget_is_chosen() -> None:
    # 60 right answers scored 0.99..0.93, then wrong ones from 0.925 down, then right ones again.
    observations = [right(0.99 - i * 0.001) for i in range(60)]
    observations += [wrong(0.925 - i * 0.001) for i in range(20)]
    observations += [right(0.80 - i * 0.001) for i in range(20)]
    threshold = loosest(observations, 0.10)
    assert threshold is not None
    taken = [o for o in observations if o.score is not None and o.score >= threshold]
    bad = sum(o.contaminating for o in taken)
    assert upper_bound(bad, len(observations)) <= 0.10
    # one step looser breaks the budget
    looser = max(o.score for o in observations if o.score is not None and o.score < threshold)
    assert upper_bound(bad + 1, len(observations)) > 0.10
    assert looser < threshold and 0.90 < threshold <= 0.925


def test_a_stricter_budget_gives_a_stricter_threshold() -> None:
    rng = random.Random(7)
    observations = [Observation(rng.uniform(0.8, 1.0), *(lambda h: (h, not h))(rng.random() < 0.7)) for _ in range(300)]
    strict, loose = loosest(observations, 0.05), loosest(observations, 0.20)
    assert strict is not None and loose is not None and strict > loose


def test_runs_with_nothing_to_recall_count_in_the_rate_but_never_pass() -> None:
    # 5 wrong at the top would be 5/5 alone; with 95 runs that had nothing near, it is 5/100.
    observations = [wrong(0.95)] * 2 + [Observation(None, False, False)] * 98
    assert loosest(observations, 0.10) == 0.95
    assert loosest(observations[:10], 0.10) is None  # 2 of 10: too many


def test_tied_scores_are_taken_together() -> None:
    observations = [right(0.99)] * 40 + [right(0.9), wrong(0.9), wrong(0.9), wrong(0.9), wrong(0.9)]
    assert loosest(observations, 0.10) == 0.99  # 0.9 takes all five at once, and four wrong break the budget


def test_without_clear_evidence_the_leave_one_out_prior_keeps_the_fixed_threshold() -> None:
    # 2 wrong of 25 at the fixed 0.9: 8 %, but not clearly within 10 % (loosen) nor clearly over (tighten)
    observations = (
        [right(0.95)] * 3 + [wrong(0.93), wrong(0.92)] + [right(0.85)] * 10 + [Observation(None, False, False)] * 10
    )
    assert loosest(observations, 0.10) == 0.93  # safe only above the fixed 0.9
    assert decide(observations, 0.10, default=0.9) == 0.9


def test_the_leave_one_out_prior_loosens_on_clean_evidence_and_tightens_on_clear_contamination() -> None:
    clean = [right(0.99 - i * 0.002) for i in range(40)] + [Observation(None, False, False)] * 20
    assert decide(clean, 0.10, default=0.95) == pytest.approx(0.99 - 39 * 0.002)  # everything seen was right
    dirty = [right(0.99)] * 10 + [wrong(0.96 - i * 0.001) for i in range(15)] + [right(0.85)] * 15
    tighter = decide(dirty, 0.10, default=0.9)
    # 15 of 40 wrong above 0.9 is clearly over: stricter, as far as the evidence demands and no further
    assert 0.9 < tighter < 0.96
    wrong_above = sum(o.contaminating for o in dirty if o.score is not None and o.score >= tighter)
    assert lower_bound(wrong_above, 40) <= 0.10 < lower_bound(wrong_above + 1, 40)


def test_a_devices_contamination_is_held_to_its_projected_bound_not_the_rate() -> None:
    # 2 wrong of 25 down to 0.92: 8 %, within the budget as measured; the next runs at that rate are not
    some = [right(0.95)] * 3 + [wrong(0.93), wrong(0.92)] + [right(0.85)] * 10 + [Observation(None, False, False)] * 10
    chosen = choose("d1", "hash", some, "evaluations", 0.10, now=5.0, default=0.9)
    assert chosen.threshold == 0.95 and chosen.source == "evaluations" and chosen.sample_size == 25
    account = neutral(some, 0.10)
    assert projected(0, 25, account, 0.10) <= 0.10 < projected(1, 25, account, 0.10)
    (point,) = [p for p in chosen.curve if p.threshold == chosen.threshold]
    assert point.bound == pytest.approx(projected(0, 25, account, 0.10), abs=1e-4) and point.contamination == 0.0
    all_wrong = [wrong(0.97), wrong(0.96)] * 10
    assert choose("d1", "hash", all_wrong, "evaluations", 0.10, now=5.0, default=0.9).threshold > 0.97


def test_the_projected_bound_is_above_the_rate_and_tightens_with_more_evaluations() -> None:
    within = Account(0.10 * 100, 100)  # a device exactly at its budget so far
    assert projected(5, 100, within, 0.10) > (10 + 5 / 100 * 100) / 200  # above the rate the evaluations measure
    more = projected(50, 1000, Account(100, 1000), 0.10)
    assert projected(5, 100, within, 0.10) > more > 0.075  # the same 5 %, more of it known
    assert projected(0, 0, Account(0, 0), 0.10) > 0.5  # nothing known: nothing is safe
    # what its thresholds already let through counts as it was ...
    kept, even, owed = (projected(3, 100, Account(c, 100), 0.10) for c in (8, 10, 20))
    assert kept < even < owed
    # ... and what they kept of the budget is spent slowly: over the 100 runs ahead, a quarter of it at most
    at_most = Account(0.10 * 100 - (SPEND - 1) * 0.10 * 100, 100)  # 7.5 of 100: 2.5 kept
    assert projected(3, 100, Account(0, 100), 0.10) == pytest.approx(projected(3, 100, at_most, 0.10))
    # the runs ahead: as many as the device has had, HORIZON_RUNS at least (10 clean runs, then 60 more)
    ahead = projected(0, 10, Account(0, 0), 0.10)
    assert projected(0, 10, Account(0, 10), 0.10) == pytest.approx(ahead * HORIZON_RUNS / (HORIZON_RUNS + 10))


def test_few_evaluations_give_a_stricter_threshold_than_many_at_the_same_rate() -> None:
    block = [right(round(0.99 - i * 0.005, 3)) for i in range(18)] + [wrong(0.95), wrong(0.90)]
    few, many = within_budget(block, 0.10), within_budget(block * 8, 0.10)  # the same mix, over 20 or 160 runs
    assert few == 0.955 and many == 0.905  # 1 wrong of 20 is not shown within 10 %, 8 of 160 are
    assert within_budget([wrong(0.99)] * 3, 0.10) > 0.99  # nothing is safe: recall nothing


def test_the_budget_is_kept_over_the_runs_the_device_really_had() -> None:
    # 60 runs: right down to 0.94, 4 wrong from 0.93 to 0.90, right below
    observations = [right(0.99 - i * 0.001) for i in range(50)] + [wrong(0.93 - i * 0.01) for i in range(4)]
    observations += [right(0.85)] * 6
    at_budget = within_budget(observations, 0.10, Account(6, 60))
    assert at_budget == within_budget(observations, 0.10) == 0.91  # its account at the budget: no more, no less
    # it let 10 through (4 over the budget's share): held to less until it is back
    assert within_budget(observations, 0.10, Account(10, 60)) > at_budget
    # it let 2 through: what it kept is spent, down to the right answers below the wrong ones
    assert within_budget(observations, 0.10, Account(2, 60)) == 0.85
    assert within_budget(observations, 0.10, Account(30, 60)) > 0.99  # far over: recall nothing
    held = choose("d1", "hash", observations, "evaluations", 0.10, now=1.0, default=0.9, account=Account(10, 60))
    free = choose("d1", "hash", observations, "evaluations", 0.10, now=1.0, default=0.9, account=Account(2, 60))
    assert held.threshold > free.threshold and held.budget == free.budget == 0.10


def test_a_device_s_own_evaluations_decide_from_enough_of_them_or_when_they_show_the_prior_over() -> None:
    clean = [right(0.96)] * 29
    assert not evidence_decides(clean, 0.9, 0.10) and evidence_decides([*clean, right(0.96)], 0.9, 0.10)
    assert evidence_decides([wrong(0.95)] * 4 + [right(0.96)] * 6, 0.9, 0.10)  # 4 of 10 over the prior


def test_evidence_shows_a_threshold_over_the_budget_only_by_its_lower_bound() -> None:
    assert not shown_over([wrong(0.95)] * 2 + [right(0.96)] * 8, 0.9, 0.10)  # 2 of 10: could be chance
    assert shown_over([wrong(0.95)] * 4 + [right(0.96)] * 6, 0.9, 0.10)  # 4 of 10
    assert not shown_over([wrong(0.85)] * 4 + [right(0.96)] * 6, 0.9, 0.10)  # below the threshold: not taken
    assert not shown_over([], 0.9, 0.10)


def test_only_what_the_threshold_let_through_counts_against_it() -> None:
    def scored(recalled: list[str], actual: list[str], named: list[str]) -> dict[str, object]:
        return {"evaluation": {"recalled_apps": recalled, "actual_apps": actual, "intent_apps": named}}

    assert contaminated(scored(["a.b"], ["c.d"], []))
    assert not contaminated(scored(["a.b"], ["a.b"], []))
    # the task named a.b (recalled whatever the threshold) and the agent never launched it: not the threshold's
    assert not contaminated(scored(["a.b"], [], ["a.b"]))
    assert contaminated(scored(["a.b", "e.f"], [], ["a.b"]))  # e.f came by an episode
    assert not contaminated({"evaluation": "garbage"}) and not contaminated({})


def test_runs_contaminated_by_the_apps_their_task_named_count_against_the_budget() -> None:
    """No threshold decides them, but the recall page counts them, so the threshold is held to what they leave of
    the budget: the promise is the page's figure (issue 37 §4, the demo home at 0.14)."""

    def scored(recalled: list[str], actual: list[str], named: list[str]) -> dict[str, object]:
        evaluation = {"recalled_apps": recalled, "actual_apps": actual, "intent_apps": named}
        return {"evaluation": {**evaluation, "contaminated_run": bool(set(recalled) - set(actual))}}

    assert named_alone(scored(["a.b"], [], ["a.b"])) and named_alone(scored(["a.b"], ["c.d"], ["a.b"]))
    assert not named_alone(scored(["a.b", "e.f"], [], ["a.b"]))  # the threshold's: `contaminated`
    assert not named_alone(scored(["a.b"], ["a.b"], ["a.b"])) and not named_alone({"evaluation": "garbage"})
    # 100 runs at the budget's share, 5 of them by named apps alone: the runs ahead carry 5 % more
    assert projected(3, 100, Account(5, 100, 5), 0.10) > projected(3, 100, Account(10, 100), 0.10)
    assert projected(3, 100, Account(5, 100, 5), 0.10) == pytest.approx(
        projected(3, 100, Account(10, 100), 0.10) + 0.05 * 100 / 200, abs=0.01
    )
    observations = [right(0.99 - i * 0.001) for i in range(90)] + [wrong(0.85 - i * 0.01) for i in range(10)]
    observations += [right(0.70)] * 20
    # 12 of 120 runs contaminated so far either way; when 6 of them were by named apps, the runs ahead will be too
    by_threshold = within_budget(observations, 0.10, Account(12, 120))
    half_named = within_budget(observations, 0.10, Account(6, 120, 6))
    assert by_threshold == 0.79 and half_named == 0.85  # five wrong ones fewer: what the named runs leave
    assert within_budget(observations, 0.10, Account(0, 120, 12)) > 0.99  # named alone at the budget: recall nothing


def test_leave_one_out_loosens_only_when_told_its_history_is_mostly_one_run_per_app() -> None:
    clean = [right(0.99 - i * 0.002) for i in range(40)]
    assert choose("d1", "hash", clean, "leave-one-out", 0.10, now=1.0, default=0.95, may_loosen=True).threshold < 0.95
    assert choose("d1", "hash", clean, "leave-one-out", 0.10, now=1.0, default=0.95, may_loosen=False).threshold == 0.95
    assert singles_share([["a"], ["b"], ["c"], ["c"]]) == 0.5 and singles_share([]) == 0.0


def test_leave_one_out_may_only_make_recall_stricter() -> None:
    clean = [right(0.99 - i * 0.002) for i in range(40)]
    assert choose("d1", "hash", clean, "leave-one-out", 0.10, now=1.0, default=0.95).threshold == 0.95
    dirty = [wrong(0.96 - i * 0.001) for i in range(15)] + [right(0.99)] * 25
    assert choose("d1", "hash", dirty, "leave-one-out", 0.10, now=1.0, default=0.9).threshold > 0.95


def test_the_curve_falls_from_the_best_score_and_its_rates_only_grow() -> None:
    rng = random.Random(3)
    observations = [
        Observation(round(rng.uniform(0.7, 1.0), 4), rng.random() < 0.6, rng.random() < 0.3) for _ in range(500)
    ]
    points = curve(observations, points=40)
    assert 30 <= len(points) <= 41
    thresholds = [p.threshold for p in points]
    assert thresholds == sorted(thresholds, reverse=True)
    for earlier, later in itertools.pairwise(points):
        assert later.hit_at_1 >= earlier.hit_at_1 and later.contamination >= earlier.contamination
        assert later.recalled > earlier.recalled
    assert points[-1].recalled == 500
    assert points[-1].contamination == pytest.approx(sum(o.contaminating for o in observations) / 500, abs=1e-4)
    assert all(p.bound >= p.contamination for p in points)


def test_the_curve_always_holds_the_chosen_point() -> None:
    rng = random.Random(5)
    observations = [
        Observation(round(rng.uniform(0.7, 1.0), 4), *(lambda h: (h, not h))(rng.random() < 0.85)) for _ in range(900)
    ]
    chosen = choose("d1", "hash", observations, "evaluations", 0.10, now=1.0, default=0.95)
    assert len(chosen.curve) < 100
    (point,) = [p for p in chosen.curve if p.threshold == chosen.threshold]
    assert point.bound <= 0.10


def test_a_calibration_survives_its_dict() -> None:
    chosen = choose("d1", "hash", [right(0.9)] * 40, "evaluations", 0.1, now=1.0, default=0.95)
    assert Calibration.from_dict(chosen.to_dict()) == chosen


def _trace(considered: list[dict[str, Any]] | None, actual: list[str], status: str = "ok") -> dict[str, object]:
    recall: dict[str, object] = {"status": status, "candidates": (considered or [])[:1]}
    if considered is not None:
        recall["considered"] = considered
    return {"recall": recall, "evaluation": {"actual_apps": actual}}


def test_an_observation_of_the_top_scoring_is_the_best_episode_candidate_below_the_threshold_too() -> None:
    weighed = [
        {"source": "episode", "apps": ["a.b"], "score": 0.91},
        {"source": "episode", "apps": ["c.d"], "score": 0.88},
    ]
    assert observation_of(_trace(weighed, ["a.b"], "abstained"), "top") == Observation(0.91, True, False)
    assert observation_of(_trace(weighed, ["c.d"]), "top") == Observation(0.91, False, True)
    assert observation_of(_trace(weighed, []), "top") == Observation(0.91, False, True)  # nothing launched: all dirty


def _sure(scoring: str, value: float, top: list[str]) -> dict[str, object]:
    return {"scoring": scoring, "value": value, "top_app": top, "top": 0.9, "runner_up": ["c.d"], "second": 0.85}


def test_an_observation_is_the_recalls_confidence_in_its_top_app_abstained_or_not() -> None:
    weighed = [
        {"source": "episode", "apps": ["a.b"], "score": 0.9},
        {"source": "episode", "apps": ["c.d"], "score": 0.85},
    ]
    trace = _trace(weighed, ["a.b"], "abstained")
    trace["recall"]["confidence"] = _sure("margin", 0.95, ["a.b"])  # type: ignore[index]
    assert observation_of(trace) == Observation(0.95, True, False)
    assert observation_of({**trace, "evaluation": {"actual_apps": ["x.y"]}}) == Observation(0.95, False, True)
    # another scoring's number is on another scale; a trace from before the confidence was kept is not usable
    assert observation_of(trace, "reference") is None
    assert observation_of(_trace(weighed, ["a.b"])) is None
    # a recall with nothing near kept a confidence of None: no threshold recalls anything there
    empty = _trace([], ["a.b"], "abstained")
    empty["recall"]["confidence"] = None  # type: ignore[index]
    assert observation_of(empty) == Observation(None, False, False)
    # the task named x.y and the agent launched none: contaminated whatever the threshold (`named_alone`), so
    # recalling a.b adds none; named and launched, recalling a.b would
    named = {**trace, "evaluation": {"actual_apps": [], "intent_apps": ["x.y"]}}
    assert observation_of(named) == Observation(0.95, False, False)
    launched = {**trace, "evaluation": {"actual_apps": ["x.y"], "intent_apps": ["x.y"]}}
    assert observation_of(launched) == Observation(0.95, False, True)


def test_what_the_threshold_did_not_decide_is_left_out() -> None:
    mention = [{"source": "mention", "apps": ["a.b"], "score": 1.0, "term": "某应用"}]
    assert observation_of(_trace(mention, ["a.b"])) is None
    assert observation_of(_trace([], ["a.b"], "abstained")) == Observation(None, False, False)
    # an old trace without what was weighed: usable when it recalled, not when it abstained
    old_ok = {"recall": {"status": "ok", "candidates": [{"source": "episode", "apps": ["a.b"], "score": 0.95}]}}
    assert observation_of({**old_ok, "evaluation": {"actual_apps": ["a.b"]}}, "top") == Observation(0.95, True, False)
    assert observation_of(_trace(None, ["a.b"], "abstained"), "top") is None
    assert observation_of({"recall": "garbage", "evaluation": {}}) is None
    bad_score = [{"source": "episode", "apps": ["a.b"], "score": "high"}]
    assert observation_of(_trace(bad_score, ["a.b"]), "top") is None
    bad_value = _trace([], ["a.b"])
    bad_value["recall"]["confidence"] = _sure("margin", True, ["a.b"])  # type: ignore[index]
    assert observation_of(bad_value) is None
