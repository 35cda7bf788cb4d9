"""Loggers by room: each module of the store and the service logs under its room's name, not one for all."""

from __future__ import annotations

import re

from tests.conftest import REPO

# The store's own opening (`Store`, `opening.py`) and migrating log as `jiyi.store`; everything else names its room.
BARE_ALLOWED = {"store/core/database.py", "store/core/opening.py"}


def test_every_logger_names_its_room() -> None:
    bare = []
    for package in ("store", "service"):
        for path in sorted((REPO / package).rglob("*.py")):
            where = path.relative_to(REPO).as_posix()
            for name in re.findall(r"""logging\.getLogger\("([^"]+)"\)""", path.read_text("utf-8")):
                assert name.startswith(f"jiyi.{package}"), (where, name)
                if name == f"jiyi.{package}" and where not in BARE_ALLOWED:
                    bare.append(where)
    assert bare == []
