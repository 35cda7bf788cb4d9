"""`jiyi migrate --to URL`: move this home's store to another database and switch the home to it.

SQLite to PostgreSQL (several hosts may then share it, see docs/scale-out.md)
or back. The event log is copied with its numbers (a progress bar; an
interrupted move resumes), the views are replayed there, and the move is
verified by each domain's event count and a checksum of every view before
the home's `database_url` is changed. The old database is left as it was.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command
from service.cli.output import progress_bar
from store.core.errors import Conflict, InvalidInput

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`migrate --to URL`."""
    command = add_command(
        sub, "migrate", common, migrate_store, "move this home's store to another database (PostgreSQL or SQLite)"
    )
    command.add_argument(
        "--to",
        required=True,
        metavar="URL",
        help="postgresql://user@host:port/dbname or sqlite:///path/file.sqlite3 (the password: JIYI_DATABASE_PASSWORD)",
    )


def migrate_store(args: argparse.Namespace, config: Config) -> int:
    from service.config import BY_NAME, ConfigError, save_settings
    from store.core.connect import connect_database
    from store.core.database import Store
    from store.core.relocate import copy_events, domain_counts, view_checksum
    from store.projections import all_projections

    try:
        destination = BY_NAME["database_url"].parse(args.to)
    except ValueError as exc:
        raise ConfigError(f"--to: {exc}") from None
    home = config.home_path
    if _same(destination, config.database_url, home):
        raise InvalidInput("--to names the database this home already uses")
    password = config.database_password()
    projections = all_projections()
    source = Store.open(home, projections, database_url=config.database_url, password=password)
    try:
        target_db = connect_database(home, destination, password)
        try:
            with progress_bar("copying", "events") as progress:
                report = copy_events(source.db, target_db, progress)
        finally:
            target_db.close()
        counts = domain_counts(source.db)
        source.rebuild()
        checksum = view_checksum(source.db, projections)
        where = source.location
    finally:
        source.close()
    moved = Store.open(home, projections, database_url=destination, password=password)
    try:
        with progress_bar("replaying", "events") as progress:
            moved.rebuild(progress=progress)
        moved_counts, moved_checksum, there = (
            domain_counts(moved.db),
            view_checksum(moved.db, projections),
            moved.location,
        )
    finally:
        moved.close()
    if moved_counts != counts or moved_checksum != checksum:
        raise Conflict(
            f"the copy in {there} does not match {where} (events {moved_counts} vs {counts}, views "
            f"{moved_checksum[:12]} vs {checksum[:12]}); the home still uses {where}"
        )
    database_url = "" if _same(destination, "", home) else destination
    save_settings(home, {"database_url": database_url})
    resumed = f" (resumed after event {report.resumed_at})" if report.resumed_at else ""
    print(
        f"moved {report.total} events from {where} to {there}{resumed}; counts and view checksum "
        f"{checksum[:12]} match; this home now uses {there} (the old database is left as it was); "
        "run `jiyi rebuild-vec` to index its vectors under the moved store's own names"
    )
    _index_desk(config, database_url)
    return 0


def _index_desk(config: Config, database_url: str) -> None:
    """Bring the desk index up to the moved store, in batches, with a bar.

    The replay queued every desk item again; an item whose vector the index already holds for the same text is
    only checked, not embedded again, so a move between databases of one home costs little. Interrupted, or
    with the embedder unavailable, the queue keeps the rest for the service's indexing thread (`jiyi doctor`
    shows the lag).
    """
    from dataclasses import replace

    from service.memory.memory import Memory

    with Memory.open(replace(config, values={**config.values, "database_url": database_url})) as memory:
        queued = memory.desk.index.lag()
        if not queued:
            return
        try:
            with progress_bar("indexing", "desk items") as progress:
                embedded = memory.desk.index.drain(progress)
        except Exception as exc:  # the move is done; indexing is what the service would do anyway
            print(
                f"jiyi: the desk index was not brought up to date ({type(exc).__name__}: {exc}); "
                f"{memory.desk.index.lag()} items wait for the service to embed them",
                file=sys.stderr,
            )
            return
    print(f"desk index: {queued} items checked, {embedded} embedded")


def _same(url: str, other: str, home: Path) -> bool:
    """Whether two database URLs name the same database of `home` (empty: its own SQLite file)."""
    from store.core.database_url import parse_database_url
    from store.core.home import DB_NAME

    def key(text: str) -> str:
        target = parse_database_url(text)
        if target.shared:
            return target.describe()
        return str((target.path or home / DB_NAME).resolve())

    return key(url) == key(other)
