"""Benchmark the learning pipeline: scan throughput at 100k sources and the per-request overhead of each method.

In the same process, on the same home:

* scan, reading    — a first scan over N finished interactions that lie outside `lookback`: the cursor
                     reads every event, queues none (events/s), against the floor of reading the same
                     events with one plain SQL query and `json.loads`;
* scan, queueing   — a scan over N interactions inside `lookback` until `max_pending` (1,000) intents
                     are queued: intents/s (each re-reads its source and commits with the cursor);
* per request      — each `learning.*` method through the whole protocol (encode, parse, dispatch,
                     encode) of an in-process dispatcher, mean and median µs, against `health` through
                     the same dispatcher (and, for scale, `interaction.remember`: one committed write).

Run: `make bench`, or `python -P bench/learning.py [--sources 100000] [--requests 200]`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.config import load_config
from service.memory.memory import Memory
from service.ops import DECLARED
from service.rpc.dispatch import Dispatcher
from store.core import clock
from store.desk.common import when
from store.desk.projection import DOMAIN as DESK
from store.learning.grant import example_section

OLD = 1_500_000_000.0  # 2017: outside any lookback


def make_home(folder: Path, name: str, **grant: str) -> Path:
    home = folder / name
    home.mkdir(mode=0o700)
    section = example_section()
    for key, value in grant.items():
        section = "\n".join(
            f"{key} = {value}" if line.startswith(f"{key} = ") else line for line in section.splitlines()
        )
    (home / "config.toml").write_text(section + "\n", "utf-8")
    return home


def fill(memory: Memory, sources: int, *, epoch: float | None) -> None:
    """`sources` finished interactions with the owner's words, appended as `interaction.remember` would."""
    store = memory.store
    at = when(epoch) if epoch is not None else when()
    batch = 5000
    for start in range(0, sources, batch):
        with memory.parts.writes, store.atomic():
            for n in range(start, min(sources, start + batch)):
                store.append(
                    DESK,
                    "interaction_remembered",
                    {
                        "interaction_id": f"b{n}",
                        "ts": at.iso,
                        "epoch": at.epoch,
                        "workday": at.workday,
                        "source": "bench",
                        "user_text": f"我第 {n} 次提到我喜欢乌龙茶",
                        "assistant_text": "好的",
                        "task_id": None,
                    },
                    actor="agent",
                )


def read_floor(memory: Memory) -> float:
    """Seconds to read every desk event with one plain query and parse each payload (what any scan must do)."""
    started = time.perf_counter()
    cursor = memory.store.db.execute_sql("SELECT seq, type, payload FROM event WHERE domain = 'desk' ORDER BY seq")
    for _seq, _type, payload in cursor:
        json.loads(payload)
    return time.perf_counter() - started


def scan_figures(folder: Path, sources: int) -> None:
    with Memory.open(load_config(home=make_home(folder, "reading", lookback='"1d"'), env={})) as memory:
        started = time.perf_counter()
        fill(memory, sources, epoch=OLD)
        filled = time.perf_counter() - started
        floor = read_floor(memory)
        started = time.perf_counter()
        report = memory.learning.scan()
        took = time.perf_counter() - started
        assert report["read"] == sources and report["added"] == 0, report
        print(f"sources: {sources:,} interactions appended in {filled:.1f} s")
        print(
            f"scan, reading      {sources / took:>12,.0f} events/s  ({took:.2f} s; floor {floor:.2f} s "
            f"= {sources / floor:,.0f}/s; ratio {took / floor:.1f}x)"
        )
    with Memory.open(load_config(home=make_home(folder, "queueing", max_pending="1000"), env={})) as memory:
        fill(memory, sources, epoch=None)
        started = time.perf_counter()
        report = memory.learning.scan()
        took = time.perf_counter() - started
        assert report["added"] == 1000 and report["backpressure"], report
        print(f"scan, queueing     {1000 / took:>12,.0f} intents/s ({took:.2f} s for 1,000 at max_pending)")
        started = time.perf_counter()
        again = memory.learning.scan()
        held = time.perf_counter() - started
        print(
            f"scan, queue full   {held * 1e3:>12.2f} ms per scan "
            f"(the cursor holds at {again['cursors']['completion']:,})"
        )


def timed(requests: int, call: Callable[[int], Any]) -> list[float]:
    times = []
    for n in range(requests):
        started = time.perf_counter()
        call(n)
        times.append((time.perf_counter() - started) * 1e6)
    return times


def request_figures(folder: Path, requests: int) -> None:
    home = make_home(folder, "requests", max_pending="1000", max_extractions="10000")
    text = (home / "config.toml").read_text("utf-8").replace("admissions = 200", "admissions = 10000")
    text = text.replace("max_records = 100", "max_records = 10000")
    (home / "config.toml").write_text(text, "utf-8")
    with Memory.open(load_config(home=home, env={})) as memory:
        dispatcher = Dispatcher(memory)

        def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
            line = json.dumps({"id": 1, "method": method, "params": params}, ensure_ascii=False).encode()
            person = DECLARED[method].person is not None  # the owner's (a revoke): asked as the console would
            reply: dict[str, Any] = json.loads(dispatcher.handle_line(line, dispatcher.person if person else None))
            assert reply["ok"], (method, reply)
            return reply["result"]

        for n in range(requests * 2):
            memory.desk.remember_interaction(f"r{n}", user_text=f"我喜欢第 {n} 种茶", assistant_text="好")
        leases: list[dict[str, Any]] = []
        reviews: list[dict[str, Any]] = []
        rows: list[tuple[str, list[float]]] = [("health", timed(requests, lambda n: ask("health", {})))]
        remember = {"user_text": "一句话", "assistant_text": "好"}
        rows.append(
            (
                "interaction.remember (one write)",
                timed(requests, lambda n: ask("interaction.remember", {"interaction_id": f"w{n}", **remember})),
            )
        )
        rows.append(("learning.status", timed(requests, lambda n: ask("learning.status", {}))))
        rows.append(("learning.scan", timed(requests, lambda n: ask("learning.scan", {}))))
        rows.append(
            (
                "learning.extract.lease",
                timed(requests, lambda n: leases.append(ask("learning.extract.lease", {"request_id": f"l{n}"}))),
            )
        )

        def submit(n: int) -> None:
            lease = leases[n]
            user = lease["snapshot"]["source"]["turns"][0]["text"]
            result = {
                "operation": "add",
                "kind": "fact.profile",
                "content": f"用户喜欢第 {n} 种茶",
                "quotations": [user],
            }
            ask(
                "learning.extract.submit",
                {"operation_id": lease["operation_id"], "request_id": f"s{n}", "result": result},
            )

        rows.append(("learning.extract.submit", timed(requests, submit)))
        rows.append(
            (
                "learning.review.lease",
                timed(requests, lambda n: reviews.append(ask("learning.review.lease", {"request_id": f"rl{n}"}))),
            )
        )

        def verdict(n: int) -> None:
            params = {
                "review_id": reviews[n]["review_id"],
                "request_id": f"v{n}",
                "verdict": "approved",
                "reason": "原话",
            }
            ask("learning.review.submit", params)

        rows.append(("learning.review.submit (+adoption)", timed(requests, verdict)))
        rows.append(("learning.records.list", timed(requests, lambda n: ask("learning.records.list", {"limit": 50}))))
        records = [r["id"] for r in memory.learning.list_records("active", limit=requests)]
        rows.append(
            (
                "learning.record.revoke",
                timed(
                    requests, lambda n: ask("learning.record.revoke", {"record_id": records[n], "request_id": f"x{n}"})
                ),
            )
        )
        rows.append(
            ("resent (ledger reply)", timed(requests, lambda n: ask("learning.extract.lease", {"request_id": f"l{n}"})))
        )
        base = statistics.mean(rows[0][1])
        print(f"\nper request, {requests} each, in-process dispatcher ({clock.iso_now()[:10]}):")
        print(f"{'method':<36} {'mean µs':>9} {'median µs':>10} {'× health':>9}")
        for name, times in rows:
            mean = statistics.mean(times)
            print(f"{name:<36} {mean:>9,.0f} {statistics.median(times):>10,.0f} {mean / base:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="jiyi-bench-learning-"))
    try:
        scan_figures(folder, args.sources)
        request_figures(folder, args.requests)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
