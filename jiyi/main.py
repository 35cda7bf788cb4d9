"""The `jiyi` program: the console when no command is given, else a headless command.

This module sits above the layers so that headless commands never import Qt widgets.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jiyi.service import cli


def main(argv: Sequence[str] | None = None) -> int:
    parser = cli.build_parser()
    args = parser.parse_args(argv)
    if cli.command_path(args) in {(), ("gui",)} and not (args.learn_alias or args.forget_alias):
        from jiyi.gui.app import run_console

        return run_console(getattr(args, "home", None))
    return cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
