"""Benchmark the reads the console's pages make on a large home, against reading one episode by key.

In one process, on a home of `--episodes` runs (10,000 by default) over the
last 365 days, each with its scored shadow recall (the trace a run keeps):

* `first_rows` — the episode browser's first page (`list_episodes`, 201 rows
  newest first, as the page asks) and `count` (`count_episodes`, what the
  overview and `episode.list` with `total` ask);
* `filter <word>` — the browser's goal-text filter: a common CJK word (one
  goal in eight), one CJK character, a rare word (one goal in a thousand), a
  Latin word in either case, and a word no goal holds (the whole archive read);
* `recall_stats` — the recall page's `recall_statistics` over all time and
  over its default 30 days.

Each read is timed `--requests` times; p50 and p99 (wall) are printed with the
p50's ratio to the baseline's (`get_episode` of a random run, which reads one
row and its tool events by key), and the p50 of this process's CPU time
(steadier than the wall on a shared machine; on PostgreSQL the server's work is
not in it). The home is built through the bulk path
(`archive.record_many` and `memory.ingest.record_evaluations`; no vectors: no
read here uses them) and reused with `--home DIR`. With `--database-url URL`
(its password in `JIYI_DATABASE_PASSWORD_FILE`) or `--postgres` (a server
started here, as `bench/scale_out.py` does) the same reads run on PostgreSQL
too, side by side.

Targets (issue 20, at 100k): first rows ≤ 0.5 s and a filter ≤ 0.3 s in the
console (these reads are most of it); `recall_statistics` well under 0.3 s.

Run: `python -P bench/console_reads.py [--episodes 100000] [--home DIR] [--postgres] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.config import load_config, save_settings
from service.evaluation.percentile import percentile
from service.memory.memory import EpisodeFilter, Memory
from store.episodes import archive, recall_stats
from store.episodes.run_event import ExperienceEvent
from store.episodes.schema import EpisodeOutcome

DAY = 86400.0
BATCH = 2000
PAGE = 201  # the browser asks for a page of 200 and one more (is there a next page?)
APPS = {
    "com.tencent.mm": ["给{who}发微信说{what}", "在微信里找{who}的消息"],
    "com.xingin.xhs": ["在小红书搜索{what}", "看看小红书上{what}的笔记"],
    "com.sankuai.meituan": ["用美团点{what}", "在美团找附近的{what}"],
    "com.taobao.taobao": ["在淘宝买{what}", "淘宝搜索{what}"],
    "com.starbucks.cn": ["在 Starbucks 点一杯 {latin}", "Starbucks order {latin} for {who}"],
    "tv.danmaku.bili": ["在B站看{what}", "B站搜索{what}的视频"],
}
WHO = ["妈妈", "老王", "同事", "老板", "小李"]
WHAT = ["咖啡", "露营装备", "电费", "晚饭", "周报", "机票", "烧烤", "跑鞋"]
LATIN = ["Latte", "latte macchiato", "Americano", "flat white"]
RARE = "帐篷灯"  # one goal in a thousand
FILTERS = {
    "filter common": "露营",
    "filter 1 char": "营",
    "filter rare": RARE,
    "filter latin": "LATTE",
    "filter none": "不存在的词",
}


def runs(first: int, n: int, total: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Runs `first` … `first + n - 1` of `total` spread over the last 365 days, oldest first: their archive
    records (tool receipts, then the outcome, validated as `run.event` and `run.finish` validate them) and
    their recall traces."""
    rng = random.Random(first)
    now = time.time()
    start = now - 365 * DAY
    records: list[dict[str, Any]] = []
    traces: list[dict[str, Any]] = []
    for i in range(first, first + n):
        package = rng.choice(list(APPS))
        goal = rng.choice(APPS[package]).format(who=rng.choice(WHO), what=rng.choice(WHAT), latin=rng.choice(LATIN))
        if i % 1000 == 999:
            goal += f"，顺便买{RARE}"
        run_id, device = f"bench-{i:07d}", rng.choice(("phone1", "phone2", "tablet"))
        ts_end = start + (i + rng.random()) * 365 * DAY / total
        steps = rng.randint(2, 8)
        for s in range(1, steps + 1):
            event = {
                "run_id": run_id,
                "step": s,
                "ts": ts_end - 60 + s,
                "tool": "launch_app" if s == 1 else "tap",
                "result_class": "ok",
                "app_package": package if s == 1 else None,
            }
            records.append(ExperienceEvent.coerce(event, device=device, now=now).to_dict())
        success = rng.random() < 0.8
        outcome = EpisodeOutcome.coerce(
            {
                "run_id": run_id,
                "ts_start": ts_end - 60,
                "ts_end": ts_end,
                "device_scope": f"device:{device}",
                "goal_text": goal,
                "apps": [package],
                "success": success,
                "reason": "finished" if success else "max_steps",
                "steps": steps,
                "tokens_total": rng.randint(500, 9000),
                "verifier": "pass" if success else "fail",
            }
        )
        records.append(outcome.to_dict())
        recalled = [package] if rng.random() < 0.7 else [rng.choice(list(APPS))]
        candidates = [
            {"run_id": f"bench-{rng.randrange(max(1, i)):07d}", "goal": goal, "apps": recalled, "score": 0.8}
            for _ in range(3)
        ]
        traces.append(
            {
                "run_id": run_id,
                "ts": ts_end,
                "device_scope": f"device:{device}",
                "mode": "shadow",
                "embedder": "hash",
                "recall": {"goal": goal, "candidates": candidates, "latency_ms": 12.5},
                "evaluation": recall_stats.evaluate(recalled, recalled[:1], [package]),
            }
        )
    return records, traces


def build(memory: Memory, n: int) -> float:
    """Fill the home with `n` runs through the bulk path; seconds taken (0 when it already holds them)."""
    if memory.runs.count_episodes() >= n:
        return 0.0
    started = time.perf_counter()
    for first in range(0, n, BATCH):
        records, traces = runs(first, min(BATCH, n - first), n)
        with memory.parts.writes:
            archive.record_many(memory.store, records, actor="import")
        memory.parts.changed(archive.DOMAIN)
        memory.ingest.record_evaluations(traces)
        print(f"  built {first + len(traces):,}/{n:,}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return time.perf_counter() - started


def _timed(call: Callable[[int], object], count: int) -> list[tuple[float, float]]:
    """(wall, this process's CPU) seconds of each of `count` calls."""
    times = []
    for i in range(count):
        started, cpu = time.perf_counter(), time.process_time()
        call(i)
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    return times


def measure(memory: Memory, requests: int) -> dict[str, list[tuple[float, float]]]:
    """Seconds each read took (wall, CPU), `requests` times."""
    rng = random.Random(7)
    ids = [str(r["run_id"]) for r in memory.runs.list_episodes(EpisodeFilter(), limit=1000)]
    runs_api = memory.runs
    out = {
        "baseline get_episode": _timed(lambda i: runs_api.get_episode(rng.choice(ids)), max(requests, 50)),
        "first_rows": _timed(lambda i: runs_api.list_episodes(EpisodeFilter(), limit=PAGE), requests),
        "count": _timed(lambda i: runs_api.count_episodes(EpisodeFilter()), requests),
    }
    for name, word in FILTERS.items():
        f = EpisodeFilter(text=word)
        out[name] = _timed(lambda i, f=f: runs_api.list_episodes(f, limit=PAGE), requests)
        out[f"{name} count"] = _timed(lambda i, f=f: runs_api.count_episodes(f), requests)
    since = time.time() - 30 * DAY
    out["recall_stats all"] = _timed(lambda i: memory.recall.recall_statistics(), requests)
    out["recall_stats 30d"] = _timed(lambda i: memory.recall.recall_statistics(since=since), requests)
    return out


def open_memory(home: Path, url: str, password_file: str) -> Memory:
    if url:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        save_settings(home, {"database_url": url, "database_password_file": password_file})
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash", "JIYI_MEMORY_RAG": "off"}))


def run_backend(home: Path, url: str, password_file: str, n: int, requests: int) -> dict[str, Any]:
    started = time.perf_counter()
    with open_memory(home, url, password_file) as memory:
        opened = time.perf_counter() - started  # a home at an older schema is migrated here
        built = build(memory, n)
        reads = measure(memory, requests)
        return {
            "opened_s": round(opened, 1),
            "built_s": round(built, 1),
            "schema": memory.store.schema_version,
            "reads": reads,
        }


def summary(reads: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    base = percentile([wall for wall, _ in reads["baseline get_episode"]], 50)
    out = {}
    for name, times in reads.items():
        wall = [w for w, _ in times]
        out[name] = {
            "p50_s": round(percentile(wall, 50), 4),
            "p99_s": round(percentile(wall, 99), 4),
            "x_baseline": round(percentile(wall, 50) / base, 1) if base else 0.0,
            "cpu_p50_s": round(percentile([c for _, c in times], 50), 4),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=20, help="times each read is timed")
    parser.add_argument("--home", type=Path, help="build the home here and reuse it next time")
    parser.add_argument("--database-url", default="", help="also on this PostgreSQL database")
    parser.add_argument("--postgres", action="store_true", help="also on a PostgreSQL server started here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jiyi-bench-reads-"))
    server = None
    url, password_file = args.database_url, os.environ.get("JIYI_DATABASE_PASSWORD_FILE", "")
    try:
        if args.postgres and not url:
            from tests.postgres_server import start_postgres

            server = start_postgres()
            url, password_file = server.create_database("bench_console_reads"), str(server.password_file)
        home = args.home or work / "home"
        results = {"sqlite": run_backend(home / "sqlite", "", "", args.episodes, args.requests)}
        if url:
            results["postgresql"] = run_backend(home / "postgresql", url, password_file, args.episodes, args.requests)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    figures = {
        backend: {"opened_s": r["opened_s"], "built_s": r["built_s"], "schema": r["schema"], **summary(r["reads"])}
        for backend, r in results.items()
    }
    if args.json:
        print(json.dumps({"episodes": args.episodes, **figures}, ensure_ascii=False))
        return
    for backend, f in figures.items():
        print(
            f"{backend}: {args.episodes:,} episodes, schema {f['schema']}, opened (and migrated) in {f['opened_s']} s,"
            f" built in {f['built_s']} s (0 = reused)"
        )
        print(f"  {'read':<24} {'p50 s':>8} {'p99 s':>8} {'x baseline p50':>15} {'cpu p50 s':>10}")
        for name, row in f.items():
            if isinstance(row, dict):
                print(
                    f"  {name:<24} {row['p50_s']:>8.4f} {row['p99_s']:>8.4f} {row['x_baseline']:>15.1f}"
                    f" {row['cpu_p50_s']:>10.4f}"
                )


if __name__ == "__main__":
    main()
