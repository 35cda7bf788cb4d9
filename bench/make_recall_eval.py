"""Build the recall evaluation sets from the public tasks.

Queries are Chinese tasks that do not name their app (no name or alias of the
package appears in the instruction). History is every other Chinese task of
the public data (past successful runs of its app). Four apps are held out of
the history entirely, so some queries have no relevant history: recall must
abstain on them rather than guess.

Two splits:
* `recall_queries.tsv` — an instruction-level split: a task's easier or harder
  variant may be in the history (a user repeating a task);
* `recall_queries_family.tsv` — a family-held-out split: all variants of a
  task (SPA-Bench `app_0/1/2`) stay on one side.

    python bench/make_recall_eval.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
from pathlib import Path

from recall.registry import default_registry
from store.core.name_forms import normalize

OUT = Path(__file__).parent / "data"
HELD_OUT = ("com.umetrip.android.msky.app", "com.haodf.android", "com.Qunar", "com.huawei.browser")


def bucket(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % 100


def family(source: str) -> str:
    """SPA-Bench ids come in threes of one task (alipay_0, _1, _2 …): its family."""
    match = re.search(r"#([A-Za-z]+)_(\d+)$", source)
    return f"{match.group(1)}:{int(match.group(2)) // 3}" if match else source


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(__file__).parent.parent.parent / "shared" / "data")
    args = parser.parse_args()
    registry = default_registry()
    rows = list(csv.DictReader((args.data / "public_tasks.tsv").open(encoding="utf-8"), delimiter="\t"))
    zh = [r for r in rows if r["language"] == "zh" and r["package"] and "{" not in r["instruction"]]

    def names(r: dict[str, str]) -> set[str]:
        found = {r["app_name"]}
        app = registry.apps.get(r["package"])
        if app:
            found |= {app.label, *app.aliases, *app.nicknames}
        return {n for n in (normalize(x).alnum for x in found) if len(n) >= 2}

    unnamed = [r for r in zh if not any(n in normalize(r["instruction"]).alnum for n in names(r))]
    unnamed_ids = {id(r) for r in unnamed}
    for name, key in (
        ("recall_queries.tsv", lambda r: r["instruction"]),
        ("recall_queries_family.tsv", lambda r: family(r["source"])),
    ):
        queries = [r for r in unnamed if bucket(key(r)) < 40 or r["package"] in HELD_OUT]
        query_keys = {key(r) for r in queries}
        history = [
            r
            for r in zh
            if r["package"] not in HELD_OUT
            and key(r) not in query_keys
            and not (id(r) in unnamed_ids and bucket(key(r)) < 40)
        ]
        with (OUT / name).open("w", encoding="utf-8") as out:
            out.write("goal\tactual\thas_history\n")
            seen = {r["package"] for r in history}
            for r in queries:
                out.write(f"{' '.join(r['instruction'].split())}\t{r['package']}\t{int(r['package'] in seen)}\n")
        history_name = "recall_history.tsv" if name == "recall_queries.tsv" else "recall_history_family.tsv"
        with (OUT / history_name).open("w", encoding="utf-8") as out:
            out.write("goal\tpackage\n")
            for r in history:
                out.write(f"{' '.join(r['instruction'].split())}\t{r['package']}\n")
        with_history = sum(r["package"] in seen for r in queries)
        print(f"{name}: {len(queries)} queries ({with_history} with history), {history_name}: {len(history)} runs")


if __name__ == "__main__":
    main()
