"""`jiyi dream`: a consolidation pass (or its dry run), and the reports of earlier passes."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from service.cli.command import Subparsers, add_command, open_memory
from service.cli.output import progress_bar

if TYPE_CHECKING:
    from service.config import Config
    from service.wire.upkeep import DreamRecord, DreamStep


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`dream [--dry-run] [--light]` and `dream --reports`."""
    dream = add_command(sub, "dream", common, run_dream, "consolidate: correct aliases, clean up, fold, reconcile")
    dream.add_argument("--dry-run", action="store_true", help="list every change the pass would make; make none")
    dream.add_argument("--light", action="store_true", help="the light pass (as after each run): never deletes")
    dream.add_argument("--reports", action="store_true", help="show the reports of earlier passes instead")


def run_dream(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        if args.reports:
            _print_reports(memory.dream.reports())
            return 0
        with progress_bar("dreaming", "steps") as progress:
            report = memory.dream.run(full=not args.light, dry_run=args.dry_run, progress=progress)
    verb = "would change" if args.dry_run else "changed"
    for step in report["steps"]:
        if not step["ok"]:
            print(f"{step['step']:<18} failed: {step['error']}")
            continue
        print(f"{step['step']:<18} {_step_summary(step, verb, dry_run=args.dry_run)}")
        changes = step.get("changes")
        for change in changes if isinstance(changes, list) else []:
            print(f"    {describe_change(change)}")
        for line in _fold_lines(step):
            print(f"    {line}")
    return 0


def _step_summary(step: DreamStep, verb: str, *, dry_run: bool) -> str:
    """`changed 3`, `would remove 2 and add 5 index entries`, or `nothing to do` (never `-0 +0`)."""
    count = step.get("count")
    if count is not None:
        return f"{verb} {count}" if count else ("nothing to change" if dry_run else "nothing changed")
    removed, added = _whole(step.get("removed")), _whole(step.get("added"))
    if not removed and not added:
        return "nothing to change" if dry_run else "nothing changed"
    would = "would " if dry_run else ""
    parts = [f"{would}remove {removed}"] if removed else []
    parts += [f"{'' if parts else would}add {added}"] if added else []
    return " and ".join(parts) + " index entries"


def describe_change(change: Any) -> str:
    """One change of a dream step on one line: what it is about, from what to what."""
    if not isinstance(change, dict):
        return str(change)
    if "kept" in change:
        kept, removed = change["kept"], change.get("removed", [])
        gone = ", ".join(f"{e.get('kind')} {e.get('scope')}" for e in removed)
        return f"merge {kept.get('term')} → {kept.get('package')}: keep {kept.get('kind')}, remove {gone}"
    keys = ("term", "package", "from_package", "to_package", "kind", "scope", "confidence", "reason")
    shown = " ".join(f"{k}={change[k]}" for k in keys if change.get(k) not in (None, ""))
    return shown or json.dumps(change, ensure_ascii=False)


def _whole(value: object) -> int:
    """A step's count (0 when it has none)."""
    return int(value) if isinstance(value, int | float | str) else 0


def _fold_lines(step: DreamStep) -> list[str]:
    """A fold's runs: each one a dry run describes (date, device, outcome, goal), then how many more."""
    episodes = step.get("episodes")
    if not isinstance(episodes, list):
        return []
    lines = []
    for e in episodes:
        when = datetime.fromtimestamp(float(e["ts_end"])).strftime("%Y-%m-%d %H:%M")
        outcome = "ok" if e.get("success") else "failed"
        lines.append(
            f"fold {e['run_id']}  {when}  {e['device_scope'].removeprefix('device:')}  {outcome}  {e['goal_text']}"
        )
    more = _whole(step.get("count")) - len(episodes)
    if more > 0:
        lines.append(f"… and {more} older runs")
    return lines


def _print_reports(reports: list[DreamRecord]) -> None:
    for report in reports:
        when = datetime.fromtimestamp(report.ts).isoformat(sep=" ", timespec="seconds")
        print(f"{when}  {report.pass_:<5}  {json.dumps(report.summary)}")
    if not reports:
        print("no dream reports yet")
