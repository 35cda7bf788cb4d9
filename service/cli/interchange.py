"""`jiyi import` and `jiyi export`: TaskWizard's `memory/` directory, the desk memory in Jiyi's open format
(docs/interchange.md), and the memory of the reference MCP memory server and of mem0."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Command, HomeUse, Subparsers, add_command, add_group, open_memory
from service.cli.output import progress_bar

if TYPE_CHECKING:
    from service.config import Config
    from service.wire.upkeep import KindReport


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`import taskwizard|desk DIR`, `import mcp-memory|mem0 FILE` and `export taskwizard|desk DIR`."""
    words: tuple[tuple[str, Command, Command, str, HomeUse], ...] = (
        ("import", import_taskwizard, import_desk, "import a TaskWizard memory/ directory", "create"),
        ("export", export_taskwizard, export_desk, "export as TaskWizard memory/", "existing"),
    )
    for verb, func, desk_func, text, home in words:
        group = add_group(sub, verb, common, f"{verb} memory in an open format", dest="format", metavar="FORMAT")
        command = add_command(group, "taskwizard", common, func, text, home=home)
        command.add_argument("directory", type=Path, help="TaskWizard's memory/ folder (made if missing on export)")
        if verb == "import":
            command.add_argument(
                "--replaces",
                type=Path,
                metavar="OLD",
                help="the memory/ folder this one replaces (imported before from there: moved, restored or "
                "compacted since); what that one put and this one no longer has is removed",
            )
        desk = add_command(group, "desk", common, desk_func, f"{verb} the desk memory (docs/interchange.md)", home=home)
        desk.add_argument("directory", type=Path, help="the export's folder (made if missing on export)")
        if verb != "import":
            continue
        for system, what in (("mcp-memory", "the MCP memory server's memory.jsonl"), ("mem0", "mem0's export JSON")):
            foreign = add_command(group, system, common, import_foreign, f"import {what} as facts", home=home)
            foreign.add_argument("file", type=Path, help=what)
            foreign.add_argument(
                "--scope",
                choices=("profile", "project", "environment"),
                default=None,
                help="the facts' scope: profile or project (active at once) or environment (a candidate until "
                "evidence on a second workday), as for a fact learned here; by default each memory's own "
                "(mem0: a user's memory is a profile fact, an agent's a project fact; MCP memory: project)",
            )


def import_taskwizard(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory, progress_bar("indexing runs", "runs") as progress:
        reports = memory.import_taskwizard(args.directory, progress, args.replaces)
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
        if report.recognised:
            print(f"{report.source}: {report.recognised}")
        elif report.moved_from:
            print(f"{report.source} is what was imported from {report.moved_from} (known by its content)")
        if report.suggestion:
            print(f"note: {report.suggestion}")
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


def _print_reports(reports: dict[str, KindReport]) -> None:
    for kind, report in reports.items():
        print(f"{kind}: added {report.added}, skipped {report.skipped} (already here), refused {report.refused}")
        for reason in report.reasons:
            print(f"  refused {reason}", file=sys.stderr)
        if report.refused > len(report.reasons):
            print(f"  … and {report.refused - len(report.reasons)} more refused", file=sys.stderr)


def import_desk(args: argparse.Namespace, config: Config) -> int:
    with (
        open_memory(config) as memory,
        progress_bar("reading", "records") as progress,
        progress_bar("writing", "records") as writing,
        progress_bar("indexing", "items") as indexing,
    ):
        reports = memory.interchange.import_desk(args.directory, progress, indexing, writing)
    _print_reports(reports)
    return 0


def export_desk(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        counts = memory.interchange.export_desk(args.directory)
    listed = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    print(f"wrote {listed} and manifest.json to {args.directory}")
    return 0


def import_foreign(args: argparse.Namespace, config: Config) -> int:
    system = str(args.format)
    with (
        open_memory(config) as memory,
        progress_bar("reading", "memories") as progress,
        progress_bar("writing", "memories") as writing,
        progress_bar("indexing", "items") as indexing,
    ):
        report = memory.interchange.import_foreign(
            system, args.file, scope=args.scope, progress=progress, indexing=indexing, writing=writing
        )
    _print_reports({"facts": report})
    return 0
