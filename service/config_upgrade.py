"""The version of `config.toml` and the steps that bring an older file up to date (as migrations do the schema).

A file carries `config_version = N`; one without it is version 0. Reading a
file applies the steps from its version to `CONFIG_VERSION` to what was read
(so a setting renamed since still takes effect), and saving settings writes
the upgraded file back, keeping the user's comments and layout (tomlkit). A
file newer than this Jiyi is refused with its version named, as a newer
schema is. To rename a key: bump `CONFIG_VERSION` and add the step that moves
its value (Picard's `config_upgrade.py` shape).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from store.core.errors import InvalidInput

CONFIG_VERSION = 1
VERSION_KEY = "config_version"

Settings = MutableMapping[str, Any]  # the file's top level: a dict (tomllib) or a tomlkit document


def _v1_versioned(settings: Settings) -> None:
    """Version 1: the file says its version (no key changed its name or meaning)."""


UPGRADES: dict[int, Callable[[Settings], None]] = {1: _v1_versioned}
"""Step n brings a file of version n - 1 to version n."""


def rename(settings: Settings, old: str, new: str) -> None:
    """Move `old`'s value to `new` (an upgrade step's usual work); a value already under `new` wins."""
    if old in settings:
        value = settings.pop(old)
        if new not in settings:
            settings[new] = value


def file_version(settings: Settings, path: Path) -> int:
    """The version `settings` were written at (0: before versions); refused when it is not a whole number."""
    version = settings.get(VERSION_KEY, 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidInput(f"{path}: {VERSION_KEY} must be a whole number >= 0, got {version!r}")
    return int(version)


def upgrade(settings: Settings, path: Path) -> list[int]:
    """Bring `settings` (read from `path`) to `CONFIG_VERSION` in place, its version key removed; the steps run.

    Refused with both versions named when the file is newer than this Jiyi.
    """
    version = file_version(settings, path)
    if version > CONFIG_VERSION:
        raise InvalidInput(
            f"{path} is config_version {version}, newer than this Jiyi knows ({CONFIG_VERSION}); "
            "upgrade Jiyi or remove the keys it added"
        )
    settings.pop(VERSION_KEY, None)
    steps = list(range(version + 1, CONFIG_VERSION + 1))
    for step in steps:
        UPGRADES[step](settings)
    return steps
