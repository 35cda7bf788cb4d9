"""`jiyi eval resolve`: measure app-name resolution on an inventory and labelled queries.

The inventory is synced as device `eval`; each query is resolved as an agent
would. Metrics (all over the query rows):

* `top1_accuracy` — the first candidate is an expected package (rows whose expected is not `-`);
* `resolved_rate` — share answered `resolved`;
* `resolved_precision` — resolved and correct ÷ resolved (a resolved `-` row is wrong);
* `false_resolved` — how many resolved answers were wrong;
* `unknown_rate`, `latency_ms` {p50, p99}, and the same by `kind`.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from service.config import Config
from service.evaluation.percentile import percentile
from service.memory.memory import Memory
from store.appkb.entry import is_package_name
from store.appkb.inventory_file import read_inventory
from store.core.errors import InvalidInput
from store.core.tsv import read_tsv

EVAL_DEVICE = "eval"


@dataclass(frozen=True)
class Query:
    line: int
    query: str
    expected: frozenset[str]  # empty: must not resolve
    kind: str


def read_queries(path: Path) -> list[Query]:
    queries = []
    for number, row in read_tsv(path, ("query", "expected"), "queries"):
        expected = row["expected"]
        packages = frozenset() if expected == "-" else frozenset(p.strip() for p in expected.split("|") if p.strip())
        bad = [p for p in packages if not is_package_name(p)]
        if bad:
            raise InvalidInput(
                f"queries file {path}, line {number}: expected {bad[0]!r} is not a package name "
                "(use '-' for a name that must not resolve, '|' between several right answers)"
            )
        queries.append(Query(number, row["query"], packages, row.get("kind") or "all"))
    return queries


@dataclass(frozen=True)
class _Answer:
    """How one query was resolved."""

    query: str
    kind: str
    expected: frozenset[str]
    state: str
    package: str | None
    top1: str | None  # the first candidate's package


class Summary(TypedDict):
    """The scores over some queries (see the module docstring)."""

    n: int
    top1_accuracy: float | None  # None: no query expected a package
    resolved_rate: float
    resolved_precision: float | None  # None: nothing resolved
    false_resolved: int
    unknown_rate: float


class Latency(TypedDict):
    p50: float
    p99: float


class FalseResolved(TypedDict):
    query: str
    resolved: str | None
    expected: list[str] | str  # "-": it must not resolve


class Report(Summary):
    """`evaluate`'s report: the scores over every query, latency, the scores by kind and some wrong answers."""

    latency_ms: Latency
    by_kind: dict[str, Summary]
    false_resolved_examples: list[FalseResolved]


def _summary(rows: list[_Answer]) -> Summary:
    n = len(rows)
    scored = [r for r in rows if r.expected]
    resolved = [r for r in rows if r.state == "resolved"]
    correct = [r for r in resolved if r.package in r.expected]
    return {
        "n": n,
        "top1_accuracy": round(sum(r.top1 in r.expected for r in scored) / len(scored), 4) if scored else None,
        "resolved_rate": round(len(resolved) / n, 4) if n else 0.0,
        "resolved_precision": round(len(correct) / len(resolved), 4) if resolved else None,
        "false_resolved": len(resolved) - len(correct),
        "unknown_rate": round(sum(r.state == "unknown" for r in rows) / n, 4) if n else 0.0,
    }


def evaluate(memory: Memory, inventory: list[tuple[str, str]], queries: list[Query]) -> Report:
    """Sync the inventory as device `eval`, resolve every query, and score."""
    memory.appkb.sync_inventory(EVAL_DEVICE, inventory, actor="system")
    memory.appkb.resolver_index()  # built once, outside the timed queries
    rows: list[_Answer] = []
    latencies: list[float] = []
    for query in queries:
        result = memory.appkb.resolve_app(query.query, device=EVAL_DEVICE)
        latencies.append(result.elapsed_ms)
        rows.append(
            _Answer(
                query=query.query,
                kind=query.kind,
                expected=query.expected,
                state=result.state,
                package=result.package,
                top1=result.candidates[0].package if result.candidates else None,
            )
        )
    by_kind: dict[str, list[_Answer]] = defaultdict(list)
    for row in rows:
        by_kind[row.kind].append(row)
    wrong: list[FalseResolved] = [
        {"query": r.query, "resolved": r.package, "expected": sorted(r.expected) or "-"}
        for r in rows
        if r.state == "resolved" and r.package not in r.expected
    ]
    return {
        **_summary(rows),
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 3),
            "p99": round(percentile(latencies, 99), 3),
        },
        "by_kind": {kind: _summary(items) for kind, items in sorted(by_kind.items())},
        "false_resolved_examples": wrong[:20],
    }


def run_eval(config: Config, inventory_path: Path, queries_path: Path, *, fresh_home: bool) -> Report:
    """Read the files (errors before anything opens), then evaluate in a fresh or the given home."""
    inventory = read_inventory(inventory_path)
    queries = read_queries(queries_path)
    if not fresh_home:
        with Memory.open(config) as memory:
            return evaluate(memory, inventory, queries)
    with tempfile.TemporaryDirectory(prefix="jiyi-eval-") as tmp:
        values = dict(config.values)
        values["home"] = str(Path(tmp) / "home")
        values["database_url"] = values["database_password_file"] = ""  # its own file, never a shared server
        with Memory.open(Config(values, config.sources)) as memory:
            return evaluate(memory, inventory, queries)
