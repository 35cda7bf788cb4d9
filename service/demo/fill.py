"""`jiyi demo`: fill a home with realistic memory, to try the console without an agent.

Two phones with real app inventories (from the static registry and the
public tasks), aliases of every kind (user corrections, learned nicknames and
implicit aliases, device labels), and runs spread over the last 60 days. Each
phone's owner has habits — a few dozen tasks asked again and again, in other
words each time — and now and then asks something new; goals come from the
public tasks shipped in `resources/` (`service.demo.goals`). The agent
sometimes fails, sometimes opens the wrong app, sometimes never gets an app
open. Every run starts with a real shadow recall against the phone's
archive as it was then (so recall abstains, hits and misses as on a real
device), and runs are archived and indexed through the bulk path
(`memory.ingest`), a batch of days at a time; launches by a nickname or after
a failed name teach the App-KB through the same calls an agent's receipts make.
A week of a desktop assistant's memory (`service.demo.desk`) comes with it.
"""

from __future__ import annotations

import random
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from recall.episode_recall import RecallJson, RecallResult
from service.config import Config, save_settings
from service.demo.desk import fill_desk
from service.demo.goals import DemoTask, demo_tasks, phrase
from service.demo.learning import fill_learning
from service.memory.memory import EpisodeFilter, Memory
from service.wire.episodes import Evaluation
from store.appkb import alias_correction
from store.core.errors import InvalidInput
from store.episodes import recall_stats
from store.learning.grant import example_section, parse_grant

DAY = 86400.0
DAYS = 60
DEVICES = ("pixel7", "xiaomi13")
BATCH = 100  # runs archived together (about three days): recall at a run's start knows the archive up to its batch
HABITS = 40  # tasks each phone's owner keeps asking
NICKNAMES = {
    "绿泡泡": "com.tencent.mm",
    "小红薯": "com.xingin.xhs",
    "小破站": "tv.danmaku.bili",
    "狗东": "com.jingdong.app.mall",
    "拼夕夕": "com.xunmeng.pinduoduo",
    "网易云": "com.netease.cloudmusic",
    "饿了吗": "me.ele",
    "企鹅": "com.tencent.mobileqq",
}
Progress = Callable[[int, int], None]


class DemoEvent(TypedDict):
    """One step of a demo run, as `run.event` records it."""

    run_id: str
    step: int
    ts: float
    tool: str
    result_class: str
    app_package: str | None
    intent: str | None
    note: str | None


class DemoOutcome(TypedDict):
    """A demo run's outcome, as `run.finish` records it."""

    run_id: str
    ts_start: float
    ts_end: float
    device_scope: str
    goal_text: str
    apps: list[str]
    success: bool
    reason: str
    steps: int
    tokens_total: int
    tokens_by_role: dict[str, int]
    verifier: str


class DemoTrace(TypedDict):
    """A run's recall scored against what it launched, as `run.finish` keeps it."""

    run_id: str
    ts: float
    device_scope: str
    mode: str
    embedder: str
    recall: RecallJson
    evaluation: Evaluation


@dataclass
class DemoRun:
    """One run as the agent would have reported it, before it is archived."""

    run_id: str
    device: str
    goal: str
    started: float
    events: list[DemoEvent] = field(default_factory=list)
    launched: list[str] = field(default_factory=list)
    spoken: str = ""
    failed_first: bool = False
    corrected_from: str | None = None  # the wrong app the agent opened first, then backed out of
    meant: str = ""  # the app the task was for
    outcome: DemoOutcome = field(init=False)  # set once its steps are decided (`_plan`)


def fill(memory: Memory, *, runs: int = 2000, seed: int = 7, progress: Progress | None = None) -> dict[str, int]:
    """Write the demo memory through `Memory`: App-KB calls, bulk ingest of runs, their scored recall."""
    rng = random.Random(seed)
    tasks = demo_tasks()
    habits = {device: _habits(rng, tasks) for device in DEVICES}
    installed = {device: _inventory(memory, rng, device, habits[device]) for device in DEVICES}
    memory.appkb.learn_alias("老板的软件", "com.tencent.wework", actor="user")
    memory.appkb.learn_alias("外卖", "com.sankuai.meituan", actor="user")
    now = time.time()
    planned = [
        _plan(rng, f"demo-{i:05d}", now - DAYS * DAY * (1 - i / runs), tasks, habits, installed) for i in range(runs)
    ]
    taught: set[tuple[str, str, bool]] = set()
    for start in range(0, len(planned), BATCH):
        batch = planned[start : start + BATCH]
        recalled = _shadow_recall(memory, batch)
        for run in batch:
            _teach(memory, run, taught)
        memory.ingest.ingest_runs([{"outcome": r.outcome, "events": r.events} for r in batch], actor="agent")
        traces = [dict(_trace(memory, run, recall)) for run in batch if (recall := recalled[run.run_id]) is not None]
        memory.ingest.record_evaluations(traces)
        # Each phone calibrates as it would have, prequentially: the next batch's recalls use the thresholds
        # these evaluations earned (and never their own), as `run.finish` hands each one over.
        for trace in traces:
            memory.calibration.observe(trace)
        memory.calibration.wait()
        if progress:
            progress(start + len(batch), runs)
    memory.calibration.calibrate()  # each phone's threshold from every evaluation written (as a dream pass does)
    lessons = _lessons(memory)
    desk = fill_desk(memory)
    return {
        "devices": len(DEVICES),
        "runs": runs,
        "aliases": memory.appkb.count_aliases(),
        "lessons": lessons,
        **desk,
    }


LESSONS = (
    ("应用没反应时，先按返回键回到首页再试一次", ()),
    ("美团外卖下单前先确认收货地址", ("com.sankuai.meituan",)),
    ("小红书的搜索框在首页顶部，不必进“发现”页", ("com.xingin.xhs",)),
)


def _lessons(memory: Memory) -> int:
    """Lessons proposed from the failed runs they are about (as an agent reviewing them would): a lesson on an
    app cites that app's failures (its runs, when none failed); the first one is approved by the person."""
    for i, (text, apps) in enumerate(LESSONS):
        about = apps[0] if apps else None
        runs = memory.runs.list_episodes(EpisodeFilter(success=False, app=about), limit=2)
        if not runs and about:
            runs = memory.runs.list_episodes(EpisodeFilter(app=about), limit=2)
        lesson = memory.lessons.add_lesson(text, apps, runs=[r.run_id for r in runs], actor="agent")
        if i == 0:
            memory.lessons.set_lesson_status(lesson.lesson_id, "approved", actor="user")
    return len(LESSONS)


def _habits(rng: random.Random, tasks: tuple[DemoTask, ...]) -> list[DemoTask]:
    """The tasks one owner keeps asking, the first ones most often."""
    return rng.sample(tasks, HABITS)


def _inventory(memory: Memory, rng: random.Random, device: str, habits: list[DemoTask]) -> set[str]:
    """Sync the phone's installed apps: those of its owner's habits, common ones, and some others."""
    registry = memory.registry
    labels = {t.package: t.app_name for t in habits}
    labels.update({p: registry.label_for(p) or p for p in NICKNAMES.values()})
    extra = [p for p in sorted(registry.apps) if p not in labels]
    labels.update({p: registry.label_for(p) or p for p in rng.sample(extra, 40)})
    memory.appkb.sync_inventory(
        device, [(p, registry.label_for(p) or label) for p, label in sorted(labels.items())], actor="system"
    )
    return set(labels)


def _plan(
    rng: random.Random,
    run_id: str,
    day_start: float,
    tasks: tuple[DemoTask, ...],
    habits: dict[str, list[DemoTask]],
    installed: dict[str, set[str]],
) -> DemoRun:
    """One run: its goal, what the agent did (a launch, sometimes after a failed one, or the wrong app, or
    none), its steps and outcome. `rng` is drawn in the same order for the same demo every time."""
    device = rng.choice(DEVICES)
    # A habit (the first habits are asked most), or something new: recall should abstain, or guesses wrong.
    habit = rng.random() < 0.75
    task = habits[device][min(int(rng.expovariate(1 / 8)), HABITS - 1)] if habit else rng.choice(tasks)
    started = day_start + rng.uniform(0, 3600)
    run = DemoRun(run_id, device, phrase(rng, task), started, meant=task.package)
    nickname = next((n for n, p in NICKNAMES.items() if p == task.package), None)
    run.spoken = nickname if nickname and rng.random() < 0.3 else task.app_name
    step = 0
    fate = rng.random()
    if fate < 0.06:  # the agent never got an app open
        target = None
    elif fate < 0.12:  # it opened the wrong app
        target = rng.choice(sorted(installed[device] - {task.package}))
        if rng.random() < 0.5:  # and saw it: back out ("开错了") and open the right one, as dream's evidence reads
            run.corrected_from = target
            step = 3
            run.events.append(_event(run, 1, "launch_app", "ok", package=target, intent=f"打开{run.spoken}"))
            run.events.append(_event(run, 2, "back", "ok", note="开错了，返回"))
            run.events.append(_event(run, 3, "launch_app", "ok", package=task.package, intent=f"打开{run.spoken}"))
            run.launched += [target, task.package]
            target = task.package
    else:
        target = task.package
    if target is not None and run.corrected_from is None:
        if rng.random() < 0.1:  # the name fails first; the package the failure offered is launched
            step += 1
            run.failed_first = True
            run.events.append(_event(run, step, "launch_app", "error", note="没找到"))
        step += 1
        run.events.append(_event(run, step, "launch_app", "ok", package=target, intent=f"打开{run.spoken}"))
        run.launched.append(target)
    steps = step + rng.randint(1, 10)
    for s in range(step + 1, steps + 1):
        tool = rng.choice(["tap", "tap", "swipe", "type_text", "read_screen"])
        run.events.append(_event(run, s, tool, "ok" if rng.random() > 0.05 else "error"))
    chance = 0.85 if target == task.package else 0.1
    success = rng.random() < chance
    run.outcome = {
        "run_id": run_id,
        "ts_start": started,
        "ts_end": started + steps * 6,
        "device_scope": f"device:{device}",
        "goal_text": run.goal,
        "apps": list(run.launched),
        "success": success,
        "reason": "finished" if success else rng.choice(["takeover", "max_steps", "verifier_failed"]),
        "steps": steps,
        "tokens_total": steps * 900,
        "tokens_by_role": {"actor": steps * 800, "verifier": steps * 100},
        "verifier": "pass" if success else "fail",
    }
    return run


def _event(
    run: DemoRun,
    step: int,
    tool: str,
    result: str,
    *,
    package: str | None = None,
    intent: str | None = None,
    note: str | None = None,
) -> DemoEvent:
    return {
        "run_id": run.run_id,
        "step": step,
        "ts": run.started + step * 6,
        "tool": tool,
        "result_class": result,
        "app_package": package,
        "intent": intent,
        "note": note,
    }


def _shadow_recall(memory: Memory, batch: list[DemoRun]) -> dict[str, RecallResult | None]:
    """What recall offered at each run's start, as `run.start` asks it (the goal redacted), a device at a time."""
    if memory.config.memory_rag == "off":
        return dict.fromkeys((run.run_id for run in batch), None)
    out: dict[str, RecallResult | None] = {}
    for device in DEVICES:
        runs = [run for run in batch if run.device == device]
        goals = [memory.redactor.redact(run.goal) for run in runs]
        # Explained, as `run.start` keeps it: calibration weighs the candidates below the threshold too.
        generation = memory.generation
        results = memory.recall.recall_many(goals, device, generation, explain=True) if runs else []
        out.update((run.run_id, result) for run, result in zip(runs, results, strict=True))
    return out


def _teach(memory: Memory, run: DemoRun, taught: set[tuple[str, str, bool]]) -> None:
    """The App-KB's share of the run's receipts: a failed name's offer, and the launch by the name spoken.

    Once per phone, name and way of failing: what the App-KB learns from the
    rest is the same (more successes), and each teaching is a write of its own.
    """
    if run.corrected_from is not None:
        # The first launch's receipt teaches the wrong app by that name, as an agent's would; the run's own
        # back-out and second launch are the evidence `dream` corrects it from (纠正开错的别名), kept as
        # `run.event` keeps it for launches and backs.
        memory.appkb.confirm_launch(run_id=run.run_id, device=run.device, name=run.spoken, package=run.corrected_from)
        memory.appkb.end_run_evidence(run.run_id)
        for event in run.events[:3]:
            alias_correction.record_observation(
                memory.store,
                run_id=run.run_id,
                step=event["step"],
                tool=event["tool"],
                success=True,
                term=run.spoken if event["tool"] == "launch_app" else None,
                package=event["app_package"],
                marker="开错" if event["tool"] == "back" else None,
                actor="agent",
            )
        return
    key = (run.device, run.spoken, run.failed_first)
    if not run.launched or key in taught or not (run.failed_first or run.spoken in NICKNAMES):
        return
    if run.launched[0] != run.meant:
        return  # the wrong app, never backed out of: its run failed verification and its launch is not confirmed
    taught.add(key)
    package = run.launched[0]
    if run.failed_first:
        memory.appkb.note_failed_resolution(run.run_id, run.spoken, f"未找到“{run.spoken}”，候选：{package}")
    memory.appkb.confirm_launch(run_id=run.run_id, device=run.device, name=run.spoken, package=package)
    memory.appkb.end_run_evidence(run.run_id)


def _trace(memory: Memory, run: DemoRun, recall: RecallResult) -> DemoTrace:
    """The run's recall scored against what was really launched, as `run.finish` keeps it."""
    mentioned = [a for c in recall.candidates if c.source == "mention" for a in c.apps]
    evaluation = recall_stats.evaluate(recall.recalled_apps, recall.top1_apps, run.launched, mentioned)
    return {
        "run_id": run.run_id,
        "ts": float(run.outcome["ts_end"]),
        "device_scope": f"device:{run.device}",
        "mode": recall.mode,
        "embedder": recall.embedder,
        "recall": recall.to_dict(),
        "evaluation": evaluation,
    }


def make_demo(config: Config, *, runs: int, embed_model: str, progress: Progress | None = None) -> dict[str, int]:
    """Create a demo home (it must be new or empty) with its own config.toml, learning grant included."""
    home = config.home_path
    if home.exists() and any(home.iterdir()):
        raise InvalidInput(f"{home} is not empty; the demo fills a new home (choose another --home)")
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = save_settings(home, {"embed_model": embed_model})
    section = example_section()
    with path.open("a", encoding="utf-8") as settings:
        settings.write("\n" + section)
    values = dict(config.values)
    values["embed_model"] = embed_model
    grant = parse_grant(tomllib.loads(section)["learning"])
    with Memory.open(Config(values, config.sources, grant)) as memory:
        made = fill(memory, runs=runs, progress=progress)
        return {**made, **fill_learning(memory)}
