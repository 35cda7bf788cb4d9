"""Benchmark app-name resolution at 1k, 10k and 50k App-KB entries.

For each size, in the same process and on the same queries:

* jiyi      — `ResolverIndex.resolve` (exact, lexical, pinyin routes; no embedding route);
* baseline  — the obvious approach: rapidfuzz `process.extractOne` over every term and its pinyin;
* floor     — a dict lookup of the normalized query (the least any resolver must do).

Prints p50/p99 per query in milliseconds and the ratios. Run: `make bench` or
`python bench/resolve.py [--sizes 1000,10000,50000] [--queries 2000]`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from pypinyin import lazy_pinyin
from rapidfuzz import fuzz, process

from recall.registry import default_registry
from recall.resolve import ResolverIndex
from service.evaluation.percentile import percentile
from store.appkb.entry import AppKbEntry
from store.core.name_forms import normalize

NOW = "2026-11-01T00:00:00+00:00"
SYLLABLES = ("zhang wang li zhao chen yang huang zhou wu xu sun ma zhu hu guo he lin luo gao liang song").split()  # noqa: SIM905
CHARS = "云音乐视频地图购物外卖阅读相机天气日历银行钱包出行旅行翻译浏览器助手管家学习直播短剧新闻小说游戏健身"


def synthetic_kb(size: int, rng: random.Random) -> tuple[list[AppKbEntry], list[str]]:
    """`size` entries: the registry's real apps as a device inventory, then made-up apps and aliases."""
    registry = default_registry()
    entries: list[AppKbEntry] = []
    for package, app in registry.apps.items():
        entries.append(AppKbEntry(app.label, app.label, package, "device", "device:bench", 1.0, 0, NOW, NOW))
    index = 0
    while len(entries) < size:
        name = "".join(rng.sample(CHARS, rng.randint(2, 5))) + str(index)
        package = f"com.{rng.choice(SYLLABLES)}.app{index}"
        kind = rng.choice(["device", "learned", "user"])
        scope = "device:bench" if kind == "device" else "global"
        entries.append(AppKbEntry(name, name, package, kind, scope, 1.0 if kind != "learned" else 0.9, 0, NOW, NOW))
        index += 1
    installed = [e.package for e in entries if e.kind == "device"]
    return entries[:size], installed


def queries_for(entries: list[AppKbEntry], count: int, rng: random.Random) -> list[str]:
    """Exact names, pinyin, typos and names that are not there, mixed."""
    picks = rng.sample(entries, min(count, len(entries)))
    out = []
    for i, entry in enumerate(picks):
        form = i % 4
        if form == 0:
            out.append(entry.term)
        elif form == 1:
            out.append("".join(lazy_pinyin(entry.term)))
        elif form == 2 and len(entry.term) > 2:
            out.append(entry.term[:-1] + rng.choice(CHARS))
        else:
            out.append("".join(rng.sample(CHARS, 3)))
    return out


def timed(fn: Callable[[str], object], queries: list[str]) -> list[float]:
    for q in queries[:50]:
        fn(q)  # warm caches
    out = []
    for q in queries:
        start = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - start) * 1000)
    return out


def measure(size: int, count: int) -> None:
    """Time the three methods on one KB size and print a row each."""
    rng = random.Random(size)
    entries, installed = synthetic_kb(size, rng)
    queries = queries_for(entries, count, rng)
    started = time.perf_counter()
    index = ResolverIndex.build(default_registry(), entries)
    build = time.perf_counter() - started
    installed_set = set(installed)
    jiyi = timed(lambda q: index.resolve(q, device="bench", installed=installed_set), queries)

    choices = [normalize(e.term).norm for e in entries]
    choices += ["".join(lazy_pinyin(c)) for c in choices]
    baseline = timed(lambda q: process.extractOne(normalize(q).norm, choices, scorer=fuzz.ratio), queries)

    exact = {normalize(e.term).norm: e.package for e in entries}
    floor = timed(lambda q: exact.get(normalize(q).norm), queries)

    base, bottom = percentile(jiyi, 50), percentile(floor, 50)
    for name, values, extra in (("jiyi", jiyi, f"{build:.2f}"), ("baseline", baseline, ""), ("dict", floor, "")):
        p50 = percentile(values, 50)
        print(
            f"{size:>8} {name:<10} {p50:>9.3f} {percentile(values, 99):>9.3f} "
            f"{p50 / base:>10.2f}x {p50 / bottom:>10.0f}x  {extra}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    print(f"{'entries':>8} {'method':<10} {'p50 ms':>9} {'p99 ms':>9} {'vs jiyi':>11} {'vs dict':>11}  index build s")
    for size in (int(s) for s in args.sizes.split(",")):
        measure(size, args.queries)


if __name__ == "__main__":
    main()
