"""`jiyi serve`: the agent service without the console (the one command that reaches `service.rpc`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from service.cli.command import Subparsers, add_command
from service.config import Config
from service.follow_parent import follow_parent
from store.core.errors import InvalidInput


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`serve [--socket PATH] [--workers N]`."""
    serve = add_command(
        sub, "serve", common, serve_headless, "host the agent service headless (no display needed)", home="create"
    )
    serve.add_argument("--socket", type=Path, help="socket path (or JIYI_SOCKET; default in the runtime directory)")
    serve.add_argument("--workers", type=int, default=4, help="requests served at once (default 4)")
    # The console's private service (docs/service.md): stops when the console that started it ends.
    serve.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)


def serve_headless(args: argparse.Namespace, config: Config) -> int:
    """Host the service until SIGINT or SIGTERM; its exit code is the host's."""
    # Imported here: the host brings Qt, which no other command needs.
    from service.rpc.host import serve

    if not 1 <= args.workers <= 64:
        raise InvalidInput("--workers must be between 1 and 64")
    if args.parent_pid is not None:
        if args.parent_pid < 1:
            raise InvalidInput(f"--parent-pid must be a process id (a whole number >= 1), got {args.parent_pid}")
        follow_parent(args.parent_pid)
    return serve(config, socket_path=args.socket, workers=args.workers)
