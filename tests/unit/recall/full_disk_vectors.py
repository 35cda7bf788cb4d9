"""The embedded vector index on a small file system that fills up, run inside a mount namespace.

`python full_disk_vectors.py MOUNTPOINT` mounts a 4 MB tmpfs on MOUNTPOINT
(run it under `unshare --user --map-root-user --mount`, so the mount vanishes
with the process), writes vectors until the disk refuses them, asks a query on
the full disk, frees the space and writes and queries again. It prints one
JSON object with what it saw; `test_vector_full_disk.py` asserts on it.
"""

from __future__ import annotations

import faulthandler
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from recall.embedders import HashEmbedder
from recall.vectors import Document, VectorIndex


def documents(start: int, count: int) -> list[Document]:
    return [Document(f"run-{n}", f"目标 {n} " * 40, {"device": "d1"}, str(n)) for n in range(start, start + count)]


def main(mountpoint: Path) -> dict[str, Any]:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=700", "tmpfs", str(mountpoint)], check=True)
    home = mountpoint / "home"
    home.mkdir(mode=0o700)
    spare = mountpoint / "spare"
    spare.write_bytes(b"\0" * (1 << 20))  # freed after the disk is full
    index = VectorIndex(home, HashEmbedder())
    seen: dict[str, Any] = {"written": 0, "errors": []}
    for batch in range(200):
        try:
            index.upsert("episode", "device:d1", documents(batch * 50, 50))
            seen["written"] += 50
        except Exception as exc:
            seen["errors"].append({"type": type(exc).__name__, "message": str(exc)})
            break
    try:
        index.query("episode", "device:d1", HashEmbedder().queries(["目标 3"])[0], 3)
        seen["query_on_full_disk"] = "ok"
    except Exception as exc:
        seen["query_on_full_disk"] = {"type": type(exc).__name__, "message": str(exc)}
    spare.unlink()
    try:
        index.upsert("episode", "device:d1", documents(100_000, 5))
        hits = index.query("episode", "device:d1", HashEmbedder().queries(["目标 100001"])[0], 3)
        seen["after_freeing"] = [h.id for h in hits]
    except Exception as exc:
        seen["after_freeing"] = {"type": type(exc).__name__, "message": str(exc)[:300]}
    return seen


if __name__ == "__main__":
    faulthandler.dump_traceback_later(90, exit=True)  # a hang fails with where it hung, before the test's timeout
    print(json.dumps(main(Path(sys.argv[1])), ensure_ascii=False))
