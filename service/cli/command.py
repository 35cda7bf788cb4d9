"""How a command module declares its words: every leaf gets its handler as `func`.

`service.cli.main.run` calls `args.func(args, config)` for whatever leaf was
parsed, so a command exists in one place: where its module adds it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

from service.config import Config

Command = Callable[[argparse.Namespace, Config], int]
"""A headless command: the parsed arguments and the loaded config in, the exit code out."""

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_command(
    sub: Subparsers, name: str, common: argparse.ArgumentParser, func: Command, help: str
) -> argparse.ArgumentParser:
    """Add the leaf `name` that runs `func`; returns its parser for the caller's arguments.

    `common` holds the options every word takes (`--home`), so that they may
    stand before or after the command words.
    """
    parser = sub.add_parser(name, parents=[common], help=help)
    parser.set_defaults(func=func)
    return parser


def add_group(
    sub: Subparsers, name: str, common: argparse.ArgumentParser, help: str, *, dest: str, metavar: str | None
) -> Subparsers:
    """Add the word `name` whose own words (at least one required) are added to the returned subparsers."""
    parser = sub.add_parser(name, parents=[common], help=help)
    return parser.add_subparsers(dest=dest, metavar=metavar, required=True)
