"""`jiyi demo`: fill a new, empty home with realistic memory to look at."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.command import LazyChoices, Subparsers, add_command
from service.cli.output import progress_bar
from store.core.errors import InvalidInput

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`demo --home DIR [--runs N] [--embed-model NAME]`."""
    demo = add_command(sub, "demo", common, fill_demo, "fill a new home with realistic demo memory", home="create")
    demo.add_argument("--runs", type=int, default=2000, help="how many runs to write (default 2000)")
    demo.add_argument(
        "--embed-model",
        choices=LazyChoices("recall.embedders", "EMBEDDERS"),
        default="hash",
        metavar="MODEL",
        help="embedder for the demo: %(choices)s (default: hash, fast)",
    )


def fill_demo(args: argparse.Namespace, config: Config) -> int:
    from service.demo.fill import make_demo

    if "home" not in config.sources:
        raise InvalidInput("give the demo its own home: jiyi demo --home DIR")
    if not 1 <= args.runs <= 100_000:
        raise InvalidInput("--runs must be between 1 and 100000")
    with progress_bar("writing runs", "runs") as progress:
        result = make_demo(config, runs=args.runs, embed_model=args.embed_model, progress=progress)
    print(
        f"demo home {config.home}: {result['devices']} devices, {result['runs']} runs, "
        f"{result['aliases']} App-KB entries, {result['learned']} learned records"
    )
    print(f"open it: jiyi --home {config.home}")
    return 0
