"""The `jiyi` command line: the parser of every word, and running what was parsed.

`jiyi` alone, `jiyi gui` and `jiyi screenshots` need the console; `gui.main`
runs those (the service cannot import Qt widgets). Every other word is a
headless command, declared with its handler in its group's module. Every
command takes `--home DIR` (same as JIYI_HOME). Exit codes: 0 done, 2 bad
input, 3 the home or machine is not usable, 4 not found, 5 conflict, 6 not allowed (e.g. learning
without the owner's grant).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from service import __version__
from service.cli import (
    alias,
    demo,
    desk,
    desktop,
    dream,
    evaluate,
    interchange,
    inventory,
    learn,
    lesson,
    lookup,
    mcp,
    migrate,
    schema,
    serve,
    upkeep,
)
from service.cli.command import HomeUse, Parser, Subparsers
from service.errors import HomeLocked, JiyiError, exit_code

GROUPS = (
    demo,
    alias,
    lesson,
    learn,
    inventory,
    lookup,
    serve,
    dream,
    upkeep,
    migrate,
    interchange,
    desk,
    mcp,
    evaluate,
    schema,
    desktop,
)
"""The command groups, in the order `jiyi --help` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree (documented in docs/cli.md; a test keeps them in step)."""
    # Typed as argparse's own; every parser of the tree is a `Parser` (subparsers take their parent's class).
    common: argparse.ArgumentParser = Parser(add_help=False)
    common.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="state directory (or JIYI_HOME)")
    parser: argparse.ArgumentParser = Parser(
        prog="jiyi",
        description="记忆 Jiyi — the memory console and memory service for personal AI agents. "
        "With no command, opens the console.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"jiyi {__version__}")
    parser.add_argument("--learn-alias", metavar="名称=包名", help="set a global user alias and exit")
    parser.add_argument("--forget-alias", metavar="名称", help="forget a name's user and learned aliases and exit")
    parser.set_defaults(func=None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_console_words(sub, common)
    for group in GROUPS:
        group.add_parsers(sub, common)
    return parser


def _add_console_words(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`gui` and `screenshots`: listed here with the rest, run by `gui.main` (they need Qt widgets),
    so their `func` is None, as it is for `jiyi` alone."""
    sub.add_parser("gui", parents=[common], help="open the console (the default)").set_defaults(func=None)
    shots = sub.add_parser("screenshots", parents=[common], help="render every console page offscreen to PNG")
    shots.add_argument("--out", type=Path, required=True, help="folder for <page>.png")
    shots.add_argument(
        "--attach",
        action="store_true",
        help="take them attached to a running jiyi serve (started for the pictures when none serves the home)",
    )
    shots.add_argument(
        "--size", type=_window_size, default=(1400, 860), metavar="WxH", help="the window's size (default 1400x860)"
    )
    shots.set_defaults(func=None)


def _window_size(text: str) -> tuple[int, int]:
    """argparse type: `1200x760`."""
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit()) or not (400 <= int(width) <= 8000 and 300 <= int(height) <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r} is not a window size like 1200x760 (400x300 to 8000x8000)")
    return int(width), int(height)


def run(args: argparse.Namespace) -> int:
    """Run a parsed headless command; errors become a message on stderr and an exit code.

    The flags `--learn-alias` and `--forget-alias` win over any command word.
    """
    command = alias.flags if args.learn_alias or args.forget_alias else args.func
    if command is None:
        raise ValueError(f"{args.command or 'jiyi'}: the console's words are run by gui.main")
    # Imported when a command runs, not when the parser is built (`--help` and `--version` stay instant).
    from service.config import load_config

    try:
        config = load_config(home=getattr(args, "home", None))
        logging.basicConfig(level=config.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
        if home_use(args) == "existing" and not config.database_url:
            # A mistyped --home is refused, never made into an empty home (a home on a server has no file to look for).
            require_home(config.home_path)
        return command(args, config)
    except JiyiError as exc:
        print(f"jiyi: {exc}", file=sys.stderr)
        if isinstance(exc, HomeLocked) and args.command != "serve":  # a second `serve` is told only who serves
            print(
                "jiyi: this command needs the home to itself (resolve, recall, recall-stats, alias, health, doctor, "
                "rebuild, rebuild-vec, desk, lesson, dream, import and export taskwizard go through a running "
                "`jiyi serve`); "
                "stop the service first",
                file=sys.stderr,
            )
        return exit_code(exc)
    except KeyboardInterrupt:
        # Ctrl+C: what was committed stays (a rebuild attached to a service has cancelled its job by now).
        print("jiyi: interrupted", file=sys.stderr)
        return 130  # as a shell reports a command ended by SIGINT
    except BrokenPipeError:
        # The reader went away (`jiyi health | head`): what was done is done; say nothing more.
        # Python would report the pipe again when it flushes stdout at exit, so point stdout at devnull.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE


def require_home(path: Path) -> None:
    """Refuse a home that is not there (`store.core.home.require_home`, imported when a command runs)."""
    from store.core.home import require_home as require

    require(path)


def home_use(args: argparse.Namespace) -> HomeUse:
    """Whether the parsed command may create its home: `--learn-alias` may, `--forget-alias` may not."""
    if args.learn_alias:
        return "create"
    if args.forget_alias:
        return "existing"
    use: HomeUse = args.home_use
    return use


def main(argv: Sequence[str] | None = None) -> int:
    """Headless entry point (the tests use it; the `jiyi` program is `gui.main`)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.func is None and not (args.learn_alias or args.forget_alias):
        parser.error("give a command: the console (no command, gui, screenshots) is run by the jiyi program")
    return run(args)
