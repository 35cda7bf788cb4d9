"""Per-device calibration in the run lifecycle: from the fixed threshold, through leave-one-out, to evaluations."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.calibration import MIN_EVALUATIONS, lower_bound
from recall.embedders import tuning
from service.config import ConfigError, load_config
from service.memory.memory import Memory
from store.episodes import recall_calibration

APPS = [f"com.example.app{i}" for i in range(6)]
TOPICS = ["天气预报", "火锅外卖", "打车回家", "酒店预订", "股票行情", "快递查询"]


def past_runs(n: int, device: str = "d1") -> list[dict[str, object]]:
    now = time.time()
    return [
        {
            "run_id": f"{device}-past-{i}",
            "ts_end": now - 3600 - i,
            "device_scope": f"device:{device}",
            "goal_text": f"帮我看看{TOPICS[i % 6]}第{i}次",
            "apps": [APPS[i % 6]],
            "success": True,
            "steps": 3,
        }
        for i in range(n)
    ]


def open_memory(home: Path, **env: str) -> Memory:
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash", **env}))


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    memory = open_memory(tmp_path / "h")
    yield memory
    memory.close()


def finish_launched(memory: Memory, run_id: str, app: str) -> None:
    """Finish `run_id` after a confirmed launch of `app` (recall is scored against confirmed launches only)."""
    memory.runs.run_event({"run_id": run_id, "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": app})
    memory.runs.run_finish(run_id, {"success": True, "apps": [app], "steps": 0})


def finish_runs(memory: Memory, n: int, device: str = "d1", start: int = 0) -> None:
    """Runs whose tasks read like the past ones of their app, and launch it (steps 0: never indexed)."""
    for i in range(start, start + n):
        memory.runs.run_start(f"{device}-q{i}", device, goal=f"{TOPICS[i % 6]}怎么样")
        finish_launched(memory, f"{device}-q{i}", APPS[i % 6])


def test_a_new_device_uses_the_embedders_fixed_threshold(hashed: Memory) -> None:
    assert hashed.calibration.threshold_for("new") == tuning("hash").episode_min_score
    hashed.calibration.wait()
    (now,) = hashed.calibration.current("new")
    assert (now.source, now.threshold, now.sample_size) == ("default", 0.5, 0)


def test_a_past_of_one_run_per_app_starts_from_the_cold_start_anchor(hashed: Memory) -> None:
    hashed.runs.archive_episodes(past_runs(6))  # six apps, one run each
    hashed.runs.archive_episodes(past_runs(12, device="d2"))  # six apps, two runs each
    cold, warm = (hashed.calibration.calibrate(d)[0] for d in ("d1", "d2"))
    hashed_tuning = tuning("hash")
    assert (
        (cold.source, cold.threshold)
        == ("default", hashed_tuning.anchor("margin", one_per_app=True))
        == (
            "default",
            0.45,
        )
    )
    assert (warm.source, warm.threshold) == ("default", hashed_tuning.anchor("margin")) == ("default", 0.5)


def test_past_runs_calibrate_by_leave_one_out_until_evaluations_take_over(hashed: Memory) -> None:
    hashed.runs.archive_episodes(past_runs(40))
    (loo,) = hashed.calibration.calibrate("d1")
    assert loo.source == "leave-one-out" and loo.sample_size == 40 and loo.curve
    assert loo.threshold >= tuning("hash").episode_min_score  # leave-one-out never loosens
    finish_runs(hashed, MIN_EVALUATIONS - 1)
    hashed.calibration.wait()
    assert hashed.calibration.current("d1")[0].source == "leave-one-out"  # not enough evaluations yet
    finish_runs(hashed, 1, start=MIN_EVALUATIONS - 1)
    hashed.calibration.wait()
    (now,) = hashed.calibration.current("d1")
    assert now.source == "evaluations" and now.sample_size == MIN_EVALUATIONS
    assert hashed.calibration.threshold_for("d1") == now.threshold
    # recall uses it: what recall.query explains is the device's threshold, not the embedder's
    explained = hashed.recall.recall_query("天气预报怎么样", "d1", explain=True)
    assert explained.threshold == now.threshold


def test_the_threshold_holds_the_budget_over_the_devices_evaluations(hashed: Memory) -> None:
    hashed.runs.archive_episodes(past_runs(12))
    finish_runs(hashed, 40)
    # and 20 tasks whose app the device never ran: whatever recall offers them is contamination
    for i in range(20):
        hashed.runs.run_start(f"new-{i}", "d1", goal=f"{TOPICS[i % 6]}怎么样")
        finish_launched(hashed, f"new-{i}", "com.other.app")
    hashed.calibration.wait()
    (chosen,) = hashed.calibration.calibrate("d1")
    traces = recall_calibration.recent_traces(hashed.store, "device:d1", "hash", 1000)
    assert chosen.sample_size == len(traces) == 60
    sure = [t["recall"]["confidence"] for t in traces if t["recall"]["confidence"]]
    assert {s["scoring"] for s in sure} == {"margin"} and chosen.embedder == "hash/margin"
    assert [s for s in sure if s["value"] >= chosen.threshold]  # something is still recalled
    # the point the curve shows for the chosen threshold is within the budget by its upper bound, unless the
    # evidence tightened it past the fixed threshold: then only as far as the lower bound demands
    point = next(p for p in chosen.curve if p.threshold == chosen.threshold)
    if chosen.threshold > tuning("hash").anchor("margin"):
        assert lower_bound(round(point.contamination * chosen.sample_size), chosen.sample_size) <= 0.10
    else:
        assert point.bound <= 0.10 and point.contamination <= 0.10


def test_a_calibration_is_kept_and_read_back_after_reopening(tmp_path: Path) -> None:
    with open_memory(tmp_path / "h") as memory:
        memory.runs.archive_episodes(past_runs(6))
        finish_runs(memory, 32)
        memory.calibration.wait()
        kept = memory.calibration.current("d1")[0]
        assert kept.source == "evaluations"
    with open_memory(tmp_path / "h") as again:
        assert again.calibration.threshold_for("d1") == kept.threshold
        assert again.calibration.current() == [kept]
        stats = again.recall.recall_statistics()
        assert stats["calibration"] == [kept]
        overview = again.overview()["recall_calibration"]
        assert overview == [kept.listed()]


def test_another_budget_computes_again(tmp_path: Path) -> None:
    with open_memory(tmp_path / "h") as memory:
        memory.runs.archive_episodes(past_runs(6))
        finish_runs(memory, 32)
        memory.calibration.wait()
    with open_memory(tmp_path / "h", JIYI_RECALL_MAX_CONTAMINATION="0.3") as looser:
        looser.calibration.threshold_for("d1")  # the kept one was for 0.10: recomputed in the background
        looser.calibration.wait()
        (now,) = looser.calibration.current("d1")
        assert now.budget == 0.3 and now.source == "evaluations"


def test_the_dream_pass_recalibrates_every_device(hashed: Memory) -> None:
    hashed.runs.archive_episodes(past_runs(35) + past_runs(3, device="d2"))
    report = hashed.dream.run(full=True)
    step = next(s for s in report["steps"] if s["step"] == "recalibrate")
    assert step["ok"] and step["devices"] == 2
    calibrations = step["calibrations"]
    assert isinstance(calibrations, list)
    sources = {c["device"]: c["source"] for c in calibrations}
    assert sources == {"d1": "leave-one-out", "d2": "default"}


@pytest.mark.parametrize("value", ["0", "1", "1.5", "-0.1", "abc", "nan"])
def test_a_budget_outside_zero_to_one_is_refused_naming_the_key(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="JIYI_RECALL_MAX_CONTAMINATION"):
        load_config(home=tmp_path, env={"JIYI_RECALL_MAX_CONTAMINATION": value})


def test_a_failed_recalibration_keeps_the_previous_threshold(hashed: Memory, caplog: pytest.LogCaptureFixture) -> None:
    hashed.runs.archive_episodes(past_runs(6))
    finish_runs(hashed, 31)
    hashed.calibration.wait()
    before = hashed.calibration.threshold_for("d1")
    hashed.store.db.execute_sql(  # the next keep fails
        "CREATE TRIGGER refuse BEFORE INSERT ON recall_calibration BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    finish_runs(hashed, 1, start=31)
    hashed.calibration.wait()
    assert hashed.calibration.failures == 1 and hashed.calibration.threshold_for("d1") == before
    assert "previous threshold stays" in caplog.text and "refused" in caplog.text
