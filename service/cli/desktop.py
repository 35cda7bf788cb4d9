"""`jiyi install-desktop [--uninstall]`: the console in the desktop's menu (with its AppStream metainfo, on Linux)
and the service as a user service (a systemd user unit, a launchd LaunchAgent, a Task Scheduler task)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    words = add_command(
        sub,
        "install-desktop",
        common,
        install_desktop,
        "add Jiyi to the desktop's menu (entry, icon, AppStream metainfo) and write the service's user unit "
        "(systemd; a LaunchAgent on macOS, a Task Scheduler task on Windows)",
        home="none",
    )
    words.add_argument("--uninstall", action="store_true", help="remove those files again")


def install_desktop(args: argparse.Namespace, config: Config) -> int:
    from service.desktop_files import Folders, install, service_file, uninstall
    from service.program import program_command

    folders = Folders.of_user()
    command = program_command()
    unit = service_file(command, folders)
    if args.uninstall:
        removed = uninstall(folders)
        for path in removed:
            print(f"removed {path}")
        if not removed:
            print("nothing to remove: jiyi install-desktop has not written its files here")
        else:
            print(f"if the service was enabled: {unit.disable}")
        return 0
    written = install(command, folders)
    for path in written:
        print(f"wrote {path}")
    if len(written) > 1:
        print(f"both start {' '.join(command)}")
        print("the console is in the desktop's menu as 记忆 (Jiyi); to run the service at login:")
    else:
        print(f"it starts {' '.join(command)} serve; to run the service at login:")
    print(f"  {unit.enable}")
    return 0
