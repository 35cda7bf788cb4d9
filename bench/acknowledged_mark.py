"""What the home's mark of the last acknowledged change (`store.core.acknowledged`) costs the writes, in one run.

Acknowledged `app.alias.learn` per second through a real `jiyi serve` on SQLite,
8 agents, with:

* no mark (its write after each commit made a no-op: the code before the mark);
* the mark as shipped (one `pwrite` of 512 bytes after each commit, not fsynced);
* the mark fsynced after each write (`fdatasync`: what surviving a power cut
  exactly, rather than only `kill -9`, would cost);

each with group commit (`JIYI_WRITE_GROUP` 32, the default: one mark write per
group) and with every write committing alone (`JIYI_WRITE_GROUP=1`: one mark
write per write, the worst case). The same with SQLite's `synchronous=NORMAL`
shows the commit's own fsync, which `synchronous=FULL` (Jiyi's setting) pays at
every commit and which is what lets the mark go without one. The variants take
turns, `--rounds` times, and the median of each is printed.

Run: `python -P bench/acknowledged_mark.py [--seconds 4] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the tests' `jiyi serve` helpers

from service.client import JiyiClient  # noqa: E402
from tests.service.conftest import Server, wait_for_socket  # noqa: E402

AGENTS = 8

_PATCHES = {
    "no mark": "from store.core.acknowledged import MarkFile; MarkFile.advance = lambda self, seq, ts: None",
    "mark": "",
    "mark + fsync": (
        "import os; from store.core.acknowledged import MarkFile; _w = MarkFile._write\n"
        "def _durable(self, mark):\n"
        "    _w(self, mark)\n"
        "    os.fdatasync(self._fd)\n"
        "MarkFile._write = _durable"
    ),
}
_NORMAL = "import store.core.connect as c; c.PRAGMAS['synchronous'] = 'normal'"


def start(home: Path, sock: Path, patch: str, group: int) -> Server:
    """`jiyi serve` with `patch` run first (a variant of the mark), the hash embedder, `group` writes per commit."""
    code = f"{patch}\nimport sys; from gui.main import main; sys.exit(main())"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    env |= {"JIYI_EMBED_MODEL": "hash", "JIYI_WRITE_GROUP": str(group)}
    command = [sys.executable, "-c", code, "serve", "--home", str(home), "--socket", str(sock)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_socket(sock, process)
    except BaseException:
        process.kill()
        process.wait(timeout=30)
        raise
    return Server(process, sock, home)


def writes_per_second(patch: str, group: int, seconds: float) -> float:
    folder = Path(tempfile.mkdtemp(prefix="jym", dir="/tmp"))
    try:
        server = start(folder / "home", folder / "s.sock", patch, group)
        try:
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
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores", flush=True)
    variants = [
        (f"{name}, synchronous={sync}", (_NORMAL + "\n" if sync == "normal" else "") + patch)
        for sync in ("full", "normal")
        for name, patch in _PATCHES.items()
    ]
    for group in (32, 1):
        rates: dict[str, list[float]] = {name: [] for name, _ in variants}
        for _ in range(args.rounds):
            for name, patch in variants:  # the variants take turns: a change in load touches each alike
                rates[name].append(writes_per_second(patch, group, args.seconds))
        print(f"\nwrites/s, {AGENTS} agents, JIYI_WRITE_GROUP={group} (median of {args.rounds}):", flush=True)
        baseline = {sync: statistics.median(rates[f"no mark, synchronous={sync}"]) for sync in ("full", "normal")}
        for name, _ in variants:
            median = statistics.median(rates[name])
            sync = name.rsplit("=", 1)[1]
            spread = ", ".join(f"{r:.0f}" for r in rates[name])
            print(f"  {name:32} {median:7.0f}  ({median / baseline[sync]:.2f}x no mark; runs {spread})", flush=True)
    print(f"\nload after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
