"""The static app registry: public app names and nicknames → Android packages.

`resources/app_registry.tsv` is built from a public list of app names
(`public_app_names.tsv`, kept outside the repository) by
`python -m recall.registry build FILE` (README, Contributing);
`resources/app_nicknames.tsv` holds hand-collected colloquial names. The data
is real-world and noisy: one name can belong to several packages (editions,
OEM builds); the resolver settles those by what the device has installed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from store.appkb.entry import is_package_name
from store.core.name_forms import has_cjk, normalize
from store.core.tsv import parse_tsv

REGISTRY_FILE = "app_registry.tsv"
NICKNAMES_FILE = "app_nicknames.tsv"


@dataclass
class RegistryApp:
    """One package with its display name and every other name it is known by."""

    package: str
    label: str
    aliases: list[str] = field(default_factory=list)
    nicknames: list[str] = field(default_factory=list)


class AppRegistry:
    """Packages → names, read from the shipped TSV files."""

    def __init__(self, apps: dict[str, RegistryApp]) -> None:
        self.apps = apps

    @classmethod
    def from_text(cls, registry_tsv: str, nicknames_tsv: str = "") -> AppRegistry:
        apps: dict[str, RegistryApp] = {}
        for row in _rows(registry_tsv):
            package, label = row.get("package", ""), row.get("label", "")
            if not is_package_name(package) or not label:
                continue
            aliases = [a.strip() for a in row.get("aliases", "").split("|") if a.strip()]
            apps[package] = RegistryApp(package, label, aliases)
        for row in _rows(nicknames_tsv):
            package, name = row.get("package", ""), row.get("name", "")
            if is_package_name(package) and name:
                app = apps.setdefault(package, RegistryApp(package, name))
                app.nicknames.append(name)
        return cls(apps)

    def label_for(self, package: str) -> str | None:
        app = self.apps.get(package)
        return app.label if app else None

    def names(self) -> Iterator[tuple[str, str, bool]]:
        """(name, package, is_display_label) for every registered name."""
        for app in self.apps.values():
            yield app.label, app.package, True
            for name in app.aliases + app.nicknames:
                yield name, app.package, False

    def __len__(self) -> int:
        return len(self.apps)


def _rows(text: str) -> Iterator[dict[str, str]]:
    """The rows of a shipped TSV (`#` lines are comments); rows are checked one by one by the caller."""
    for _number, row in parse_tsv(text, comments=True).rows:
        yield row


@lru_cache(maxsize=1)
def default_registry() -> AppRegistry:
    """The registry shipped with Jiyi (read once)."""
    folder = resources.files("resources")
    return AppRegistry.from_text(
        folder.joinpath(REGISTRY_FILE).read_text("utf-8"),
        folder.joinpath(NICKNAMES_FILE).read_text("utf-8"),
    )


def build_registry_tsv(public_names_tsv: str) -> str:
    """Group public `name<TAB>package<TAB>source` rows by package into the registry TSV.

    The display label is the purely Chinese name most sources use (the longer
    on a tie; else the first with Chinese in it, else the first name); the
    other names become aliases, deduplicated by their normalized form. Rows
    whose package is not package-shaped, and names equal to the package, are dropped.
    """
    grouped: dict[str, list[str]] = {}
    weight: dict[tuple[str, str], int] = {}
    for row in _rows(public_names_tsv):
        name, package = " ".join(row.get("name", "").split()), row.get("package", "")
        if not name or not is_package_name(package) or name == package:
            continue
        names = grouped.setdefault(package, [])
        if all(normalize(name).norm != normalize(other).norm for other in names):
            names.append(name)
        sources = len([s for s in row.get("source", "").split(" ; ") if s.strip()]) or 1
        weight[(package, name)] = weight.get((package, name), 0) + sources
    out = ["package\tlabel\taliases"]
    for package in sorted(grouped):
        names = grouped[package]
        pure = [n for n in names if has_cjk(n) and not any(c.isascii() and not c.isdigit() for c in n)]
        pure.sort(key=lambda n: (-weight.get((package, n), 0), -len(n)))
        label = next(iter(pure), next((n for n in names if has_cjk(n)), names[0]))
        aliases = [n for n in names if n != label]
        out.append(f"{package}\t{label}\t{' | '.join(aliases)}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recall.registry")
    parser.add_argument("command", choices=["build"])
    parser.add_argument("public_names", type=Path, help="the public list of app names (public_app_names.tsv)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "resources" / REGISTRY_FILE)
    args = parser.parse_args(argv)
    text = build_registry_tsv(args.public_names.read_text("utf-8"))
    args.out.write_text(text, "utf-8")
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} packages)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
