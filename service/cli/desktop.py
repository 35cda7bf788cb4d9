"""`jiyi install-desktop [--uninstall]`: the console in the desktop's menu (with its AppStream metainfo) and the
service as a user unit."""

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
        "add Jiyi to the desktop's menu (entry, icon, AppStream metainfo) and write the service's systemd user unit",
        home="none",
    )
    words.add_argument("--uninstall", action="store_true", help="remove those files again")


def install_desktop(args: argparse.Namespace, config: Config) -> int:
    from service.desktop_files import Folders, install, uninstall
    from service.program import program_command

    folders = Folders.of_user()
    if args.uninstall:
        removed = uninstall(folders)
        for path in removed:
            print(f"removed {path}")
        if not removed:
            print("nothing to remove: jiyi install-desktop has not written its files here")
        else:
            print("if the service was enabled: systemctl --user disable --now jiyi; systemctl --user daemon-reload")
        return 0
    command = program_command()
    for path in install(command, folders):
        print(f"wrote {path}")
    print(f"both start {' '.join(command)}")
    print("the console is in the desktop's menu as 记忆 (Jiyi); to run the service at login:")
    print("  systemctl --user daemon-reload && systemctl --user enable --now jiyi")
    return 0
