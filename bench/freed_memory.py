"""Benchmark what wiping freed heap memory (`store.core.freed_memory`) costs the work a service does.

In one process, rounds alternate between the allocator as Jiyi sets it
(glibc's M_PERTURB: freed chunks filled, new chunks zeroed) and the allocator
left alone, over the same work in a fresh home each round:

* runs — `--runs` runs reported as an agent reports them (`run.start`, a
  `run.event` per receipt, `run.finish`: archived, embedded with the real
  model, indexed in Chroma, a shadow recall each);
* recalls — `--recalls` episode recalls with the real model over those runs.

Printed: the median of each round kind per piece of work, and wiped/unwiped.

Run: `make bench` or `python -P bench/freed_memory.py [--runs 150] [--recalls 150] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import ctypes
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench.ingest

from bench.ingest import report_runs, runs
from service.config import load_config
from service.memory.memory import Memory
from store.core.freed_memory import FREED_FILL, wipe_freed_memory

M_PERTURB = -6


def set_wiping(on: bool) -> None:
    libc = ctypes.CDLL(None)
    libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    assert libc.mallopt(M_PERTURB, FREED_FILL if on else 0) == 1


def one_round(folder: Path, n_runs: int, n_recalls: int, seed: int) -> tuple[float, float]:
    """Seconds per run reported, and per recall."""
    sample = runs(n_runs, seed, f"r{seed}")
    with Memory.open(load_config(home=folder, env={"JIYI_MEMORY_RAG": "off"})) as memory:
        memory.recall.recall_query("预热", "pixel7")  # the model loaded before the clock starts
        per_run = report_runs(memory, sample)
        started = time.perf_counter()
        for i in range(n_recalls):
            run = sample[i % n_runs]["outcome"]
            memory.recall.recall_query(run["goal_text"] + "，再做一次", run["device_scope"].removeprefix("device:"))
        per_recall = (time.perf_counter() - started) / n_recalls
    return per_run, per_recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--recalls", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind, alternating")
    args = parser.parse_args()
    if platform.libc_ver()[0] != "glibc" or not wipe_freed_memory():
        print("freed memory is not wiped on this platform (glibc only): nothing to measure")
        return
    work = Path(tempfile.mkdtemp(prefix="jiyi-bench-freed-"))
    seen: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    try:
        for i in range(2 * args.rounds):
            wiped = i % 2 == 1
            set_wiping(wiped)
            seen[wiped].append(one_round(work / f"round-{i}", args.runs, args.recalls, seed=i))
    finally:
        set_wiping(True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"wiping freed memory: {args.rounds} rounds each, {args.runs} runs and {args.recalls} recalls a round")
    for k, what in enumerate(("run reported", "recall")):
        off = statistics.median(r[k] for r in seen[False]) * 1000
        on = statistics.median(r[k] for r in seen[True]) * 1000
        print(f"  per {what:<13}: {off:7.2f} ms unwiped, {on:7.2f} ms wiped -> {on / off:.3f}x")


if __name__ == "__main__":
    main()
