"""What the home's mark of the last acknowledged change (`store.core.acknowledged`) costs the writes, in one run.

1. Commits per second in process, on SQLite (one event each, as a write that
   commits alone): the mark off (`Store.marks` None: the code before the
   mark), the mark as shipped (one `pwrite` of 512 bytes after each commit,
   not fsynced), and the mark fsynced after each commit (`fdatasync`: what
   surviving a power cut exactly, rather than `kill -9` only, would cost);
   with `synchronous=FULL` (Jiyi's: the WAL is fsynced at every commit, which
   is what lets the mark go without one) and `NORMAL`. The variants take turns
   in blocks, and each figure is the median of the blocks.
2. Acknowledged `app.alias.learn` per second through a real `jiyi serve`, 8
   agents, the mark off and on, with group commit (`JIYI_WRITE_GROUP` 32, the
   default: one mark write per group) and each write committing alone (1: one
   mark write per write); the variants take turns, `--rounds` times.

Run: `python -P bench/acknowledged_mark.py [--commits 3000] [--seconds 4] [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # bench.serve

from bench import serve  # noqa: E402
from service.client import JiyiClient  # noqa: E402
from store.core import connect  # noqa: E402
from store.core.acknowledged import MarkFile  # noqa: E402
from store.core.database import Store  # noqa: E402

AGENTS = 8
BLOCK = 100  # commits of one variant before the next takes its turn


class _Fsynced(MarkFile):
    """The mark written as shipped, then `fdatasync`ed."""

    def _write(self, mark: object) -> None:
        super()._write(mark)  # type: ignore[arg-type]
        if self._fd is not None:
            os.fdatasync(self._fd)


def commits_per_second(commits: int) -> None:
    """Part 1 (see the docstring)."""
    for sync in ("full", "normal"):
        connect.PRAGMAS["synchronous"] = sync
        folder = Path(tempfile.mkdtemp(prefix="jym", dir="/tmp"))
        store = Store.open(folder / "home")
        try:
            shipped = store.marks
            assert shipped is not None
            fsynced = _Fsynced(folder / "home")
            assert shipped.current is not None
            fsynced.reset(shipped.current)
            variants: dict[str, MarkFile | None] = {"no mark": None, "mark": shipped, "mark + fdatasync": fsynced}
            times: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(max(1, commits // BLOCK // len(variants))):
                for name, marks in variants.items():  # in turns: a change in load touches each alike
                    store.marks = marks
                    started = time.perf_counter()
                    for i in range(BLOCK):
                        with store.atomic():
                            store.append("bench", "noted", {"i": i}, actor="bench")
                    times[name].append(BLOCK / (time.perf_counter() - started))
            store.marks = shipped
            fsynced.close()
        finally:
            store.close()
            shutil.rmtree(folder, ignore_errors=True)
        base = statistics.median(times["no mark"])
        print(f"\ncommits/s in process, one event each, synchronous={sync.upper()} (median of {len(times['mark'])}):")
        for name, rates in times.items():
            median = statistics.median(rates)
            extra = (1 / median - 1 / base) * 1e6
            print(f"  {name:18} {median:7.0f}  ({median / base:.2f}x no mark; {extra:+.0f} µs a commit)", flush=True)
    connect.PRAGMAS["synchronous"] = "full"


_NO_MARK = "from store.core.acknowledged import MarkFile; MarkFile.advance = lambda self, seq, ts: None"


def writes_per_second(patch: str, group: int, seconds: float) -> float:
    """Acknowledged writes per second through `jiyi serve` with `patch` run first, the hash embedder, `group`
    writes per commit."""
    folder = Path(tempfile.mkdtemp(prefix="jym", dir="/tmp"))
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_WRITE_GROUP": str(group)}
    try:
        with serve.start(folder / "home", folder / "s.sock", env=env, before=patch) as server:
            acked = [0]
            lock, stop = threading.Lock(), threading.Event()

            def agent(n: int) -> None:
                with JiyiClient(server.socket, timeout=60) as client:
                    i = 0
                    while not stop.is_set():
                        if client.learn_alias(f"名{n}-{i}", "com.tencent.mm")["stored"]:
                            with lock:
                                acked[0] += 1
                        i += 1

            threads = [threading.Thread(target=agent, args=(n,)) for n in range(AGENTS)]
            for thread in threads:
                thread.start()
            time.sleep(1.0)  # the agents connect and settle
            before, started = acked[0], time.perf_counter()
            time.sleep(seconds)
            done, wall = acked[0] - before, time.perf_counter() - started
            stop.set()
            for thread in threads:
                thread.join()
            return done / wall
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def service_writes(seconds: float, rounds: int) -> None:
    """Part 2 (see the docstring)."""
    for group in (32, 1):
        rates: dict[str, list[float]] = {"no mark": [], "mark": []}
        for _ in range(rounds):
            for name, patch in (("no mark", _NO_MARK), ("mark", "")):
                rates[name].append(writes_per_second(patch, group, seconds))
        base = statistics.median(rates["no mark"])
        print(f"\nwrites/s through jiyi serve, {AGENTS} agents, JIYI_WRITE_GROUP={group} (median of {rounds}):")
        for name, found in rates.items():
            median = statistics.median(found)
            spread = ", ".join(f"{r:.0f}" for r in found)
            print(f"  {name:10} {median:7.0f}  ({median / base:.2f}x no mark; runs {spread})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=3000, help="commits per variant in process")
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds of writing per service run")
    parser.add_argument("--rounds", type=int, default=5, help="service runs per variant")
    parser.add_argument("--in-process-only", action="store_true", help="only part 1")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores", flush=True)
    commits_per_second(args.commits)
    if not args.in_process_only:
        service_writes(args.seconds, args.rounds)
    print(f"\nload after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
