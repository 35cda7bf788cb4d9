"""Benchmark `bundle.document.put` on a local home against writing the same file atomically by hand.

In one process, on a fresh SQLite home: `--puts` changed puts of one document
(`put_bundle_document`: the commit, the mirror's checks — every folder opened
without following links, the file checked to be a regular file and read
bounded — the atomic file, and the mirror's mark), then the same number of
bare atomic writes (`store.core.home.atomic_file.write_text`: a temporary file,
fsync, rename) of the same contents to another folder: the floor any mirrored
put pays for its file. Each is timed per call; p50 and p99 (wall) are printed
with the p50's ratio to the bare write. `--documents N` spreads the puts over
N documents (the mark's size does not grow with them on a local store).

Run: `python -P bench/bundle_puts.py [--puts 300] [--documents 1] [--json]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.config import load_config
from service.evaluation.percentile import percentile
from service.memory.memory import Memory
from store.core.home.atomic_file import write_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puts", type=int, default=300)
    parser.add_argument("--documents", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        bare = Path(folder) / "bare"
        texts = [f"# 第 {n} 版\n\n" + "内容 " * 200 for n in range(args.puts)]
        puts: list[float] = []
        with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
            revisions = [0] * args.documents
            for n, text in enumerate(texts):
                doc = n % args.documents
                started = time.perf_counter()
                answer = memory.bundles.put_bundle_document(
                    "project/bench", f"doc{doc}.md", text, expected_revision=revisions[doc]
                )
                puts.append(time.perf_counter() - started)
                assert answer["mirror_problem"] is None
                revisions[doc] = answer["revision"]
        writes: list[float] = []
        for n, text in enumerate(texts):
            started = time.perf_counter()
            write_text(bare / f"doc{n % args.documents}.md", text)
            writes.append(time.perf_counter() - started)
    rows = {name: (percentile(times, 50), percentile(times, 99)) for name, times in (("put", puts), ("bare", writes))}
    ratio = rows["put"][0] / rows["bare"][0]
    if args.json:
        print(json.dumps({"p50_ms": {k: v[0] * 1e3 for k, v in rows.items()}, "ratio_p50": ratio}))
        return
    for name, (p50, p99) in rows.items():
        print(f"{name:<6} p50 {p50 * 1e3:7.2f} ms  p99 {p99 * 1e3:7.2f} ms  ({p50 / rows['bare'][0]:.1f}× bare)")
    print(f"{args.puts} puts over {args.documents} document(s); put p50 / bare write p50 = {ratio:.1f}")


if __name__ == "__main__":
    main()
