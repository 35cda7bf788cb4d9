"""Pinyin keys of the names the resolver indexes (`store.core.pinyin`: full syllables and initials, so that
sound-alike names meet).

pypinyin reads its dictionaries as it is imported (about 0.3 s of CPU), and every resolver index needs the
keys of the shipped registry's names and of the App-KB's. The App-KB's view holds its names' keys (computed as
each entry was written); the registry's are shipped computed, in `resources/registry_pinyin.tsv`
(`python -m recall.pinyin_keys` writes it; a test keeps it equal to what pypinyin says), so that a one-shot
`jiyi resolve` loads pypinyin only for a name the registry does not hold.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

from store.core.name_forms import CJK_RE
from store.core.pinyin import PinyinKey, computed_key

SHIPPED_FILE = "registry_pinyin.tsv"


@lru_cache(maxsize=65536)
def pinyin_key(alnum: str) -> PinyinKey | None:
    """Pinyin of a normalized name; None when it has no Chinese characters."""
    if not CJK_RE.search(alnum):
        return None
    return _shipped().get(alnum) or _written.get(alnum) or computed_key(alnum)


_written: dict[str, PinyinKey] = {}  # normalized names whose key the App-KB's view holds (`remember_written`)


def remember_written(name_keys: Mapping[str, tuple[str, str]]) -> None:
    """Keys the App-KB's view computed as its entries were written (normalized name → (full, initials):
    `store.appkb.kb.name_keys`, the same `computed_key`), so that a resolver index built over them needs no
    pypinyin."""
    for alnum, (full, initials) in name_keys.items():
        _written[alnum] = PinyinKey(full, initials)


@lru_cache(maxsize=1)
def _shipped() -> dict[str, PinyinKey]:
    """The shipped registry's names' keys, by normalized name (see the module)."""
    keys: dict[str, PinyinKey] = {}
    for line in resources.files("resources").joinpath(SHIPPED_FILE).read_text("utf-8").splitlines()[1:]:
        alnum, full, initials = line.split("\t")
        keys[alnum] = PinyinKey(full, initials)
    return keys


def shipped_table(names: Iterable[str]) -> str:
    """The TSV of the keys of `names` (normalized names; those without Chinese are left out), sorted."""
    rows = sorted({(n, key.full, key.initials) for n in names if CJK_RE.search(n) for key in [computed_key(n)]})
    return "alnum\tfull\tinitials\n" + "".join(f"{n}\t{full}\t{initials}\n" for n, full, initials in rows)


def registry_names() -> list[str]:
    """The shipped registry's names, normalized as the resolver indexes them."""
    from recall.registry import default_registry
    from store.core.name_forms import normalize

    return [normalize(name).alnum for name, _package, _label in default_registry().names()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recall.pinyin_keys", description="write the shipped keys")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "resources" / SHIPPED_FILE)
    args = parser.parse_args(argv)
    text = shipped_table(registry_names())
    args.out.write_text(text, "utf-8")
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} names)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
