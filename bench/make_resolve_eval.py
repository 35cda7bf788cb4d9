"""Build the app-name resolution evaluation set from the public data.

Writes `bench/data/resolve_inventory.tsv` (an installed-app list) and
`bench/data/resolve_queries.tsv` (query, expected, kind). The queries are the
colloquial forms people and models use: display names, English names,
nicknames, full pinyin, initials, homophones (same sound, other characters),
Latin typos, traditional characters, full-width and spacing variants; plus
names of apps that are not installed and nonsense, which must never resolve.

    python bench/make_resolve_eval.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import opencc
from pypinyin import Style, lazy_pinyin
from pypinyin.pinyin_dict import pinyin_dict

from recall.registry import default_registry
from store.core.name_forms import has_cjk, normalize

OUT = Path(__file__).parent / "data"
S2T = opencc.OpenCC("s2t")
INSTALLED = 90


def toneless(syllable: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", syllable) if not unicodedata.combining(c))


def homophone_table(common: str) -> dict[str, list[str]]:
    by_sound: dict[str, list[str]] = defaultdict(list)
    for char in dict.fromkeys(common):
        readings = pinyin_dict.get(ord(char))
        if readings and "," not in readings:
            by_sound[toneless(readings)].append(char)
    table: dict[str, list[str]] = {}
    for chars in by_sound.values():
        for char in chars:
            table[char] = [c for c in chars if c != char]
    return table


def latin_typo(name: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(name) - 1)
    if rng.random() < 0.5:
        return name[:i] + name[i + 1 :]
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(__file__).parent.parent.parent / "shared" / "data")
    args = parser.parse_args()
    rng = random.Random(20261130)
    tasks = list(csv.DictReader((args.data / "public_tasks.tsv").open(encoding="utf-8"), delimiter="\t"))
    registry = default_registry()
    popularity = Counter(t["package"] for t in tasks if t["package"] in registry.apps)
    ranked = [p for p, _ in popularity.most_common()] + sorted(set(registry.apps) - set(popularity))
    # Installed: the most used apps with a Chinese label, plus a few by chance.
    chinese = [p for p in ranked if has_cjk(registry.apps[p].label)]
    owned: dict[str, set[str]] = defaultdict(set)
    for name, package, _ in registry.names():
        owned[normalize(name).alnum].add(package)
    # A phone shows each app under its own label: skip apps whose label another chosen app has.
    everyday = [
        "com.tencent.mm",
        "com.eg.android.AlipayGphone",
        "com.smile.gifmaker",
        "com.sina.weibo",
        "com.qiyi.video",
        "com.sdu.didi.psnger",
        "com.dianping.v1",
        "com.netease.cloudmusic",
    ]
    pool = everyday + [p for p in chinese[:70] if p not in everyday] + rng.sample(chinese[70:], 24)
    installed, labels = [], set()
    for package in pool:
        key = normalize(registry.apps[package].label).alnum
        if key not in labels and len(installed) < INSTALLED:
            installed.append(package)
            labels.add(key)
    installed_set = set(installed)

    def clean(name: str, package: str) -> bool:
        # a name another installed app also goes by has no single right answer
        return owned[normalize(name).alnum] & installed_set == {package}

    common = "".join(t["instruction"] for t in tasks)
    homophones = homophone_table(common)
    rows: list[tuple[str, str, str]] = []
    for package in installed:
        app = registry.apps[package]
        label = app.label
        rows.append((label, package, "label"))
        for alias in app.aliases:
            if re.fullmatch(r"[A-Za-z][A-Za-z ]{3,}", alias) and clean(alias, package):
                rows.append((alias, package, "english"))
                if len(alias) >= 5:
                    rows.append((latin_typo(alias.lower(), rng), package, "typo"))
                rows.append(
                    (
                        unicodedata.normalize("NFKC", alias)
                        .upper()
                        .translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}),
                        package,
                        "fullwidth",
                    )
                )
                break
        for nickname in app.nicknames:
            if clean(nickname, package):
                rows.append((nickname, package, "nickname"))
        if has_cjk(label) and len(label) >= 2:
            syllables = [s.lower() for s in lazy_pinyin(label, style=Style.NORMAL)]
            rows.append(("".join(syllables), package, "pinyin"))
            if len(label) >= 3:
                # Latin and digit runs stay whole: QQ音乐 → qqyy, 58同城 → 58tc
                initials = "".join(
                    "".join(p[0] for p in lazy_pinyin(run)) if has_cjk(run) else run.lower()
                    for run in re.findall(r"[A-Za-z0-9]+|[\u4e00-\u9fff]+", label)
                )
                rows.append((initials, package, "initials"))
            spots = [i for i, c in enumerate(label) if homophones.get(c)]
            if spots:
                i = rng.choice(spots)
                rows.append(
                    (
                        label[:i] + rng.choice(homophones[label[i]]) + label[i + 1 :],
                        package,
                        "homophone",
                    )
                )
            traditional = S2T.convert(label)
            if traditional != label:
                rows.append((traditional, package, "traditional"))
            rows.append((f"打开{label}", package, "phrase"))
    absent = [p for p in ranked if p not in installed_set and has_cjk(registry.apps[p].label)]
    for package in absent[:120]:
        label = registry.apps[package].label
        if not (owned[normalize(label).alnum] & installed_set):
            rows.append((label, "-", "not_installed"))
    chars = [c for c in dict.fromkeys(common) if has_cjk(c)]
    for _ in range(60):
        rows.append(("".join(rng.sample(chars, rng.randint(2, 4))), "-", "nonsense"))
    for _ in range(20):
        rows.append(("".join(rng.choices("bcdfghjklmnpqrstvwxz", k=rng.randint(5, 9))), "-", "nonsense"))
    OUT.mkdir(exist_ok=True)
    with (OUT / "resolve_inventory.tsv").open("w", encoding="utf-8") as out:
        out.write("package\tlabel\n")
        for package in installed:
            out.write(f"{package}\t{registry.apps[package].label}\n")
    with (OUT / "resolve_queries.tsv").open("w", encoding="utf-8") as out:
        out.write("query\texpected\tkind\n")
        for query, expected, kind in rows:
            out.write(f"{query}\t{expected}\t{kind}\n")
    print(f"{len(installed)} installed apps, {len(rows)} queries: {dict(Counter(k for _, _, k in rows))}")


if __name__ == "__main__":
    main()
