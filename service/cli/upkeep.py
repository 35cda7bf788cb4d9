"""Upkeep and state: `jiyi rebuild` (every view from the event log), `jiyi rebuild-vec` (the vector
index from the archive), `jiyi recall-stats`, `jiyi config`, `jiyi health` and `jiyi doctor`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from rich.cells import cell_len

from service.cli.command import Subparsers, add_command, open_memory, positive_int
from service.cli.output import pad, print_json, progress_bar

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`rebuild`, `rebuild-vec`, `recall-stats [--days N] [--per day|package] [--json] [--export FILE]`, `config`
    and `health`."""
    add_command(sub, "rebuild", common, rebuild_views, "rebuild every view from the event log")
    add_command(sub, "rebuild-vec", common, rebuild_vectors, "rebuild the vector index from the archive")
    stats = add_command(sub, "recall-stats", common, recall_stats, "recall quality: hit@1, contamination, package P/R")
    stats.add_argument("--days", type=positive_int, metavar="N", help="only the last N days (default: all time)")
    stats.add_argument("--export", type=Path, metavar="FILE", help="write recall_stats.json (the reference's shape)")
    stats.add_argument(
        "--per", choices=("day", "package"), help="a table with one line per day or per package instead of the totals"
    )
    stats.add_argument("--json", action="store_true", help="everything as JSON: totals, days, packages, calibration")
    add_command(sub, "config", common, show_config, "show the effective settings and where they come from", home="none")
    add_command(sub, "health", common, show_health, "version, schema and counts")
    doctor = add_command(
        sub,
        "doctor",
        common,
        run_doctor,
        "check the database, the vectors' server and the hosts sharing them",
        home="none",  # it looks for the home itself: --fix-permissions fixes a home that holds no database yet
    )
    doctor.add_argument(
        "--fix-permissions",
        action="store_true",
        help="first make the home 0700 and its database files 0600 (only your own, never through a link), "
        "printing each change",
    )


def rebuild_views(args: argparse.Namespace, config: Config) -> int:
    """Here, or as a job of the service that owns the home (the same progress; Ctrl+C cancels it there too)."""
    from service.remote.memory import RemoteMemory

    with open_memory(config) as memory:
        with progress_bar("replaying", "events") as progress:
            counts = memory.rebuild(progress=progress)
        if isinstance(memory, RemoteMemory):
            check = memory.integrity  # the service checked the database after its rebuild
        else:
            from service.memory.memory import Memory  # opened here: imported already

            assert isinstance(memory, Memory)
            check = memory.store.integrity_check()
    restored = counts.pop("bundle_files_restored", 0)
    failed = counts.pop("bundle_files_failed", 0)
    refused = counts.pop("bundle_events_refused", 0)
    views = ", ".join(
        f"{k} ({v} {'damaged, left out' if k.endswith('_skipped') else 'events'})" for k, v in counts.items()
    )
    extra = f"; {restored} missing bundle files written back" if restored else ""
    print(f"rebuilt {views}{extra}; integrity {check}")
    if failed:
        # The database holds these documents; only their files are missing (the log names each).
        print(f"jiyi: {failed} bundle files could not be written (see the log); the database has them", file=sys.stderr)
    if refused:
        # Names that lead outside the bundles folder (a restored database, another host): `jiyi doctor` lists them.
        print(f"jiyi: {refused} bundle events refused, never written (see `jiyi doctor`)", file=sys.stderr)
    return 0


def rebuild_vectors(args: argparse.Namespace, config: Config) -> int:
    # One bar: the episodes, then the desk's turns, cards, topics and facts (embedded in batches).
    with open_memory(config) as memory, progress_bar("indexing", "items") as progress:
        result = memory.recall.rebuild_vectors(progress=progress)
    desk = f"; {result['desk_items']} desk items ({result['desk_embedded']} embedded)" if "desk_items" in result else ""
    print(
        f"dropped {result['collections_dropped']} collections; indexed {result['episodes']} episodes "
        f"({result['embedded']} embedded with {config.embed_model}){desk}"
    )
    return 0


def recall_stats(args: argparse.Namespace, config: Config) -> int:
    since = time.time() - args.days * 86400 if args.days is not None else None
    if args.export:  # the reference's file is written from the home's store: the home to itself
        from service.memory.memory import Memory

        with Memory.open(config) as memory:
            stats = memory.recall.recall_statistics(since=since)
            memory.recall.export_recall_stats(args.export)
    else:
        with open_memory(config) as attached:  # through a running service when one owns the home
            stats = attached.recall.recall_statistics(since=since)
    if args.json:
        print_json(stats)
    elif args.per == "day":
        print_table(DAY_COLUMNS, [msgspec.to_builtins(day) for day in stats["daily"]])
    elif args.per == "package":
        print_table(PACKAGE_COLUMNS, stats["packages"])
    else:
        print_json(stats["totals"])
        for c in stats["calibration"]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.computed_at))
            print(
                f"device {c.device}: threshold {c.threshold:.4f} from {c.source} "
                f"({c.sample_size} runs, budget {c.budget}, {when})",
                file=sys.stderr,
            )
    if args.export:
        print(f"wrote {args.export}", file=sys.stderr)
    return 0


DAY_COLUMNS = ("day", "evaluations", "hit_at_1", "hit_rate", "contaminated_run_rate", "abstain_rate")
PACKAGE_COLUMNS = ("package", "precision", "recall", "predictions", "actuals")


def print_table(columns: tuple[str, ...], rows: Sequence[Mapping[str, object]]) -> None:
    """`rows` under a header of `columns`, lined up by display width; rates with two decimals."""

    def cell(value: object) -> str:
        return f"{value:.2f}" if isinstance(value, float) else str(value)

    cells = [list(columns)] + [[cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(cell_len(line[i]) for line in cells) + 2 for i in range(len(columns))]
    for line in cells:
        print("".join(pad(text, width) for text, width in zip(line, widths, strict=True)).rstrip())
    if not rows:
        print("(nothing scored in this window)")


def show_config(args: argparse.Namespace, config: Config) -> int:
    """One line per setting: its variable, its value as it is written (on/off, a, b), where it came from.

    A path left empty shows the path in use; other empty values show "—".
    """
    rows = []
    for name, env, value, source in config.describe():
        shown, source = config_value(config, name, value, source)
        rows.append((env, shown, source))
    widths = [max(cell_len(row[i]) for row in rows) + 2 for i in range(2)]
    for env, shown, source in rows:
        print(f"{pad(env, widths[0])}{pad(shown, widths[1])}{source}".rstrip())
    return 0


def run_doctor(args: argparse.Namespace, config: Config) -> int:
    """One line per check; exit 1 when any failed. While a service owns the home, what its `health` tells.
    With `--fix-permissions`, the home is made private first, each change printed (`fixed …`)."""
    from service.memory.doctor import service_checks
    from service.memory.memory import Memory
    from service.remote.attach import find_service
    from store.core.home import require_home

    if args.fix_permissions:
        from service.home_permissions import fix_permissions
        from store.core.home import DB_NAME

        changes = fix_permissions(config.home_path)
        for change in changes:
            print(f"fixed {change}")
        if not changes:
            print(f"permissions: {config.home_path} and its database files were private already")
        if not config.database_url and not (config.home_path / DB_NAME).is_file():
            print(f"the home {config.home_path} holds no database yet: nothing else to check")
            return 0
    if not config.database_url:
        require_home(config.home_path)  # a mistyped --home is refused, never made into a new, empty home
    found = find_service(config)
    if found is not None:
        checks = service_checks(*found)
    else:
        with Memory.open(config, loss="report") as memory:  # a database that lost changes opens, to say so
            checks = memory.doctor()
    for check in checks:
        print(f"{'ok' if check.ok else 'FAIL':<5} {check.name:<18} {check.detail}")
    return 0 if all(check.ok for check in checks) else 1


def config_value(config: Config, name: str, value: object, source: str) -> tuple[str, str]:
    """A setting's value as `config.toml` and the environment take it, and its source."""
    from service.platform.address import home_socket_path

    if name == "socket" and not value:
        return str(home_socket_path(config.home_path)), f"{source} (this home's own)"
    if name == "bundles" and not value:
        return str(config.bundles_path), f"{source} (<home>/bundles)"
    if isinstance(value, bool):
        return ("on" if value else "off"), source
    if isinstance(value, tuple):
        return (",".join(value) or "—"), source
    return (str(value) or "—"), source


def show_health(args: argparse.Namespace, config: Config) -> int:
    with open_memory(config) as memory:
        print_json(memory.health())
    return 0
