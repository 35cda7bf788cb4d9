"""Benchmark bulk ingest against the per-run path, and `jiyi demo`'s wall time.

In one process, on the same kind of runs (goals from the public tasks shipped
for the demo, 2 to 8 tool receipts each, two phones):

* per-run — each run reported as an agent reports it: `run.start`, a
  `run.event` per receipt, `run.finish` (archived and indexed one run at a
  time), over a sample of `--sample` runs into an empty home and as many
  into the home the import filled (a run costs more as the index grows:
  Chroma's insert cost rises with the collection), extrapolated per episode
  with the mean of the two;
* import — `jiyi import taskwizard` of a TaskWizard `memory/experience/`
  holding `--episodes` runs (their receipts and outcomes): the log and views
  written in large transactions, goals embedded and added to Chroma in
  batches, term counts summed once per batch;
* demo — `jiyi demo`'s 2,000 runs into a new home (through the same bulk path,
  with a real shadow recall per run).

Targets (issue 16): import ≥ 20× the per-run path; demo < 30 s on a 2-core machine.
The hash embedder stands in for the model throughout (`--embed-model` to change it):
the model's cost is the same per goal on both paths.

Run: `make bench` or `python -P bench/ingest.py [--episodes 100000] [--sample 200] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from service.config import load_config
from service.demo.fill import make_demo
from service.demo.goals import demo_tasks, phrase
from service.memory.memory import Memory

DEVICES = ("pixel7", "xiaomi13")
TOOLS = ("tap", "tap", "swipe", "type_text", "read_screen")


def runs(n: int, seed: int, prefix: str) -> list[dict[str, Any]]:
    """`n` finished runs: receipts (a launch, then steps) and an outcome."""
    rng = random.Random(seed)
    tasks = demo_tasks()
    out = []
    start = time.time() - 365 * 86400
    for i in range(n):
        task = rng.choice(tasks)
        run_id, device = f"{prefix}-{i:06d}", rng.choice(DEVICES)
        began = start + i * (365 * 86400 / n)
        steps = rng.randint(2, 8)
        events = [
            {
                "run_id": run_id,
                "step": s,
                "ts": began + s * 6,
                "tool": "launch_app" if s == 1 else rng.choice(TOOLS),
                "result_class": "ok" if rng.random() > 0.05 else "error",
                "app_package": task.package if s == 1 else None,
            }
            for s in range(1, steps + 1)
        ]
        success = rng.random() < 0.8
        outcome = {
            "run_id": run_id,
            "ts_start": began,
            "ts_end": began + steps * 6 + 1,
            "device_scope": f"device:{device}",
            "goal_text": phrase(rng, task),
            "apps": [task.package],
            "success": success,
            "reason": "finished" if success else "max_steps",
            "steps": steps,
            "verifier": "pass" if success else "fail",
        }
        out.append({"events": events, "outcome": outcome})
    return out


def open_home(folder: Path, embed: str) -> Memory:
    return Memory.open(load_config(home=folder, env={"JIYI_EMBED_MODEL": embed, "JIYI_MEMORY_RAG": "off"}))


def per_run(folder: Path, embed: str, sample: list[dict[str, Any]]) -> float:
    """Seconds per episode through run.start / run.event / run.finish."""
    with open_home(folder, embed) as memory:
        memory.recall.engine.index.client  # noqa: B018 -- open Chroma before the clock starts, as a running service has
        return report_runs(memory, sample)


def report_runs(memory: Memory, sample: list[dict[str, Any]]) -> float:
    """Seconds per run reported as an agent reports it: run.start, a run.event per receipt, run.finish."""
    started = time.perf_counter()
    for run in sample:
        outcome = run["outcome"]
        memory.runs.run_start(outcome["run_id"], outcome["device_scope"].removeprefix("device:"), goal="")
        for event in run["events"]:
            memory.runs.run_event(event)
        memory.runs.run_finish(outcome["run_id"], outcome)
    return (time.perf_counter() - started) / len(sample)


def write_taskwizard(folder: Path, episodes: list[dict[str, Any]]) -> Path:
    """A TaskWizard `memory/experience/events.jsonl` of the runs' receipts and outcomes, in TaskWizard's shape."""
    experience = folder / "memory" / "experience"
    experience.mkdir(parents=True)
    with (experience / "events.jsonl").open("w", encoding="utf-8") as f:
        for run in episodes:
            for event in run["events"]:
                f.write(json.dumps({"type": "experience_event", "schema_v": 1, **event}, ensure_ascii=False) + "\n")
            outcome = {"type": "episode_outcome", "schema_v": 1, **run["outcome"]}
            f.write(json.dumps(outcome, ensure_ascii=False) + "\n")
    return folder / "memory"


def bulk_import(folder: Path, embed: str, source: Path) -> tuple[float, dict[str, Any]]:
    """Seconds for `jiyi import taskwizard` of `source`, indexing included, and the index's state after it."""
    with open_home(folder, embed) as memory:
        memory.recall.engine.index.client  # noqa: B018 -- as above
        started = time.perf_counter()
        memory.import_taskwizard(source)
        seconds = time.perf_counter() - started
        return seconds, memory.recall.state()


def demo(folder: Path, embed: str, n: int) -> float:
    started = time.perf_counter()
    make_demo(load_config(home=folder, env={}), runs=n, embed_model=embed)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=200, help="runs through the per-run path")
    parser.add_argument("--demo-runs", type=int, default=2000)
    parser.add_argument("--embed-model", default="hash")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jiyi-bench-ingest-"))
    try:
        episodes = runs(args.episodes, 1, "tw")
        events = sum(len(r["events"]) for r in episodes)
        empty = per_run(work / "per-run", args.embed_model, runs(args.sample, 2, "live"))
        source = write_taskwizard(work / "source", episodes)
        del episodes
        seconds, state = bulk_import(work / "import", args.embed_model, source)
        full = per_run(work / "import", args.embed_model, runs(args.sample, 3, "late"))
        per_episode = (empty + full) / 2
        demo_seconds = demo(work / "demo", args.embed_model, args.demo_runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures = {
        "episodes": args.episodes,
        "events": events,
        "per_run_s_per_episode_empty": round(empty, 5),
        "per_run_s_per_episode_full": round(full, 5),
        "per_run_s_per_episode": round(per_episode, 5),
        "per_run_extrapolated_s": round(per_episode * args.episodes, 1),
        "import_s": round(seconds, 1),
        "import_episodes_per_s": round(args.episodes / seconds),
        "speedup": round(per_episode * args.episodes / seconds, 1),
        "indexed_vectors": state.get("episode_vectors"),
        "index_lagging": state.get("lagging"),
        "demo_runs": args.demo_runs,
        "demo_s": round(demo_seconds, 1),
        "embedder": args.embed_model,
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"ingest of {args.episodes:,} episodes ({events:,} tool events), embedder {args.embed_model}")
    print(
        f"  per-run path : {empty * 1000:8.2f} ms/episode into an empty home, {full * 1000:.2f} into the full one"
        f" ({args.sample} runs each) -> {per_episode * args.episodes:8.1f} s extrapolated"
    )
    print(
        f"  import (bulk): {seconds / args.episodes * 1000:8.2f} ms/episode "
        f"-> {seconds:8.1f} s measured ({args.episodes / seconds:,.0f} episodes/s)"
    )
    print(
        f"  speed-up     : {figures['speedup']}x (target >= 20x); "
        f"index after import: {state.get('episode_vectors')} vectors, {state.get('lagging')} lagging"
    )
    print(f"jiyi demo, {args.demo_runs} runs: {demo_seconds:.1f} s (target < 30 s)")


if __name__ == "__main__":
    main()
