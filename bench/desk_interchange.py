"""Benchmark `jiyi export desk` / `jiyi import desk` on a home of `--turns` turns and a task card every tenth.

In the same process, with the hash embedder (the model is not what is measured):

* baseline  — remembering the turns and completing the cards one call each (`remember_interaction`,
              `complete_task`: the ordinary write path, one transaction a write), as the source home is made;
* export    — writing the whole desk memory and its manifest;
* import    — checking the export and writing it into an empty home in one transaction (embedding excluded);
* index     — embedding what the import queued for the desk index (`memory.recall` finds it at once);
* again     — importing the same export again (every record skipped, nothing written).

Run: `python -P bench/desk_interchange.py [--turns 5000]`.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from service.config import load_config
from service.memory.memory import Memory
from store.interchange import desk_format, desk_import

T0 = 1_764_000_000.0


def make_source(home: Path, turns: int) -> float:
    """Fill `home` through the ordinary write path; the seconds it took."""
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        start = time.perf_counter()
        for n in range(turns):
            memory.desk.remember_interaction(
                f"turn-{n:06d}",
                user_text=f"第{n}次问：帮我看看第{n % 97}号构建为什么失败",
                assistant_text=f"第{n % 97}号构建失败是因为磁盘已满，已清理 {n % 13} GB",
                source="desktop",
                ts=T0 + 60 * n,
            )
            if n % 10 == 0:
                memory.desk.complete_task(
                    f"task-{n:06d}", title=f"清理构建机 {n % 97}", status="succeeded", result="清理完成", ts=T0 + 60 * n
                )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=5000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="jiyi-bench-desk-"))
    try:
        baseline = make_source(root / "source", args.turns)
        with Memory.open(load_config(home=root / "source", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
            start = time.perf_counter()
            counts = memory.interchange.export_desk(root / "export")
            exported = time.perf_counter() - start
        records = sum(counts.values())
        with Memory.open(load_config(home=root / "target", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
            start = time.perf_counter()  # what `import_desk` does before its index catches up
            export = desk_format.read_export(root / "export")
            desk_import.import_export(memory.store, memory.parts.redactor, export)
            written = time.perf_counter() - start
            start = time.perf_counter()
            memory.desk.index.drain()
            indexed = time.perf_counter() - start
            start = time.perf_counter()
            again = memory.interchange.import_desk(root / "export")
            repeated = time.perf_counter() - start
        assert sum(r.skipped for r in again.values()) == records
        print(f"records           {records} ({counts['interactions']} turns, {counts['task_cards']} task cards)")
        print(f"baseline          {baseline:7.2f} s  {records / baseline:8.0f} records/s  (one write a call)")
        for name, seconds in (("export", exported), ("import", written), ("import again", repeated)):
            rate = records / seconds
            print(f"{name:<17} {seconds:7.2f} s  {rate:8.0f} records/s  {seconds / baseline:.3f}× baseline")
        print(f"index (embedding) {indexed:7.2f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
