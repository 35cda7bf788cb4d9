"""What counting procedure-card selections costs a run (docs/recall.md, Procedure cards and their counters).

In one process, the same runs (a goal naming an app, three confirmed launches of different packages,
`run.finish`) reported through `Memory` in shadow mode, into two fresh homes: one where the run path
selects and counts procedure cards as TaskWizard does (up to four selections a run here, each an event),
one where the selection step is skipped (the baseline). A few approved procedure cards are in both homes,
so the selections embed and score them. The hash embedder stands in for the model (`--embed-model`).

Run: `python -P bench/procedure_counting.py [--runs 200] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from service.config import load_config
from service.memory.memory import Memory
from service.memory.procedure_recall import ProcedureRecall
from store.episodes import lessons

APPS = ["com.tencent.mm", "com.taobao.taobao", "com.android.settings", "com.sankuai.meituan"]
GOALS = ["打开微信给妈妈发消息", "在淘宝买一包纸巾", "打开设置调亮度", "用美团点一份外卖"]


def cards(memory: Memory) -> None:
    """Three approved procedure cards, as an import from TaskWizard would leave them."""
    for i, app in enumerate(APPS[:3]):
        lesson = {
            "lesson_id": f"les_{i:016x}",
            "schema_v": 1,
            "version": 1,
            "status": "proposed",
            "text": f"{GOALS[i]}的步骤",
            "scope": {"device": None, "app": app, "app_version": None},
            "evidence": [],
            "support_count": 1,
            "task_keys": [],
            "conflicts": [],
            "created_ts": 1.0 + i,
            "source": "distill",
            "kind": "procedure",
            "steps": ["打开应用", "找到入口", "确认"],
            "pitfalls": None,
            "app_scope": app,
        }
        with memory.parts.writes, memory.store.atomic():
            event = {"schema_v": 1, "ts": 1.0 + i, "lesson": lesson}
            memory.store.append(lessons.DOMAIN, "lesson_proposed", event, actor="bench")
        memory.lessons.set_lesson_status(lesson["lesson_id"], "approved")


def runs(memory: Memory, count: int) -> float:
    """Seconds per run for `count` runs."""
    start = time.perf_counter()
    for n in range(count):
        run_id = f"bench-{n}"
        memory.runs.run_start(run_id, "emu-5554", goal=GOALS[n % len(GOALS)])
        for step, app in enumerate(APPS[1:], start=1):
            event = {"run_id": run_id, "step": step, "tool": "launch_app", "result_class": "ok", "app_package": app}
            memory.runs.run_event(event)
        memory.runs.run_finish(run_id, {"success": True, "steps": 4})
    return (time.perf_counter() - start) / count


def measure(home: Path, count: int, embed_model: str, counting: bool) -> dict[str, Any]:
    config = load_config(home=home, env={"JIYI_EMBED_MODEL": embed_model, "JIYI_DREAM": "manual"})
    with Memory.open(config) as memory:
        cards(memory)
        if not counting:
            memory.runs.procedures = _Skipped(memory)
        runs(memory, 5)  # warm: the embedder and the indexes loaded
        per_run = runs(memory, count)
        selections = memory.recall.recall_statistics()["totals"].get("procedure_runs", 0)
    return {"ms_per_run": round(per_run * 1000, 2), "selections": selections}


class _Skipped(ProcedureRecall):
    """The baseline: the run path without the selection step."""

    def __init__(self, memory: Memory) -> None:
        super().__init__(memory.parts, memory.recall)

    def _select(self, *args: Any, **kwargs: Any) -> None:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--embed-model", default="hash")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = measure(Path(tmp) / "baseline", args.runs, args.embed_model, counting=False)
        counted = measure(Path(tmp) / "counted", args.runs, args.embed_model, counting=True)
    report = {
        "runs": args.runs,
        "baseline": baseline,
        "counting": counted,
        "ratio": round(counted["ms_per_run"] / max(baseline["ms_per_run"], 1e-9), 3),
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.runs} runs, 3 launches each, shadow mode, {args.embed_model} embedder")
    print(f"  without card selection: {baseline['ms_per_run']} ms a run")
    print(f"  counting card selections: {counted['ms_per_run']} ms a run ({counted['selections']} selections)")
    print(f"  ratio: {report['ratio']}x")


if __name__ == "__main__":
    main()
