"""The `jiyi` program: the console when no command is given, else a headless command.

This module sits above the layers so that headless commands never import Qt widgets.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from service.cli import main as cli


def main(argv: Sequence[str] | None = None) -> int:
    """Run `jiyi` with `argv` (default: the process's arguments) and return its exit code."""
    args = cli.build_parser().parse_args(argv)
    if args.command in (None, "gui") and not (args.learn_alias or args.forget_alias):
        return open_console(args)
    if args.command == "screenshots":
        return take_screenshots(args)
    return cli.run(args)


def open_console(args: argparse.Namespace) -> int:
    """`jiyi` and `jiyi gui`: the console on the home, until it is closed (3 when there is no display)."""
    if not has_display():
        print(
            "jiyi: there is no display to open the console on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "run it on a desktop, or use the headless commands (jiyi --help)",
            file=sys.stderr,
        )
        return 3
    from gui.opening import start_opening

    opening = start_opening(getattr(args, "home", None))  # its private service starts first: it takes longest
    from gui.app import run_console

    return run_console(getattr(args, "home", None), opening=opening)


def take_screenshots(args: argparse.Namespace) -> int:
    """`jiyi screenshots --out DIR [--attach]`: every page rendered offscreen, one PNG path printed per page."""
    from gui.screenshots import take
    from service.config import load_config
    from service.errors import JiyiError, exit_code

    try:
        config = load_config(home=getattr(args, "home", None))
        fresh_home = "home" not in config.sources
        if not fresh_home and not config.database_url:
            cli.require_home(config.home_path)  # a mistyped --home is refused, never pictured as a new, empty home
        for path in take(config, args.out, fresh_home=fresh_home, attach=args.attach, size=args.size):
            print(path)
    except JiyiError as exc:
        print(f"jiyi: {exc}", file=sys.stderr)
        return exit_code(exc)
    return 0


def has_display() -> bool:
    """Whether Qt can show a window here (Linux needs X11 or Wayland unless a platform is forced)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


if __name__ == "__main__":
    sys.exit(main())
