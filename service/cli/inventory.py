"""`jiyi inventory sync`: a device's installed apps, from the TSV file a person gives."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.command import Subparsers, add_command, add_group

if TYPE_CHECKING:
    from service.config import Config


def add_parsers(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`inventory sync --device SERIAL FILE`."""
    inventory = add_group(sub, "inventory", common, "device inventories", dest="inventory_command", metavar="ACTION")
    sync = add_command(
        inventory, "sync", common, sync_inventory, "sync a device's installed apps from a TSV", home="create"
    )
    sync.add_argument("--device", required=True, help="the device serial the apps are installed on")
    sync.add_argument("file", type=Path, help="TSV with header package<TAB>label")


def sync_inventory(args: argparse.Namespace, config: Config) -> int:
    from service.memory.memory import Memory
    from store.appkb.inventory_file import read_inventory

    apps = read_inventory(args.file)  # the file is checked before the home opens
    with Memory.open(config) as memory:
        report = memory.appkb.sync_inventory(args.device, apps, actor="user")
    print(
        f"device {report.device}: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.staled} marked stale"
    )
    return 0
