"""How the console keeps up with a large home: first rows, a filter, the recall charts, and the GUI thread's
longest stall while heavy work runs. Figures are printed beside a baseline measured in the same process.

    python -P bench/gui.py --episodes 100000 [--json] [--home DIR]

(`-P`, as `make bench` runs it: this file's name would otherwise hide the `gui` package.)

1. Builds a home with N episodes (each with its scored shadow recall), N desk turns and N/10 topics, spread
   over the last 365 days. Episodes, recall scores and turns are appended to the event log in batches of
   2,000 per transaction through `Store.append_many` (the same events agents cause, applied to their views
   in bulk, as `memory.ingest` does); topics go through `memory.maintenance.maintenance_commit`, 500 at a time.
   No vectors are built: the vector rebuild below is part of the load. A `--home` that already holds the
   episodes is reused.
2. Opens the console offscreen on its qasync loop as `jiyi` does: attached to a private `jiyi serve` it
   started for the home (the console's one way since its in-process mode was removed; the loads below go to
   the child). It measures
   - `first_rows_s`: the window is created → the episode browser shows its first rows;
   - `filter_s`: a goal-text filter applied → its rows shown (the 250 ms typing debounce not counted);
   - `chart_redraw_s`: the recall page switched to all time (365 days) → statistics read and charts drawn;
   - `max_stall_ms`: the longest gap of a 10 ms heartbeat timer on the GUI thread while a vector rebuild
     (the console's write lane, as the upkeep page runs it: a `vectors.rebuild` call through
     `RemoteMemory`, which the child runs), a TaskWizard import (over the socket,
     as an attached `jiyi import` sends it) and 8 agents over the socket (runs, resolves, listings) run.
   Baselines, same process: the same reads called directly on the console's memory without the window
   (`RemoteMemory` over the socket), and the heartbeat's longest gap with the console idle.

Targets at 100k (issue 20): first rows ≤ 0.5 s, filter ≤ 0.3 s, no stall over 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench.gui_stalls

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from bench.gui_stalls import Heartbeat, StallWatch
from gui.lanes import Lanes
from gui.main_window import MainWindow, load_pages
from gui.opening import close_home, open_home
from service import person_key
from service.client import JiyiClient, ServiceError
from service.config import load_config
from service.errors import Cancelled, JiyiError
from service.memory.api import MemoryApi
from service.memory.memory import EpisodeFilter, Memory
from store.desk.common import when
from store.episodes import recall_stats
from store.episodes.schema import EpisodeOutcome

DAY = 86400.0
BATCH = 2000
APPS = {
    "com.tencent.mm": ("微信", ["给{who}发微信说{what}", "在微信里找{who}的消息"]),
    "com.xingin.xhs": ("小红书", ["在小红书搜索{what}", "看看小红书上{what}的笔记"]),
    "com.sankuai.meituan": ("美团", ["用美团点{what}", "在美团找附近的{what}"]),
    "com.taobao.taobao": ("淘宝", ["在淘宝买{what}", "淘宝搜索{what}"]),
    "com.eg.android.AlipayGphone": ("支付宝", ["用支付宝交{what}", "打开支付宝查{what}"]),
    "tv.danmaku.bili": ("哔哩哔哩", ["在B站看{what}", "B站搜索{what}的视频"]),
}
WHO = ["妈妈", "老王", "同事", "老板", "小李"]
WHAT = ["咖啡", "露营装备", "电费", "晚饭", "周报", "机票", "烧烤", "跑鞋"]
DEVICES = ["phone1", "phone2", "tablet"]
FILTER_WORD = "露营"
TARGETS = {"first_rows_s": 0.5, "filter_s": 0.3, "max_stall_ms": 100.0}


# -- the home --------------------------------------------------------------------------------------------


def build(home: Path, episodes: int, progress: Callable[[str], None]) -> dict[str, float]:
    """Fill `home` with `episodes` runs, as many turns and a tenth as many topics; seconds per part."""
    config = load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})
    rng = random.Random(20)
    now = time.time()
    start = now - 365 * DAY
    timings: dict[str, float] = {}
    with Memory.open(config) as memory:
        store = memory.store
        if memory.runs.count_episodes() >= episodes:
            return {"reused": 1.0}
        began = time.perf_counter()
        with memory.parts.writes:
            for first in range(0, episodes, BATCH):
                by_domain: dict[str, list[tuple[str, dict[str, Any]]]] = {}
                for i in range(first, min(episodes, first + BATCH)):
                    for domain, kind, payload in _one(rng, i, start + (i + rng.random()) * 365 * DAY / episodes):
                        by_domain.setdefault(domain, []).append((kind, payload))
                with store.atomic():
                    for domain, items in by_domain.items():
                        store.append_many(domain, items, actor=ACTORS[domain])
                progress(f"episodes, recall scores and turns: {min(episodes, first + BATCH):,}/{episodes:,}")
        timings["episodes_turns_s"] = time.perf_counter() - began
        began = time.perf_counter()
        topics = max(1, episodes // 10)
        for first in range(0, topics, 500):
            batch = [
                {
                    "title": f"话题 {t}",
                    "kind": "chat",
                    "interaction_ids": [f"turn-{t * 10 + k}" for k in range(10) if t * 10 + k < episodes],
                    "segment": f"聊了话题 {t}",
                }
                for t in range(first, min(topics, first + 500))
            ]
            memory.maintenance.maintenance_commit({"topics": [b for b in batch if b["interaction_ids"]]})
            progress(f"topics: {min(topics, first + 500):,}/{topics:,}")
        timings["topics_s"] = time.perf_counter() - began
    return timings


ACTORS = {"experience": "import", "recall": "system", "desk": "agent"}


def _one(rng: random.Random, i: int, ts_end: float) -> list[tuple[str, str, dict[str, Any]]]:
    """One run's episode, its scored recall and one desk turn: the events an agent's run causes."""
    package = rng.choice(list(APPS))
    _label, goals = APPS[package]
    goal = rng.choice(goals).format(who=rng.choice(WHO), what=rng.choice(WHAT))
    device = rng.choice(DEVICES)
    run_id = f"bench-{i:07d}"
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
            "steps": rng.randint(3, 12),
            "verifier": "pass" if success else "fail",
        }
    )
    recalled = [package] if rng.random() < 0.7 else [rng.choice(list(APPS))]
    trace = {
        "run_id": run_id,
        "ts": ts_end,
        "device_scope": f"device:{device}",
        "mode": "shadow",
        "embedder": "hash",
        "recall": {"goal": goal, "candidates": [{"apps": recalled, "score": 0.8, "source": "episode"}]},
        "evaluation": recall_stats.evaluate(recalled, recalled, [package]),
    }
    at = when(ts_end)
    turn = {
        "interaction_id": f"turn-{i}",
        "ts": at.iso,
        "epoch": at.epoch,
        "workday": at.workday,
        "source": "bench",
        "user_text": goal,
        "assistant_text": "好的",
        "task_id": None,
    }
    return [
        ("experience", "episode_outcome", outcome.to_dict()),
        ("recall", "recall_evaluated", trace),
        ("desk", "interaction_remembered", turn),
    ]


def taskwizard_dir(folder: Path, runs: int) -> Path:
    """A TaskWizard `memory/` directory with `runs` episodes, for the import under load."""
    experience = folder / "experience"
    experience.mkdir(parents=True)
    now = time.time()
    with open(experience / "events.jsonl", "w", encoding="utf-8") as out:
        for i in range(runs):
            record = EpisodeOutcome.coerce(
                {"run_id": f"tw-{i:06d}", "ts_start": now - 100, "ts_end": now - 50, "goal_text": f"导入的任务 {i}"}
            )
            out.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    return folder


# -- the console -----------------------------------------------------------------------------------------


async def until(signal: Any, action: Callable[[], object], timeout_s: float = 120.0) -> float:
    """Seconds from `action()` until `signal` fires."""
    fired = asyncio.get_running_loop().create_future()

    def note(*_args: object) -> None:
        if not fired.done():
            fired.set_result(time.perf_counter())

    signal.connect(note)
    began = time.perf_counter()
    try:
        action()
        return float(await asyncio.wait_for(fired, timeout_s)) - began
    finally:
        signal.disconnect(note)


def agent(socket_path: Path, number: int, stop: threading.Event, counts: list[int], waits: list[int]) -> None:
    """One agent over the socket until `stop`: a run (start, launch, finish), a resolve, a listing.

    A request that gets no answer within 20 s (a write waiting for the write lock) is counted in `waits`.
    """
    with JiyiClient(socket_path, timeout=20, strict=True) as client:
        i = 0
        while not stop.is_set():
            run_id = f"agent{number}-{i}"
            try:
                client.run_start(run_id, f"phone{number}")
                event = {"run_id": run_id, "step": 1, "tool": "launch_app", "result_class": "ok"}
                client.run_event({**event, "app_package": "com.tencent.mm"}, launch_name="微信")
                client.call("run.finish", {"run_id": run_id, "outcome": {"success": True, "goal_text": "发微信"}})
                client.resolve_app("绿泡泡", device=f"phone{number}")
                client.call("episode.list", {"limit": 50})
                counts[number] += 5
            except ServiceError as exc:
                if not exc.degraded:
                    raise
                waits[number] += 1
            i += 1


LOADS = ("rebuild", "import", "agents")


async def measure(
    window: MainWindow, memory: MemoryApi, socket: Path, lanes: Lanes, load_s: float, loads: tuple[str, ...]
) -> dict[str, Any]:
    episodes, recall = window.episodes_page, window.recall_page
    figures: dict[str, Any] = {}
    heartbeat = Heartbeat()

    window.page_list.setCurrentRow(window.stack.indexOf(episodes))
    began = time.perf_counter()
    episodes.text_edit.setText(FILTER_WORD)
    episodes._debounce.stop()  # the typing debounce is a choice, not work: measure from the filter's reload
    figures["filter_s"] = await until(episodes.rows_loaded, episodes.reload)
    began = time.perf_counter()
    memory.runs.list_episodes(EpisodeFilter(text=FILTER_WORD), limit=201)
    figures["filter_baseline_s"] = time.perf_counter() - began
    episodes.text_edit.setText("")
    episodes._debounce.stop()
    await until(episodes.rows_loaded, episodes.reload)

    window.page_list.setCurrentRow(window.stack.indexOf(recall))
    all_time = recall.range_combo.findData(0)
    figures["chart_redraw_s"] = await until(recall.loaded, lambda: recall.range_combo.setCurrentIndex(all_time))
    began = time.perf_counter()
    memory.recall.recall_statistics(since=None)
    figures["chart_baseline_s"] = time.perf_counter() - began
    window.page_list.setCurrentRow(window.stack.indexOf(window.overview_page))

    heartbeat.start()
    idle_watch = StallWatch(heartbeat) if os.environ.get("JIYI_BENCH_STALL_STACKS") else None
    if idle_watch is not None:
        idle_watch.start()
    await asyncio.sleep(2.0)
    figures["idle_stall_ms"] = heartbeat.stop()
    if idle_watch is not None:
        idle_watch.stop()
        print("the idle console:\n" + idle_watch.report(top=1), file=sys.stderr, flush=True)

    # The load: a vector rebuild in the write lane, an import over the socket, 8 agents over the socket.
    stop, cancel = threading.Event(), threading.Event()
    counts, waits = [0] * 8, [0] * 8

    def rebuild_progress(_done: int, _total: int) -> None:
        if cancel.is_set():
            raise Cancelled()

    async def rebuild() -> str:
        try:
            result = await lanes.write(memory.recall.rebuild_vectors, progress=rebuild_progress)
            return f"finished: {result['episodes']:,} episodes"
        except Cancelled:
            return "stopped at the end of the measurement"
        except JiyiError as exc:  # attached: the console closed its connection; the service goes on
            return f"left running in the service ({exc})"

    folder = Path(tempfile.mkdtemp(prefix="jiyi-bench-tw-"))
    source = taskwizard_dir(folder / "memory", 2000)
    imported: list[Any] = []

    def importer() -> None:
        # An import is the person's: the bench's importer presents the person's key, as `jiyi import` does.
        key = {"person_key": person_key.read(memory.home)}
        with JiyiClient(socket, timeout=3600, hello="command", hello_params=lambda: key) as client:
            imported.append(client.call("taskwizard.import", {"directory": str(source)}))

    threads = [threading.Thread(target=agent, args=(socket, n, stop, counts, waits)) for n in range(8)]
    threads = threads if "agents" in loads else []
    if "import" in loads:
        threads.append(threading.Thread(target=importer))
    heartbeat.start()
    watch = StallWatch(heartbeat) if os.environ.get("JIYI_BENCH_STALL_STACKS") else None
    if watch is not None:
        watch.start()
    rebuilding = asyncio.ensure_future(rebuild() if "rebuild" in loads else asyncio.sleep(0, "not run"))
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    await asyncio.sleep(load_s)
    stop.set()
    cancel.set()
    # In-process the rebuild stops at its next batch; attached, the service's rebuild cannot be stopped
    # from here: the measurement ends without it, and the rebuild is left to finish in the service.
    attached = memory.attached_to is not None
    while any(t.is_alive() for t in threads) or not (rebuilding.done() or attached):
        await asyncio.sleep(0.05)
    figures["max_stall_ms"] = heartbeat.stop()
    if watch is not None:
        watch.stop()
        print("under load:\n" + watch.report(), file=sys.stderr, flush=True)
    figures["load_s"] = round(time.perf_counter() - began, 1)
    figures["agent_requests"] = sum(counts)
    figures["agent_timeouts"] = sum(waits)
    figures["rebuild"] = rebuilding.result() if rebuilding.done() else "still running in the service at the end"
    if not rebuilding.done():
        rebuilding.cancel()
    result = imported[0] if imported else {}
    figures["import"] = f"{result.get('experience', {}).get('imported', 0):,} episodes" if result else "not done"
    shutil.rmtree(folder, ignore_errors=True)
    return figures


def run_console(home: Path, load_s: float, loads: tuple[str, ...]) -> dict[str, Any]:
    """Open the console on `home` as `jiyi` does: a private `jiyi serve`, the console attached to it."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    socket_dir = Path(tempfile.mkdtemp(prefix="jyb", dir="/tmp"))
    os.chmod(socket_dir, 0o700)
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_SOCKET": str(socket_dir / "jiyi.sock")}
    opened = open_home(load_config(home=home, env=env))
    assert opened.private is not None, "a service already runs on this home: stop it first"
    memory = opened.memory
    socket = opened.private.socket_path
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    lanes = Lanes(loop)
    settings_dir = Path(tempfile.mkdtemp(prefix="jiyi-bench-settings-"))
    figures: dict[str, Any] = {"console_service": "child"}
    try:
        load_pages()  # the console imports them after its first paint, while its service starts: not counted
        began = time.perf_counter()
        window = MainWindow(memory, QSettings(str(settings_dir / "s.ini"), QSettings.Format.IniFormat), lanes)
        window.private_service = opened.private
        window.resize(1400, 860)
        window.show()
        first: asyncio.Future[float] = loop.create_future()
        window.episodes_page.rows_loaded.connect(
            lambda _n: first.done() or first.set_result(time.perf_counter() - began)
        )

        async def everything() -> dict[str, Any]:
            figures["first_rows_s"] = await asyncio.wait_for(first, 120)
            t = time.perf_counter()
            memory.runs.list_episodes(EpisodeFilter(), limit=201)
            figures["first_rows_baseline_s"] = time.perf_counter() - t
            await asyncio.sleep(1.0)  # let the other pages' first loads finish
            return {**figures, **await measure(window, memory, socket, lanes, load_s, loads)}

        result = loop.run_until_complete(everything())
        window.close()
        return result
    finally:
        if memory.attached_to is not None:
            memory.close()  # as the console does: a rebuild left running goes on in the service, not here
        lanes.shutdown()
        loop.close()
        asyncio.set_event_loop(None)
        close_home(opened)
        shutil.rmtree(socket_dir, ignore_errors=True)
        shutil.rmtree(settings_dir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000, help="runs (and turns) in the home (default 10,000)")
    parser.add_argument("--home", type=Path, help="build (or reuse) the home here; default: a temporary folder")
    parser.add_argument("--load-seconds", type=float, default=15.0, help="how long the heavy load runs (default 15)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument(
        "--load", action="append", choices=LOADS, help="run only this load while stalls are measured (repeatable)"
    )
    args = parser.parse_args()
    temporary = None if args.home else Path(tempfile.mkdtemp(prefix="jiyi-bench-gui-"))
    home = args.home or (temporary / "home")  # type: ignore[operator]
    say = (lambda _m: None) if args.json else (lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    try:
        began = time.perf_counter()
        built = build(home, args.episodes, say)
        built["build_s"] = time.perf_counter() - began
        built_figures = {"episodes": args.episodes, **{k: round(v, 1) for k, v in built.items()}}
        runs = [{**built_figures, **run_console(home, args.load_seconds, tuple(args.load or LOADS))}]
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    results = [rounded(figures) for figures in runs]
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], ensure_ascii=False))
        return 0
    for figures in results:
        report(figures, args.episodes)
    return 0


def rounded(figures: dict[str, Any]) -> dict[str, Any]:
    """The figures rounded for print, and which targets they meet."""
    for key in ("first_rows_s", "filter_s", "chart_redraw_s", "first_rows_baseline_s", "filter_baseline_s"):
        figures[key] = round(figures[key], 3)
    figures["chart_baseline_s"] = round(figures["chart_baseline_s"], 3)
    figures["max_stall_ms"] = round(figures["max_stall_ms"], 1)
    figures["idle_stall_ms"] = round(figures["idle_stall_ms"], 1)
    figures["targets_met"] = {key: figures[key] <= limit for key, limit in TARGETS.items()}
    return figures


def report(figures: dict[str, Any], n: int) -> None:
    topics = max(1, n // 10)
    print(
        f"console ({figures['console_service']}) on a home of {n:,} episodes, {n:,} turns, {topics:,} topics "
        f"(built in {figures['build_s']} s)"
    )
    rows = [
        ("first_rows_s", "first_rows_baseline_s", "window created → first episode rows", "list_episodes alone"),
        ("filter_s", "filter_baseline_s", f"filter “{FILTER_WORD}” → rows", "the filtered listing alone"),
        ("chart_redraw_s", "chart_baseline_s", "recall charts, all 365 days", "recall_statistics alone"),
        ("max_stall_ms", "idle_stall_ms", "longest GUI stall under load", "idle console"),
    ]
    for key, base, what, baseline in rows:
        ratio = figures[key] / figures[base] if figures[base] else float("inf")
        target = (
            f"  (target ≤ {TARGETS[key]:g}: {'met' if figures['targets_met'][key] else 'MISSED'})"
            if key in TARGETS
            else ""
        )
        print(f"  {key:<16}{figures[key]:>9}   {what}; baseline {figures[base]} ({baseline}), ×{ratio:.1f}{target}")
    print(
        f"  load for {figures['load_s']} s: {figures['agent_requests']:,} agent requests from 8 agents "
        f"({figures['agent_timeouts']} unanswered within 20 s), "
        f"import {figures['import']}, vector rebuild {figures['rebuild']}"
    )


if __name__ == "__main__":
    sys.exit(main())
