"""`jiyi resolve` and `jiyi recall`: what the memory would answer an agent now, and why.

Neither logs nor scores anything: they explain, they do not take part in a run.
`jiyi calibrate [--device D]` is the one exception: it chooses the
devices' recall thresholds again from their scored recalls (docs/recall.md).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command, open_memory
from service.cli.output import pad, print_json
from service.wire.row import value_of
from store.core.errors import NotFound

if TYPE_CHECKING:
    from service.config import Config
    from service.wire.recall import RecallAnswer


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`resolve NAME [--device SERIAL] [--json]`, `recall GOAL --device SERIAL [--json]` and
    `calibrate [--device SERIAL] [--json]`."""
    resolve = add_command(sub, "resolve", common, resolve_name, "resolve an app name to a package")
    resolve.add_argument("name", help="an app name as a person or agent says it")
    resolve.add_argument("--device", help="the device serial (its inventory decides what is installed)")
    resolve.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    explain = "what recall would return for a task on a device now, and why (logs nothing)"
    recall = add_command(sub, "recall", common, explain_recall, explain)
    recall.add_argument("goal", help="the task, as an agent would start it")
    recall.add_argument(
        "--device", required=True, metavar="SERIAL", help="the device serial (recall only uses its own past runs)"
    )
    recall.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    calibrate = add_command(sub, "calibrate", common, calibrate_recall, "choose recall's thresholds again")
    calibrate.add_argument("--device", help="only this device (default: every device with evidence)")
    calibrate.add_argument("--json", action="store_true", help="print the calibrations as JSON")


def resolve_name(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        result = memory.appkb.resolve_app(args.name, device=args.device)
    if args.json:
        print_json(result.to_dict())
        return 0
    if result.package:
        print(f"{result.state}: {result.package}  ({result.reason})")
    else:  # ambiguous or unknown: no package is chosen; the candidates follow
        print(f"{result.state}: no package chosen  ({result.reason})")
    for c in result.candidates:
        installed = "" if c.installed is None else ("installed" if c.installed else "not installed")
        print(
            f"  {pad(c.package, 40)}{pad(c.label, 14)}via {pad(repr(c.name), 14)}{pad(c.evidence, 22)}"
            f"sim {c.similarity:.3f} prior {c.prior:.3f} score {c.score:.3f} {installed}"
        )
    for c in result.not_installed:
        print(f"  (not installed) {c.package} {c.label} {c.evidence} score {c.score:.3f}")
    return 0


def explain_recall(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        result = memory.recall.recall_query(args.goal, args.device, explain=True)
    if args.json:
        print_json(result)
        return 0
    _print_decision(result, args.device)
    episodes = [c for c in result.considered or [] if c.source == "episode"]
    if episodes:
        print(f"  {pad('app', 34)}{pad('score', 8)}{pad('similar', 9)}{pad('wording', 9)}nearest past goal")
    for c in episodes:
        score, vector, owned = f"{c.score:.3f}", f"{c.vector or 0.0:.3f}", f"{c.ownership or 0.0:.2f}"
        apps = " ".join(c.apps)
        print(f"  {pad(apps, 34)}{pad(score, 8)}{pad(vector, 9)}{pad(owned, 9)}{c.goal}  ({c.run_id})")
    if not episodes and not result.candidates:
        print(f"  no past runs of device {args.device} to compare with")
    return 0


def _print_decision(result: RecallAnswer, device: str) -> None:
    """The first line: what recall returns, or that it abstains."""
    top = result.candidates[0] if result.candidates else None
    sure = result.confidence or None
    threshold = value_of(result, "threshold")
    if result.degraded:
        print(f"by the task's words alone: {result.degraded}")
    if top is not None and top.source == "mention":
        print(f"recalled {' '.join(top.apps)}: the task names it ({top.term!r})")
    elif sure is not None:
        verdict = f"recalled {' '.join(sure.top_app)}" if top is not None else "abstained"
        relation = ">=" if top is not None else "<"
        print(
            f"{verdict}  confidence {sure.value:.3f} {relation} {threshold} "
            f"({result.embedder}, {sure.scoring}, device {device})"
        )
        if sure.scoring == "margin":
            second = (
                f"runner-up {' '.join(sure.runner_up)} {sure.second:.3f}, lead {sure.margin:.3f}"
                if sure.runner_up
                else "no other app near (lead 0)"
            )
            lead = f"confidence = top + {sure.lead_weight} × lead"
            print(f"  top {' '.join(sure.top_app)} {sure.top:.3f}, {second}; {lead}")
    elif top is None:
        print(f"abstained: nothing scored {threshold} or more ({result.embedder}, device {device})")
    else:
        apps = " ".join(top.apps)
        print(f"recalled {apps}  score {top.score:.3f} >= {threshold} ({result.embedder})")


def calibrate_recall(args: argparse.Namespace, config: Config) -> int:
    """Choose the threshold of one device (or of every device with evidence) again, and say what was chosen."""
    from service.memory.memory import Memory

    with Memory.open(config) as memory:  # calibration writes the home itself (not through a service)
        if args.device is not None and args.device.strip() not in memory.calibration.devices():
            raise NotFound(f"device {args.device!r} has no scored recalls or past runs to calibrate from")
        done = memory.calibration.calibrate(args.device)
    if args.json:
        print_json([c.to_dict() for c in done])
        return 0
    if not done:
        print("no devices with scored recalls or past runs yet")
    for c in done:
        print(
            f"{pad(c.device, 20)}threshold {c.threshold:.4f}  from {pad(c.source, 14)}"
            f"{c.sample_size} runs, contamination budget {c.budget}"
        )
    return 0
