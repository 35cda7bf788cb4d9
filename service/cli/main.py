"""The `jiyi` command line: every command takes `--home DIR` (same as JIYI_HOME).

`jiyi` alone opens the console (see `gui.main`); the commands here work
without a display. Exit codes: 0 done, 2 bad input, 3 the home or machine is
not usable, 4 not found, 5 conflict.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from recall.embedders import EMBEDDERS
from service import __version__
from service.cli import desk as cli_desk
from service.config import Config, load_config
from service.evaluation.resolve_eval import run_eval
from service.memory.memory import Memory
from store.appkb.entry import KINDS
from store.appkb.kb import parse_assignment
from store.core.errors import Conflict, EnvironmentProblem, InvalidInput, JiyiError, NotFound

EXIT = {InvalidInput: 2, EnvironmentProblem: 3, NotFound: 4, Conflict: 5}
Command = Callable[[argparse.Namespace, Config], int]


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="state directory (or JIYI_HOME)")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree (documented in docs/cli.md; a test keeps them in step)."""
    common = _common()
    parser = argparse.ArgumentParser(
        prog="jiyi",
        description="记忆 Jiyi — the memory console and memory service for personal AI agents. "
        "With no command, opens the console.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"jiyi {__version__}")
    parser.add_argument("--learn-alias", metavar="名称=包名", help="set a global user alias and exit")
    parser.add_argument("--forget-alias", metavar="名称", help="forget a name's user and learned aliases and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("gui", parents=[common], help="open the console (the default)")
    shots = sub.add_parser("screenshots", parents=[common], help="render every console page offscreen to PNG")
    shots.add_argument("--out", type=Path, required=True, help="folder for <page>.png")
    demo = sub.add_parser("demo", parents=[common], help="fill a new home with realistic demo memory")
    demo.add_argument("--runs", type=int, default=2000, help="how many runs to write (default 2000)")
    demo.add_argument(
        "--embed-model", choices=EMBEDDERS, default="hash", help="embedder for the demo (default: hash, fast)"
    )

    alias = sub.add_parser("alias", parents=[common], help="App-KB aliases").add_subparsers(
        dest="alias_command", metavar="ACTION", required=True
    )
    listing = alias.add_parser("list", parents=[common], help="list App-KB entries")
    listing.add_argument("--device", help="only global entries and this device's")
    listing.add_argument("--kind", choices=KINDS)
    listing.add_argument("--text", help="substring of the name, label or package")
    listing.add_argument("--no-stale", action="store_true", help="hide stale entries")
    listing.add_argument("--json", action="store_true")
    learn = alias.add_parser("learn", parents=[common], help="set a global user alias: 名称=包名")
    learn.add_argument("assignment", metavar="名称=包名")
    forget = alias.add_parser("forget", parents=[common], help="forget a name's user and learned aliases")
    forget.add_argument("name", metavar="名称")
    history = alias.add_parser("history", parents=[common], help="every change to a name, newest first")
    history.add_argument("name", metavar="名称")
    history.add_argument("--json", action="store_true")
    undo = alias.add_parser("undo", parents=[common], help="revert a change by its id (from history)")
    undo.add_argument("change", type=int, metavar="CHANGE")

    lesson = sub.add_parser("lesson", parents=[common], help="lessons given to agents in `on` mode").add_subparsers(
        dest="lesson_command", metavar="ACTION", required=True
    )
    lesson_add = lesson.add_parser("add", parents=[common], help="propose a lesson")
    lesson_add.add_argument("text")
    lesson_add.add_argument("--app", action="append", default=[], help="a package it is about (repeatable)")
    lesson_list = lesson.add_parser("list", parents=[common], help="list lessons")
    lesson_list.add_argument("--status", choices=["proposed", "approved", "revoked"])
    for verb, text in (("approve", "approve a lesson (your act: agents cannot)"), ("revoke", "take a lesson away")):
        action = lesson.add_parser(verb, parents=[common], help=text)
        action.add_argument("lesson_id")

    inventory = sub.add_parser("inventory", parents=[common], help="device inventories").add_subparsers(
        dest="inventory_command", metavar="ACTION", required=True
    )
    sync = inventory.add_parser("sync", parents=[common], help="sync a device's installed apps from a TSV")
    sync.add_argument("--device", required=True)
    sync.add_argument("file", type=Path, help="TSV with header package<TAB>label")

    resolve = sub.add_parser("resolve", parents=[common], help="resolve an app name to a package")
    resolve.add_argument("name")
    resolve.add_argument("--device", help="the device serial (its inventory decides what is installed)")
    resolve.add_argument("--json", action="store_true")

    recall = sub.add_parser(
        "recall", parents=[common], help="what recall would return for a task on a device now, and why (logs nothing)"
    )
    recall.add_argument("goal", help="the task, as an agent would start it")
    recall.add_argument("--device", required=True, help="the device serial (recall only uses its own past runs)")
    recall.add_argument("--json", action="store_true")

    serve = sub.add_parser("serve", parents=[common], help="host the agent service headless (no display needed)")
    serve.add_argument("--socket", type=Path, help="socket path (or JIYI_SOCKET; default in the runtime directory)")
    serve.add_argument("--workers", type=int, default=4, help="requests served at once (default 4)")

    dream = sub.add_parser("dream", parents=[common], help="consolidate: correct aliases, clean up, fold, reconcile")
    dream.add_argument("--dry-run", action="store_true", help="list every change the pass would make; make none")
    dream.add_argument("--light", action="store_true", help="the light pass (as after each run): never deletes")
    dream.add_argument("--reports", action="store_true", help="show the reports of earlier passes instead")

    sub.add_parser("rebuild", parents=[common], help="rebuild every view from the event log")
    sub.add_parser("rebuild-vec", parents=[common], help="rebuild the vector index from the archive")
    stats = sub.add_parser("recall-stats", parents=[common], help="recall quality: hit@1, contamination, package P/R")
    stats.add_argument("--days", type=int, help="only the last N days")
    stats.add_argument("--export", type=Path, metavar="FILE", help="write recall_stats.json (the reference's shape)")
    sub.add_parser("config", parents=[common], help="show the effective settings and where they come from")
    sub.add_parser("health", parents=[common], help="version, schema and counts")

    for verb, text in (
        ("import", "import a TaskWizard memory/ directory"),
        ("export", "export as TaskWizard memory/"),
    ):
        group = sub.add_parser(verb, parents=[common], help=text).add_subparsers(
            dest="format", metavar="FORMAT", required=True
        )
        target = group.add_parser("taskwizard", parents=[common], help=text)
        target.add_argument("directory", type=Path)

    cli_desk.add_parsers(sub, common)
    evaluation = sub.add_parser("eval", parents=[common], help="evaluations").add_subparsers(
        dest="eval_command", metavar="WHAT", required=True
    )
    er = evaluation.add_parser("recall", parents=[common], help="measure shadow recall of past runs")
    er.add_argument("--history", type=Path, required=True, help="TSV: goal<TAB>package (past successful runs)")
    er.add_argument("--queries", type=Path, required=True, help="TSV: goal<TAB>actual[<TAB>has_history]")
    er.add_argument("--embed-model", choices=EMBEDDERS, help="the embedder to evaluate (default: JIYI_EMBED_MODEL)")
    er.add_argument("--json", action="store_true", help="JSON only")
    er.add_argument(
        "--details", type=Path, metavar="FILE", help="also write one TSV row per query: what was recalled and why"
    )
    er.add_argument(
        "--history-sample",
        type=_positive_int,
        metavar="N",
        help="use N history rows drawn at random (a device with a shorter past); has_history follows the sample",
    )
    er.add_argument("--seed", type=int, default=0, help="the draw of --history-sample (default 0)")
    ev = evaluation.add_parser("resolve", parents=[common], help="measure app-name resolution")
    ev.add_argument("--inventory", type=Path, required=True, help="TSV: package<TAB>label")
    ev.add_argument("--queries", type=Path, required=True, help="TSV: query<TAB>expected[<TAB>kind]")
    ev.add_argument("--json", action="store_true", help="JSON only (the default prints JSON and a summary)")
    return parser


def _positive_int(text: str) -> int:
    """argparse type: a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def _pad(text: str, width: int) -> str:
    """Left-justify `text` to `width` terminal columns (CJK characters take two)."""
    columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(1, width - columns)


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _cmd_alias_list(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        entries = memory.list_aliases(
            device=args.device, kind=args.kind, text=args.text, include_stale=not args.no_stale
        )
    if args.json:
        _print_json([e.to_dict() for e in entries])
        return 0
    if not entries:
        print("no App-KB entries match")
        return 0
    print(f"{_pad('name', 20)}{_pad('package', 40)}{_pad('kind', 8)}{_pad('scope', 18)}  ok  state")
    for e in entries:
        state = "stale" if e.stale else ""
        print(
            f"{_pad(e.term, 20)}{_pad(e.package, 40)}{_pad(e.kind, 8)}{_pad(e.scope, 18)}{e.success_count:>4}  {state}"
        )
    print(f"{len(entries)} entries")
    return 0


def _learn(config: Config, assignment: str) -> int:
    name, package = parse_assignment(assignment)
    with Memory.open(config) as memory:
        outcome = memory.learn_alias(name, package, actor="user")
    result = outcome.result
    if result.changed:
        replaced = ", ".join(f"{r.kind} {r.package}" for r in result.replaced) or "nothing"
        print(
            f"learned: {result.entry.term} → {result.entry.package} (user, global; replaced {replaced}); "
            f"change {result.txn}"
        )
    else:
        print(f"unchanged: {result.entry.term} → {result.entry.package} was already your alias; change {result.txn}")
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _forget(config: Config, name: str) -> int:
    with Memory.open(config) as memory:
        result = memory.forget_alias(name, actor="user")
    if result.removed:
        removed = ", ".join(f"{r.kind} {r.package}" for r in result.removed)
        print(f"forgot {result.term}: removed {removed}; device entries kept; change {result.txn}")
    else:
        print(f"nothing to forget for {result.term} (device entries are never touched); change {result.txn}")
    return 0


def _cmd_alias_history(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        items = memory.alias_history(args.name)
    if args.json:
        _print_json(
            [
                {
                    "seq": i.seq,
                    "ts": i.ts,
                    "actor": i.actor,
                    "type": i.type,
                    "change": i.txn,
                    **i.payload,
                }
                for i in items
            ]
        )
        return 0
    if not items:
        print(f"no history for {args.name}")
        return 0
    for item in items:
        detail = f"{item.kind or ''} {item.package or ''}".strip()
        if item.type == "alias_forgotten":
            detail = "removed " + (
                ", ".join(f"{r['kind']} {r['package']}" for r in item.payload.get("removed", [])) or "nothing"
            )
        undo = f" (undo of {item.undo_of})" if item.undo_of else ""
        print(f"change {item.txn:>6}  {item.ts[:19]}  {item.actor:<7} {item.type:<16} {detail}{undo}")
    return 0


def _cmd_alias_undo(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        result = memory.undo_change(args.change, actor="user")
    removed = ", ".join(f"{e.term}→{e.package} ({e.kind})" for e in result.removed) or "nothing"
    restored = ", ".join(f"{e.term}→{e.package} ({e.kind})" for e in result.restored) or "nothing"
    print(f"undid change {result.reverted_txn}: removed {removed}; restored {restored}; change {result.txn}")
    return 0


def _cmd_inventory_sync(args: argparse.Namespace, config: Config) -> int:
    from store.appkb.inventory_file import read_inventory

    apps = read_inventory(args.file)
    with Memory.open(config) as memory:
        report = memory.sync_inventory(args.device, apps, actor="user")
    print(
        f"device {report.device}: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.staled} marked stale"
    )
    return 0


def _cmd_resolve(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        result = memory.resolve_app(args.name, device=args.device)
    if args.json:
        _print_json(result.to_dict())
        return 0
    print(f"{result.state}: {result.package or '-'}  ({result.reason})")
    for c in result.candidates:
        installed = "" if c.installed is None else ("installed" if c.installed else "not installed")
        print(
            f"  {_pad(c.package, 40)}{_pad(c.label, 14)}via {_pad(repr(c.name), 14)}{_pad(c.evidence, 22)}"
            f"sim {c.similarity:.3f} prior {c.prior:.3f} score {c.score:.3f} {installed}"
        )
    for c in result.not_installed:
        print(f"  (not installed) {c.package} {c.label} {c.evidence} score {c.score:.3f}")
    return 0


def _cmd_recall(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        result = memory.recall_query(args.goal, args.device, explain=True)
    if args.json:
        _print_json(result)
        return 0
    top = result["candidates"][0] if result["candidates"] else None
    if top is None:
        print(f"abstained: nothing scored {result['threshold']} or more ({result['embedder']}, device {args.device})")
    elif top["source"] == "mention":
        print(f"recalled {' '.join(top['apps'])}: the task names it ({top['term']!r})")
    else:
        apps = " ".join(top["apps"])
        print(f"recalled {apps}  score {top['score']:.3f} >= {result['threshold']} ({result['embedder']})")
    episodes = [c for c in result["considered"] if c["source"] == "episode"]
    if episodes:
        print(f"  {_pad('app', 34)}{_pad('score', 8)}{_pad('similar', 9)}{_pad('wording', 9)}nearest past goal")
    for c in episodes:
        score, vector, owned = f"{c['score']:.3f}", f"{c['vector']:.3f}", f"{c['ownership']:.2f}"
        apps = " ".join(c["apps"])
        print(f"  {_pad(apps, 34)}{_pad(score, 8)}{_pad(vector, 9)}{_pad(owned, 9)}{c['goal']}  ({c['run_id']})")
    if not episodes and top is None:
        print(f"  no past runs of device {args.device} to compare with")
    return 0


def _cmd_serve(args: argparse.Namespace, config: Config) -> int:
    from service.rpc.host import serve

    if not 1 <= args.workers <= 64:
        raise InvalidInput("--workers must be between 1 and 64")
    return serve(config, socket_path=args.socket, workers=args.workers)


def _cmd_dream(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        if args.reports:
            found = memory.dream_reports()
            for report in found:
                when = datetime.fromtimestamp(report["ts"]).isoformat(sep=" ", timespec="seconds")
                print(f"{when}  {report['pass']:<5}  {json.dumps(report.get('summary', {}))}")
            if not found:
                print("no dream reports yet")
            return 0
        report = memory.dream(full=not args.light, dry_run=args.dry_run)
    verb = "would change" if args.dry_run else "changed"
    for step in report["steps"]:
        if not step["ok"]:
            print(f"{step['step']:<18} failed: {step['error']}")
            continue
        count = step.get("count", None)
        detail = f"{count}" if count is not None else f"-{step.get('removed', 0)} +{step.get('added', 0)}"
        print(f"{step['step']:<18} {verb} {detail}")
        for change in step.get("changes", [])[:20]:
            print(f"    {json.dumps(change, ensure_ascii=False)[:200]}")
    return 0


def _cmd_demo(args: argparse.Namespace, config: Config) -> int:
    from service.demo.fill import make_demo

    if "home" not in config.sources:
        raise InvalidInput("give the demo its own home: jiyi demo --home DIR")
    if not 1 <= args.runs <= 100_000:
        raise InvalidInput("--runs must be between 1 and 100000")

    def progress(done: int, total: int) -> None:
        print(f"\rwriting runs {done}/{total}", end="", file=sys.stderr, flush=True)

    result = make_demo(config, runs=args.runs, embed_model=args.embed_model, progress=progress)
    print(file=sys.stderr)
    print(
        f"demo home {config.home}: {result['devices']} devices, {result['runs']} runs, "
        f"{result['aliases']} App-KB entries"
    )
    print(f"open it: jiyi --home {config.home}")
    return 0


def _cmd_rebuild(args: argparse.Namespace, config: Config) -> int:
    def progress(done: int, total: int) -> None:
        print(f"\rreplaying {done}/{total} events", end="", file=sys.stderr, flush=True)

    with Memory.open(config) as memory:
        counts = memory.rebuild(progress=progress)
        check = memory.store.integrity_check()
    print(file=sys.stderr)
    restored = counts.pop("bundle_files_restored", 0)
    views = ", ".join(
        f"{k} ({v} {'damaged, left out' if k.endswith('_skipped') else 'events'})" for k, v in counts.items()
    )
    extra = f"; {restored} missing bundle files written back" if restored else ""
    print(f"rebuilt {views}{extra}; integrity {check}")
    return 0


def _cmd_rebuild_vec(args: argparse.Namespace, config: Config) -> int:
    def progress(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(1, total)
        bar = "#" * filled + "-" * (width - filled)
        print(f"\r[{bar}] {done}/{total} episodes", end="", file=sys.stderr, flush=True)

    with Memory.open(config) as memory:
        result = memory.rebuild_vectors(progress=progress)
    print(file=sys.stderr)
    print(
        f"dropped {result['collections_dropped']} collections; indexed {result['episodes']} episodes "
        f"({result['embedded']} embedded with {config.embed_model})"
    )
    return 0


def _cmd_recall_stats(args: argparse.Namespace, config: Config) -> int:
    import time

    since = time.time() - args.days * 86400 if args.days else None
    with Memory.open(config) as memory:
        stats = memory.recall_statistics(since=since)
        if args.export:
            memory.export_recall_stats(args.export)
    _print_json(stats["totals"])
    if args.export:
        print(f"wrote {args.export}", file=sys.stderr)
    return 0


def _cmd_lesson(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        if args.lesson_command == "add":
            lessons = [memory.add_lesson(args.text, args.app, actor="user")]
        elif args.lesson_command == "list":
            lessons = memory.list_lessons(args.status)
        else:
            status = "approved" if args.lesson_command == "approve" else "revoked"
            lessons = [memory.set_lesson_status(args.lesson_id, status, actor="user")]
    for lesson in lessons:
        apps = ",".join(lesson["apps"]) or "any app"
        print(f"{lesson['lesson_id']}  {lesson['status']:<8}  {apps}  {lesson['text']}")
    if not lessons:
        print("no lessons")
    return 0


def _cmd_config(args: argparse.Namespace, config: Config) -> int:
    for _name, env, value, source in config.describe():
        shown = ",".join(value) if isinstance(value, tuple) else value
        print(f"{env:<28} {shown!s:<40} {source}")
    return 0


def _cmd_health(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        _print_json(memory.health())
    return 0


def _cmd_import(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        reports = memory.import_taskwizard(args.directory)
    for report in reports.values():
        if report.already_imported:
            print(f"{report.source} was imported before; nothing done")
            continue
        print(f"imported {report.imported} records from {report.source}; skipped {report.skipped} corrupt")
        for problem in report.problems:
            print(f"  skipped {problem}", file=sys.stderr)
    return 0


def _cmd_export(args: argparse.Namespace, config: Config) -> int:
    with Memory.open(config) as memory:
        counts = memory.export_taskwizard(args.directory)
    app_kb, experience = counts["app_kb"], counts["experience"]
    print(f"wrote {app_kb['events']} events and {app_kb['entries']} entries to {args.directory / 'app_kb'}")
    folder = args.directory / "experience"
    print(f"wrote {experience['records']} records and {experience['episodes']} episodes to {folder}")
    return 0


def _cmd_eval(args: argparse.Namespace, config: Config) -> int:
    fresh = "home" not in config.sources
    report = run_eval(config, args.inventory, args.queries, fresh_home=fresh)
    _print_json(report)
    if not args.json:
        print(
            f"top1 {report['top1_accuracy']}  resolved precision {report['resolved_precision']}  "
            f"resolved {report['resolved_rate']}  p50 {report['latency_ms']['p50']} ms",
            file=sys.stderr,
        )
    return 0


def _cmd_eval_recall(args: argparse.Namespace, config: Config) -> int:
    from service.evaluation.recall_eval import run_eval as run_recall_eval

    fresh = "home" not in config.sources
    report = run_recall_eval(
        config,
        args.history,
        args.queries,
        fresh_home=fresh,
        embed_model=args.embed_model,
        details_path=args.details,
        history_sample=args.history_sample,
        seed=args.seed,
    )
    _print_json(report)
    if not args.json:
        print(
            f"hit@1 {report['hit_at_1']}  contaminated {report['contaminated_run_rate']}  "
            f"abstain {report['abstain_rate']}  p50 {report['latency_ms']['p50']} ms",
            file=sys.stderr,
        )
    return 0


COMMANDS: dict[tuple[str, ...], Command] = {
    ("alias", "list"): _cmd_alias_list,
    ("alias", "learn"): lambda a, c: _learn(c, a.assignment),
    ("alias", "forget"): lambda a, c: _forget(c, a.name),
    ("alias", "history"): _cmd_alias_history,
    ("alias", "undo"): _cmd_alias_undo,
    ("inventory", "sync"): _cmd_inventory_sync,
    ("resolve",): _cmd_resolve,
    ("recall",): _cmd_recall,
    ("serve",): _cmd_serve,
    ("rebuild",): _cmd_rebuild,
    ("demo",): _cmd_demo,
    ("dream",): _cmd_dream,
    ("rebuild-vec",): _cmd_rebuild_vec,
    ("lesson", "add"): _cmd_lesson,
    ("lesson", "list"): _cmd_lesson,
    ("lesson", "approve"): _cmd_lesson,
    ("lesson", "revoke"): _cmd_lesson,
    ("recall-stats",): _cmd_recall_stats,
    ("config",): _cmd_config,
    ("health",): _cmd_health,
    ("import", "taskwizard"): _cmd_import,
    ("export", "taskwizard"): _cmd_export,
    ("eval", "resolve"): _cmd_eval,
    ("eval", "recall"): _cmd_eval_recall,
    **{("desk", verb): cli_desk.run for verb in cli_desk.VERBS},
}


def command_path(args: argparse.Namespace) -> tuple[str, ...]:
    """The command words of parsed `args`, e.g. ('alias', 'learn')."""
    if args.command is None:
        return ()
    second = {
        "alias": "alias_command",
        "lesson": "lesson_command",
        "inventory": "inventory_command",
        "import": "format",
        "export": "format",
        "eval": "eval_command",
        "desk": "desk_command",
    }.get(args.command)
    return (args.command, getattr(args, second)) if second else (args.command,)


def run(args: argparse.Namespace) -> int:
    """Run a parsed headless command; errors become a message and an exit code."""
    try:
        config = load_config(home=getattr(args, "home", None))
        logging.basicConfig(level=config.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
        if args.learn_alias or args.forget_alias:
            status = 0
            if args.learn_alias:
                status = _learn(config, args.learn_alias)
            if args.forget_alias:
                status = status or _forget(config, args.forget_alias)
            return status
        return COMMANDS[command_path(args)](args, config)
    except JiyiError as exc:
        print(f"jiyi: {exc}", file=sys.stderr)
        return next((code for kind, code in EXIT.items() if isinstance(exc, kind)), 1)


def main(argv: Sequence[str] | None = None) -> int:
    """Headless entry point (used by tests and by `gui.main`)."""
    return run(build_parser().parse_args(argv))
