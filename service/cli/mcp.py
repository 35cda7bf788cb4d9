"""`jiyi mcp`: serve the desk memory to desktop agents over the Model Context Protocol (docs/mcp.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`mcp`."""
    add_command(
        sub,
        "mcp",
        common,
        serve_mcp,
        "serve the memory to desktop agents over MCP on stdin/stdout (Claude, Cursor, Codex, VS Code)",
        home="create",
    )


def serve_mcp(args: argparse.Namespace, config: Config) -> int:
    """Serve one MCP client on stdio until it closes stdin; logs go to stderr, stdout carries only the protocol."""
    # Imported here: the SDK (pydantic, starlette) is loaded by this command only; `jiyi --help` stays instant.
    from service.mcp.link import ServiceLink
    from service.mcp.server import run_stdio

    run_stdio(ServiceLink(config))
    return 0
