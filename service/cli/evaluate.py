"""`jiyi eval resolve`, `jiyi eval recall` and `jiyi eval memory`: measure resolution, shadow recall and desk
recall on labelled files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import LazyChoices, Subparsers, add_command, add_group, positive_int
from service.cli.output import print_json
from store.core.errors import InvalidInput

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`eval recall --history FILE --queries FILE …` and `eval resolve --inventory FILE --queries FILE`."""
    evaluation = add_group(sub, "eval", common, "evaluations", dest="eval_command", metavar="WHAT")
    recall = add_command(
        evaluation, "recall", common, evaluate_recall, "measure shadow recall of past runs", home="create"
    )
    recall.add_argument("--history", type=Path, help="TSV: goal<TAB>package (past successful runs)")
    recall.add_argument("--queries", type=Path, help="TSV: goal<TAB>actual[<TAB>has_history]")
    recall.add_argument(
        "--set",
        choices=LazyChoices("service.evaluation.recall_eval", "SETS"),
        metavar="NAME",
        help="a bundled set instead of --history/--queries: %(choices)s (new tasks reworded from past ones, "
        "mostly one past run per app; docs/recall.md)",
    )
    recall.add_argument(
        "--scoring",
        choices=LazyChoices("recall.confidence", "SCORINGS"),
        metavar="SCORING",
        help="what the threshold is held against: %(choices)s (default: JIYI_RECALL_SCORING)",
    )
    recall.add_argument(
        "--embed-model",
        choices=LazyChoices("recall.embedders", "EMBEDDERS"),
        metavar="MODEL",
        help="the embedder to evaluate: %(choices)s (default: JIYI_EMBED_MODEL)",
    )
    recall.add_argument("--json", action="store_true", help="JSON only")
    recall.add_argument(
        "--details", type=Path, metavar="FILE", help="also write one TSV row per query: what was recalled and why"
    )
    recall.add_argument(
        "--history-sample",
        type=positive_int,
        metavar="N",
        help="use N history rows drawn at random (a device with a shorter past); has_history follows the sample",
    )
    recall.add_argument("--seed", type=int, default=0, help="the draw of --history-sample (default 0)")
    recall.add_argument(
        "--max-contamination",
        metavar="X",
        help="the contamination budget prequential calibration holds, between 0 and 1 "
        "(default: JIYI_RECALL_MAX_CONTAMINATION)",
    )
    recall.add_argument(
        "--fixed-threshold",
        action="store_true",
        help="use the embedder's fixed threshold instead of calibrating (for comparison)",
    )
    memory = add_command(
        evaluation,
        "memory",
        common,
        evaluate_memory,
        "measure desk recall (memory.recall) on conversations",
        home="none",
    )
    memory.add_argument(
        "--conversations",
        type=Path,
        nargs="+",
        required=True,
        metavar="FILE",
        help="LoCoMo conversation files or the plain format ({interactions, questions}); each in a fresh home",
    )
    memory.add_argument(
        "--embed-model",
        choices=LazyChoices("recall.embedders", "EMBEDDERS"),
        metavar="MODEL",
        help="the embedder to evaluate: %(choices)s (default: JIYI_EMBED_MODEL)",
    )
    memory.add_argument("--json", action="store_true", help="the report as JSON")
    memory.add_argument("--details", type=Path, metavar="FILE", help="also write one JSON line per question")
    resolve = add_command(evaluation, "resolve", common, evaluate_resolve, "measure app-name resolution", home="create")
    resolve.add_argument("--inventory", type=Path, required=True, help="TSV: package<TAB>label")
    resolve.add_argument("--queries", type=Path, required=True, help="TSV: query<TAB>expected[<TAB>kind]")
    resolve.add_argument("--json", action="store_true", help="JSON only (the default prints JSON and a summary)")


def evaluate_memory(args: argparse.Namespace, config: Config) -> int:
    """A table (or `--json`) on stdout; progress on stderr while the conversations are embedded."""
    from service.evaluation import memory_eval
    from store.core.home.atomic_file import write_text

    def progress(name: str, done: int, total: int) -> None:
        if not args.json and (done == total or done % 640 == 0):
            print(f"{name}: embedded {done}/{total}", file=sys.stderr)

    report = memory_eval.run_eval(config, args.conversations, embed_model=args.embed_model, progress=progress)
    rows = report.pop("rows")
    if args.details:
        write_text(args.details, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), mode=0o600)
    if args.json:
        print_json(report)
    else:
        print(memory_eval.table(report))
    return 0


def evaluate_resolve(args: argparse.Namespace, config: Config) -> int:
    """The report as JSON on stdout; without `--json`, a one-line summary on stderr too."""
    from service.evaluation import resolve_eval

    fresh = "home" not in config.sources
    report = resolve_eval.run_eval(config, args.inventory, args.queries, fresh_home=fresh)
    print_json(report)
    if not args.json:
        print(
            f"top1 {report['top1_accuracy']}  resolved precision {report['resolved_precision']}  "
            f"resolved {report['resolved_rate']}  p50 {report['latency_ms']['p50']} ms",
            file=sys.stderr,
        )
    return 0


def evaluate_recall(args: argparse.Namespace, config: Config) -> int:
    """The report as JSON on stdout; without `--json`, a one-line summary on stderr too."""
    from service.evaluation import recall_eval

    if args.set and (args.history or args.queries):
        raise InvalidInput("give either --set or --history and --queries, not both")
    if args.set:
        history, queries = recall_eval.bundled_set(args.set)
    elif args.history and args.queries:
        history, queries = args.history, args.queries
    else:
        raise InvalidInput("give --history FILE and --queries FILE, or --set paraphrase")
    report = recall_eval.run_eval(
        config,
        history,
        queries,
        fresh_home="home" not in config.sources,
        embed_model=args.embed_model,
        details_path=args.details,
        history_sample=args.history_sample,
        seed=args.seed,
        calibrate=not args.fixed_threshold,
        max_contamination=args.max_contamination,
        scoring=args.scoring,
    )
    print_json(report)
    if not args.json:
        used = report["thresholds"]
        how = "fixed" if not used["calibrated"] else f"calibrated to {used['max_contamination']}"
        print(
            f"hit@1 {report['hit_at_1']}  contaminated {report['contaminated_run_rate']}  "
            f"abstain {report['abstain_rate']}  p50 {report['latency_ms']['p50']} ms  "
            f"threshold {how}: {used['min']}–{used['max']}, last {used['last']} {used['sources']}",
            file=sys.stderr,
        )
    return 0
