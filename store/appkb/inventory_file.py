"""The installed-apps file a person gives `jiyi inventory sync` and `jiyi eval resolve`."""

from __future__ import annotations

from pathlib import Path

from store.appkb.entry import is_package_name
from store.core.errors import InvalidInput
from store.core.tsv import read_tsv


def read_inventory(path: Path) -> list[tuple[str, str]]:
    """(package, label) of every row of a TSV with header `package<TAB>label`, in file order.

    Errors name the file and the line: a missing file is `NotFound`; a malformed
    file, or a package that is not package-shaped, is `InvalidInput`.
    """
    apps = []
    for number, row in read_tsv(path, ("package", "label"), "inventory"):
        if not is_package_name(row["package"]):
            raise InvalidInput(f"inventory file {path}, line {number}: {row['package']!r} is not a package name")
        apps.append((row["package"], row["label"]))
    return apps
