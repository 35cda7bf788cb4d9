"""`jiyi serve`: the agent service without the console (the one command that reaches `service.rpc`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command
from store.core.errors import InvalidInput

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`serve [--socket PATH] [--workers N]`."""
    serve = add_command(
        sub, "serve", common, serve_headless, "host the agent service headless (no display needed)", home="create"
    )
    serve.add_argument(
        "--socket", type=Path, help="socket path (or JIYI_SOCKET; default: the home's own, in the runtime folder)"
    )
    serve.add_argument("--workers", type=int, default=4, help="requests served at once (default 4)")
    serve.add_argument(
        "--new-database",
        action="store_true",
        help="start a new, empty database in a home whose database is missing but whose bundles/vectors remain",
    )
    serve.add_argument(
        "--accept-loss",
        action="store_true",
        help="start although the database holds less than this home acknowledged (a lost WAL, an older copy); "
        "the loss is recorded in the event log",
    )
    # The console's private service (docs/service.md): stops when the console that started it ends.
    serve.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    # The console's private service runs below the console's CPU priority, so that its rebuilds and imports
    # never keep the console's GUI thread waiting for a CPU (docs/console-speed.md).
    serve.add_argument("--nice", type=int, default=0, help=argparse.SUPPRESS)


def serve_headless(args: argparse.Namespace, config: Config) -> int:
    """Host the service until SIGINT or SIGTERM; its exit code is the host's."""
    from service.follow_parent import follow_parent

    # Imported here: the host brings Qt, which no other command needs.
    from service.rpc.headless import serve

    if not 1 <= args.workers <= 64:
        raise InvalidInput("--workers must be between 1 and 64")
    if not 0 <= args.nice <= 19:
        raise InvalidInput(f"--nice must be between 0 and 19, got {args.nice}")
    if args.parent_pid is not None:
        if args.parent_pid < 1:
            raise InvalidInput(f"--parent-pid must be a process id (a whole number >= 1), got {args.parent_pid}")
        follow_parent(args.parent_pid)
    return serve(
        config,
        socket_path=args.socket,
        workers=args.workers,
        new_database=args.new_database,
        accept_loss=args.accept_loss,
        nice=args.nice,
    )
