"""`jiyi mcp`: serve the desk memory to desktop agents over the Model Context Protocol (docs/mcp.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command

CLIENTS = ("claude-desktop", "claude-code", "cursor", "codex", "vscode")
"""The MCP clients `--print-config` writes for (`service.mcp.client_config.CLIENTS`; a test keeps them equal)."""

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`mcp [--http 127.0.0.1:PORT]`."""
    mcp = add_command(
        sub,
        "mcp",
        common,
        serve_mcp,
        "serve the memory to desktop agents over MCP on stdin/stdout (Claude, Cursor, Codex, VS Code)",
        home="create",
    )
    how = mcp.add_mutually_exclusive_group()
    how.add_argument(
        "--http",
        metavar="127.0.0.1:PORT",
        help="serve streamable HTTP on this loopback address instead (bearer token in <home>/mcp-token)",
    )
    how.add_argument(
        "--print-config",
        metavar="CLIENT",
        choices=CLIENTS,
        help="print the snippet that adds Jiyi to an MCP client, with the absolute paths of this jiyi and of the "
        f"home, and exit ({', '.join(CLIENTS)})",
    )


def serve_mcp(args: argparse.Namespace, config: Config) -> int:
    """Serve one MCP client on stdio until it closes stdin (logs go to stderr, stdout carries only the
    protocol), or with `--http` streamable HTTP on a loopback address until interrupted."""
    if args.print_config is not None:
        return print_config(args.print_config, config)
    # Imported here: the SDK (pydantic, starlette) is loaded by this command only; `jiyi --help` stays instant.
    from service.mcp.link import ServiceLink

    if args.http is not None:
        from service.mcp.http import parse_address, run_http

        parse_address(args.http)  # refused before anything starts
        run_http(ServiceLink(config), args.http)
        return 0
    from service.mcp.server import run_stdio

    run_stdio(ServiceLink(config))
    return 0


def print_config(client: str, config: Config) -> int:
    """The client's snippet on stdout (nothing else: it parses as its format), where it goes on stderr."""
    from service.mcp.client_config import launch, notes, snippet

    sys.stdout.write(snippet(client, launch(config)))
    for note in notes(client, config):
        print(note, file=sys.stderr)
    return 0
