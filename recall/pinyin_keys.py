"""Pinyin forms of a name: full syllables and initials, so that sound-alike names meet.

"微信", "威信" and "weixin" share the full form `weixin`; "wx" is its initials.
Latin runs are kept as they are in both forms.

pypinyin reads its dictionaries as it is imported (about 0.3 s of CPU), and every resolver index needs the
keys of the shipped registry's names: those are shipped computed, in `resources/registry_pinyin.tsv`
(`python -m recall.pinyin_keys` writes it; a test keeps it equal to what pypinyin says), so that a one-shot
`jiyi resolve` loads pypinyin only for a name the registry does not hold.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from recall.normalize import CJK_RE

SHIPPED_FILE = "registry_pinyin.tsv"
_RUNS = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CHINESE_ONLY = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class PinyinKey:
    full: str
    initials: str


@lru_cache(maxsize=65536)
def pinyin_key(alnum: str) -> PinyinKey | None:
    """Pinyin of a normalized name; None when it has no Chinese characters."""
    if not CJK_RE.search(alnum):
        return None
    return _shipped().get(alnum) or _written.get(alnum) or computed_key(alnum)


_written: dict[str, PinyinKey] = {}  # names whose key was computed as they were written (`remember_written`)


def remember_written(term_pinyin: Mapping[str, str]) -> None:
    """Keys the App-KB's view computed as its entries were written (term → `"full initials …"`, the term's
    pinyin first: `store.appkb.projection.pinyin_text`), so that a resolver index built over them needs no
    pypinyin. Only a term of Chinese characters alone is taken (its key is then the view's exactly); any other
    is computed here when asked."""
    for term, text in term_pinyin.items():
        if _CHINESE_ONLY.fullmatch(term):
            words = text.split()
            if len(words) >= 2 and len(words[1]) == len(term):  # a syllable per character: the term's own
                _written[term] = PinyinKey(words[0], words[1])


@lru_cache(maxsize=1)
def _shipped() -> dict[str, PinyinKey]:
    """The shipped registry's names' keys, by normalized name (see the module)."""
    keys: dict[str, PinyinKey] = {}
    for line in resources.files("resources").joinpath(SHIPPED_FILE).read_text("utf-8").splitlines()[1:]:
        alnum, full, initials = line.split("\t")
        keys[alnum] = PinyinKey(full, initials)
    return keys


def computed_key(alnum: str) -> PinyinKey:
    """`alnum`'s key as pypinyin reads it (imported here: see the module)."""
    from pypinyin import Style, lazy_pinyin

    full: list[str] = []
    initials: list[str] = []
    for run in _RUNS.findall(alnum):
        if CJK_RE.match(run):
            syllables = lazy_pinyin(run, style=Style.NORMAL, errors="ignore")
            full.extend(syllables)
            initials.extend(s[0] for s in syllables if s)
        else:
            full.append(run)
            initials.append(run)
    return PinyinKey("".join(full), "".join(initials))


def shipped_table(names: Iterable[str]) -> str:
    """The TSV of the keys of `names` (normalized names; those without Chinese are left out), sorted."""
    rows = sorted({(n, key.full, key.initials) for n in names if CJK_RE.search(n) for key in [computed_key(n)]})
    return "alnum\tfull\tinitials\n" + "".join(f"{n}\t{full}\t{initials}\n" for n, full, initials in rows)


def registry_names() -> list[str]:
    """The shipped registry's names, normalized as the resolver indexes them."""
    from recall.normalize import normalize
    from recall.registry import default_registry

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
