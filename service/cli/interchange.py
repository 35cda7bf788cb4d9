"""`jiyi import taskwizard` and `jiyi export taskwizard`: TaskWizard's `memory/` directory, in and out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Command, HomeUse, Subparsers, add_command, add_group, open_memory
from service.cli.output import progress_bar

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`import taskwizard DIR` and `export taskwizard DIR`."""
    words: tuple[tuple[str, Command, str, HomeUse], ...] = (
        ("import", import_taskwizard, "import a TaskWizard memory/ directory", "create"),
        ("export", export_taskwizard, "export as TaskWizard memory/", "existing"),
    )
    for verb, func, text, home in words:
        group = add_group(sub, verb, common, text, dest="format", metavar="FORMAT")
        command = add_command(group, "taskwizard", common, func, text, home=home)
        command.add_argument("directory", type=Path, help="TaskWizard's memory/ folder (made if missing on export)")


def import_taskwizard(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory, progress_bar("indexing runs", "runs") as progress:
        reports = memory.import_taskwizard(args.directory, progress)
    for report in reports.values():
        if report.already_imported:
            print(f"{report.source} was imported before and has nothing new; nothing done")
            continue
        rewritten = " (rewritten since the last import, e.g. compacted)" if report.rewritten else ""
        known = f"; {report.known} already here" if report.known else ""
        known += f"; deleted {report.removed} entries it no longer has" if report.removed else ""
        print(
            f"imported {report.imported} records from {report.source}{rewritten}{known}; "
            f"skipped {report.skipped} corrupt"
        )
        for problem in report.problems:
            print(f"  skipped {problem}", file=sys.stderr)
    for report in reports.values():
        if report.moved_from:
            print(f"{report.source} is what was imported from {report.moved_from} (known by its content)")
        for note in report.damaged:
            print(f"warning: {note}")
    return 0


def export_taskwizard(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        counts = memory.export_taskwizard(args.directory)
    app_kb, experience = counts["app_kb"], counts["experience"]
    print(f"wrote {app_kb['events']} events and {app_kb['entries']} entries to {args.directory / 'app_kb'}")
    folder = args.directory / "experience"
    print(f"wrote {experience['records']} records and {experience['episodes']} episodes to {folder}")
    taught = counts["lessons"]
    print(f"wrote {taught['events']} lesson events and {taught['lessons']} lessons to {args.directory / 'lessons'}")
    stats = counts["recall_stats"]
    if stats["written"]:
        where = args.directory / "experience" if stats.get("in_experience", 1) else args.directory
        print(f"wrote recall_stats.json ({stats['evaluations']} evaluations) to {where}")
    return 0
