"""Benchmark what finding a fact's near-duplicate costs a fact's write (issue 36 §4).

Each fact written (a planner's commit, learning's adoption, an import) first looks for the fact already here
that says the same thing (`store.desk.facts.existing`): its exact id, then every fact of its scope compared by
signature (`store.desk.fact_likeness`). In the same process, on a home of `--facts` environment facts:

* baseline — the exact-id lookup alone (what a write did before);
* cold     — `existing()` for new contents, signatures of the stored facts not cached (the first write after
             a start);
* warm     — `existing()` for new contents, the stored facts' signatures cached (every write after).

Twice: facts that carry marks (a model number: only the facts with the same marks are read, through an
index), and facts with none (every mark-less fact of the scope is read and compared: the worst case).

Run: `python -P bench/fact_likeness.py [--facts 2000] [--asks 50]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from service.config import load_config
from service.memory.memory import Memory
from store.desk import fact_likeness, facts
from store.desk.facts import FactSpec
from store.desk.models import Fact

ROOMS = ("客厅", "书房", "卧室", "厨房", "阳台", "车库", "办公室", "地下室")
THINGS = ("打印机", "路由器", "电脑", "电视", "音箱", "摄像头", "空调", "热水器", "NAS", "投影仪")


NAMES = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥"


def marked(n: int) -> str:
    """A distinct environment fact with a mark: a room's device and its model."""
    return f"{ROOMS[n % len(ROOMS)]}的{THINGS[n // len(ROOMS) % len(THINGS)]}型号是 X{n:05d}"


def unmarked(n: int) -> str:
    """A distinct environment fact without a mark: a room's device and its name, in words."""
    k = len(NAMES)
    a, b, c = n % k, n // k % k, n // (k * k) % k
    return f"{ROOMS[n % len(ROOMS)]}的{THINGS[n // len(ROOMS) % len(THINGS)]}叫{NAMES[a]}{NAMES[b]}{NAMES[c]}"


def fill(memory: Memory, count: int, content: Callable[[int], str]) -> None:
    store = memory.store
    with memory.parts.writes, store.atomic():
        for n in range(count):
            facts.record(store, FactSpec("environment", content(n), None, None, ()), actor="bench")


def per_call_ms(calls: list[FactSpec], look: Callable[[FactSpec], object]) -> float:
    started = time.perf_counter()
    for spec in calls:
        look(spec)
    return (time.perf_counter() - started) * 1000 / len(calls)


def measure(home: Path, count: int, asks: int, content: Callable[[int], str]) -> tuple[float, float, float]:
    """(baseline, cold, warm) in ms a lookup, on a fresh home of `count` facts made by `content`."""
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        fill(memory, count, content)
        news = [FactSpec("environment", content(count + n) + "了", None, None, ()) for n in range(asks)]
        with memory.store.atomic():
            baseline = per_call_ms(news, lambda spec: Fact.get_or_none(Fact.fact_id == spec.fact_id))
            fact_likeness.signature.cache_clear()
            cold = per_call_ms(news[:1], facts.existing)
            warm = per_call_ms(news[1:], facts.existing)
    return baseline, cold, warm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--asks", type=int, default=50)
    args = parser.parse_args()
    print(f"{args.facts:,} environment facts; {args.asks} lookups of new contents; ms a lookup")
    print(f"  {'facts':<10} {'baseline (exact id)':>20} {'cold':>8} {'warm':>8} {'warm/baseline':>14}")
    for name, content in (("marked", marked), ("unmarked", unmarked)):
        with tempfile.TemporaryDirectory() as folder:
            baseline, cold, warm = measure(Path(folder) / "home", args.facts, args.asks, content)
        print(f"  {name:<10} {baseline:>20.3f} {cold:>8.2f} {warm:>8.2f} {warm / baseline:>13.1f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
